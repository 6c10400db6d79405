import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Whether each call gets a pids cgroup, from KEEL_PROCESS_CGROUP: `on`, `off`, or by default
 * (unset, empty or `auto`) only where RLIMIT_NPROC cannot hold, a worker running as root (the
 * kernel exempts uid 0 from it). Elsewhere the rlimit binds for free. Any other value throws one
 * clear line, as the other limits' variables do.
 */
export function wantsProcessCgroup(setting: string | undefined, uid: number | undefined): boolean {
  if (setting === 'on') return true;
  if (setting === 'off') return false;
  if (setting === undefined || setting === '' || setting === 'auto') return uid === 0;
  throw new Error(`KEEL_PROCESS_CGROUP must be on, off or auto, got "${setting}"`);
}

/**
 * RLIMIT_NPROC does not hold for a worker running as root, so there (wantsProcessCgroup), where
 * this worker may make cgroups of the v1 pids controller, each call gets one whose pids.max is the
 * process limit, and the confine script moves itself into it before bwrap. Undefined elsewhere
 * (cgroup v2 without delegation, read-only /sys/fs/cgroup): then only RLIMIT_NPROC holds.
 */
export function probeProcessCgroup(processId = process.pid): string | undefined {
  try {
    const line = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((entry) => entry.split(':')[1]?.split(',').includes('pids'));
    if (line === undefined) return undefined;
    const own = line.split(':').slice(2).join(':');
    const root = path.join('/sys/fs/cgroup/pids', own, `keel-${processId}`);
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, 'pids.max'), 'max');
    if (cleanedAtExit.has(root)) return root; // probed again (a reset status): one cleanup is enough
    cleanedAtExit.add(root);
    process.once('exit', () => {
      for (const directory of [...idle.splice(0), ...stragglers, root]) {
        try {
          rmdirSync(directory);
        } catch {
          // a call's cgroup still has a process: the kernel keeps the cgroup harmlessly
        }
      }
    });
    return root;
  } catch {
    return undefined;
  }
}

/** The roots this process removes at its exit. */
const cleanedAtExit = new Set<string>();

/**
 * Empty cgroups kept for the next call: making and removing one costs about 15 ms in the kernel,
 * most of a plain command's run, while an empty one is as good as new.
 */
const idle: string[] = [];
/** Cgroups whose last processes were still being reaped when their call ended. */
const stragglers = new Set<string>();

/** Runs `run` in a cgroup of its own, empty at the start, of at most `processes` processes. */
export async function withProcessCgroup<T>(
  root: string | undefined,
  processes: number,
  run: (cgroup: string | undefined) => Promise<T>,
): Promise<T> {
  if (root === undefined) return run(undefined);
  let cgroup = idle.pop();
  if (cgroup === undefined) {
    cgroup = path.join(root, `call-${randomUUID()}`);
    await mkdir(cgroup);
  }
  try {
    await writeFile(path.join(cgroup, 'pids.max'), String(processes));
    return await run(cgroup);
  } finally {
    await release(cgroup);
  }
}

/** Back to the idle ones when empty; a straggler still being reaped: removed once it is gone. */
async function release(cgroup: string): Promise<void> {
  if ((await readFile(path.join(cgroup, 'cgroup.procs'), 'utf8')).trim() === '') {
    idle.push(cgroup);
    return;
  }
  void removeWhenEmpty(cgroup);
}

async function removeWhenEmpty(cgroup: string): Promise<void> {
  stragglers.add(cgroup);
  for (let attempt = 0; attempt < 50; attempt += 1) {
    try {
      await rmdir(cgroup);
      stragglers.delete(cgroup);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
