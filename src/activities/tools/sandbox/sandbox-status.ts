import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bubblewrapArguments } from './bubblewrap-arguments';
import { layerLauncher } from './layer-launcher';
import type { NetworkIsolation } from './network-isolation';
import { probeProcessCgroup, wantsProcessCgroup } from './process-cgroup';
import { resourceLimitsFromEnv, type ResourceLimits } from './resource-limits';

/** Whether this worker can run a command on a copy-on-write layer (see ../layers/). */
export type LayerSupport =
  | { readonly available: true; readonly unshare: string }
  | { readonly available: false; readonly reason: string };

/** How run_command executes on this worker. */
export type SandboxStatus =
  | {
      readonly mode: 'bubblewrap';
      readonly executable: string;
      readonly layers: LayerSupport;
      /** How a command the goal grants network gets a network of its own (never the host's). */
      readonly network: NetworkIsolation;
      /** What each command may take (rlimits, see resource-limits.ts). */
      readonly limits: ResourceLimits;
      /** Where each call gets a pids cgroup (process-cgroup.ts); undefined: RLIMIT_NPROC alone. */
      readonly processCgroup?: string;
    }
  | { readonly mode: 'unconfined'; readonly reason: string };

let cached: SandboxStatus | undefined;

/**
 * Whether bubblewrap can confine commands here, decided once per process: bwrap must be on PATH
 * and run a command with the very arguments keel uses, which fails where user namespaces are
 * disabled. Then whether a copy-on-write layer can be mounted (unshare, overlayfs in a user
 * namespace: Linux 5.11 or later). KEEL_SANDBOX=off forces the unconfined fallback.
 */
export function sandboxStatus(env: NodeJS.ProcessEnv = process.env): SandboxStatus {
  cached ??= probeSandbox(env);
  return cached;
}

/** The one line the worker prints at start, so running unconfined is never silent. */
export function describeSandbox(status: SandboxStatus = sandboxStatus()): string {
  if (status.mode === 'unconfined')
    return `keel worker: WARNING run_command is NOT sandboxed (${status.reason}); every run_command call waits for a human's approval`;
  const layers = status.layers.available
    ? 'commands that change files run on a copy-on-write layer'
    : `WARNING no copy-on-write layer (${status.layers.reason}): commands that change files wait for a human's approval`;
  const network = status.network.available
    ? 'no network unless a goal allows it, and then a network of its own (slirp4netns) that cannot reach this host'
    : `no network; WARNING a goal that allows network fails its commands (${status.network.reason})`;
  const processes =
    status.processCgroup !== undefined
      ? `${status.limits.processes} processes (a pids cgroup per command)`
      : process.getuid?.() === 0
        ? `${status.limits.processes} processes, WARNING not held: a worker running as root holds it only in a pids cgroup, and it makes none (${process.env.KEEL_PROCESS_CGROUP === 'off' ? 'KEEL_PROCESS_CGROUP=off' : 'no writable v1 pids controller'}); run it as another user`
        : `${status.limits.processes} processes`;
  const limits = `each command limited to ${status.limits.memoryBytes} bytes of memory, ${status.limits.fileSizeBytes} per file, ${processes}`;
  return `keel worker: run_command is sandboxed with bubblewrap (${status.executable}); read-only calls see the workspace read-only, ${layers}; ${network}; ${limits}`;
}

/** For tests that switch KEEL_SANDBOX: forget the cached decision. */
export function resetSandboxStatus(): void {
  cached = undefined;
}

function probeSandbox(env: NodeJS.ProcessEnv): SandboxStatus {
  if (env.KEEL_SANDBOX === 'off') return { mode: 'unconfined', reason: 'KEEL_SANDBOX=off' };
  const executable = findOnPath('bwrap', env.PATH ?? '');
  if (executable === undefined)
    return { mode: 'unconfined', reason: 'bwrap not found on PATH (install the bubblewrap package)' };
  const workspace = mkdtempSync(path.join(tmpdir(), 'keel-sandbox-probe-'));
  try {
    const bwrap = [
      executable,
      ...bubblewrapArguments({ workspace, network: false, access: 'read-only' }),
      '/bin/true',
    ];
    const probe = run(bwrap);
    if (probe !== undefined)
      return { mode: 'unconfined', reason: `bubblewrap cannot run a sandbox here: ${probe}` };
    return {
      mode: 'bubblewrap',
      executable,
      layers: probeLayers(env, executable, workspace),
      network: findNetworkIsolation(env),
      limits: resourceLimitsFromEnv(env),
      // Only where RLIMIT_NPROC cannot hold (a root worker), unless told otherwise: the cgroup
      // costs a call about 0.3 ms (confinement.ts), the rlimit nothing.
      ...withDefined(
        'processCgroup',
        wantsProcessCgroup(env.KEEL_PROCESS_CGROUP, process.getuid?.()) ? probeProcessCgroup() : undefined,
      ),
    };
  } finally {
    removeNow(workspace);
  }
}

/**
 * Synchronously, so a short-lived process (a CLI command) leaves nothing behind: overlayfs leaves
 * work/work with mode 000, which the worker owns and opens up first.
 */
function removeNow(directory: string): void {
  try {
    chmodSync(path.join(directory, '.layer', 'work', 'work'), 0o700);
  } catch {
    // not there: no layer was mounted
  }
  rmSync(directory, { recursive: true, force: true });
}

/** Mounts a real layer over a scratch workspace and runs bwrap on it, as a command would run. */
function probeLayers(env: NodeJS.ProcessEnv, executable: string, workspace: string): LayerSupport {
  if (env.KEEL_LAYERS === 'off') return { available: false, reason: 'KEEL_LAYERS=off' };
  const unshare = findOnPath('unshare', env.PATH ?? '');
  if (unshare === undefined)
    return { available: false, reason: 'unshare not found on PATH (install util-linux)' };
  const root = path.join(workspace, '.layer');
  const layer = {
    root,
    lower: path.join(root, 'lower'),
    upper: path.join(root, 'upper'),
    work: path.join(root, 'work'),
    merged: path.join(root, 'merged'),
  };
  for (const directory of [layer.lower, layer.upper, layer.work, layer.merged])
    mkdirSync(directory, { recursive: true });
  const bwrap = [
    executable,
    ...bubblewrapArguments({ workspace, network: false, access: 'read-write', source: layer.merged }),
    '/bin/true',
  ];
  // fd 3 is the launcher's report ("mounted", "exit N"); fd 4 is at end of file at once.
  const [program = '', ...args] = layerLauncher({ unshare, layer, workspace, bwrap });
  const result = spawnSync(program, args, {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'ignore'],
    timeout: 10_000,
  });
  const report = String(result.output[3] ?? '');
  if (report.includes('mounted') && report.includes('exit 0')) return { available: true, unshare };
  const detail =
    String(result.stderr ?? '')
      .trim()
      .split('\n')[0] ?? '';
  return {
    available: false,
    reason: `an overlay in a user namespace could not be mounted${detail === '' ? '' : `: ${detail}`}`,
  };
}

function withDefined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** unshare, slirp4netns and ip, looked for on PATH and in the sbin directories PATH may lack. */
function findNetworkIsolation(env: NodeJS.ProcessEnv): NetworkIsolation {
  const searchPath = `${env.PATH ?? ''}:/usr/sbin:/sbin:/usr/bin:/bin`;
  const unshare = findOnPath('unshare', searchPath);
  const slirp4netns = findOnPath('slirp4netns', searchPath);
  const ip = findOnPath('ip', searchPath);
  if (slirp4netns === undefined) return { available: false, reason: 'slirp4netns not found' };
  if (ip === undefined) return { available: false, reason: 'ip not found (install iproute2)' };
  if (unshare === undefined) return { available: false, reason: 'unshare not found (install util-linux)' };
  return { available: true, unshare, slirp4netns, ip };
}

/** Undefined when the program ran and exited 0; its first line of complaint otherwise. */
function run(argv: readonly string[]): string | undefined {
  const [program = '', ...args] = argv;
  const result = spawnSync(program, args, { stdio: 'pipe', timeout: 10_000 });
  if (result.status === 0) return undefined;
  const detail = (result.error?.message ?? result.stderr?.toString() ?? '').trim().split('\n')[0] ?? '';
  return detail === '' ? `exit status ${String(result.status ?? result.signal)}` : detail;
}

function findOnPath(name: string, searchPath: string): string | undefined {
  for (const directory of searchPath.split(':')) {
    if (directory === '') continue;
    const candidate = path.join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
