import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { rmdir, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * RLIMIT_NPROC does not hold for a worker running as root (the kernel exempts uid 0), so where
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
    process.once('exit', () => {
      try {
        rmdirSync(root);
      } catch {
        // a call's cgroup is still there: the kernel keeps an empty cgroup harmlessly
      }
    });
    return root;
  } catch {
    return undefined;
  }
}

/** Runs `run` with a fresh cgroup of at most `processes` processes, removed afterwards. */
export async function withProcessCgroup<T>(
  root: string | undefined,
  processes: number,
  run: (cgroup: string | undefined) => Promise<T>,
): Promise<T> {
  if (root === undefined) return run(undefined);
  const cgroup = path.join(root, `call-${randomUUID()}`);
  await mkdir(cgroup);
  try {
    await writeFile(path.join(cgroup, 'pids.max'), String(processes));
    return await run(cgroup);
  } finally {
    await removeWhenEmpty(cgroup);
  }
}

/** The command's last processes may take a moment to be reaped after its group was killed. */
async function removeWhenEmpty(cgroup: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    try {
      await rmdir(cgroup);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
