import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** How run_command executes on this worker. */
export type SandboxStatus =
  | { readonly mode: 'bubblewrap'; readonly executable: string }
  | { readonly mode: 'unconfined'; readonly reason: string };

let cached: SandboxStatus | undefined;

/**
 * Whether bubblewrap can confine commands here, decided once per process: bwrap must be on PATH
 * and a probe (`bwrap --ro-bind / / true`) must succeed, which fails where user namespaces are
 * disabled. KEEL_SANDBOX=off forces the unconfined fallback (tests, hosts without namespaces).
 */
export function sandboxStatus(env: NodeJS.ProcessEnv = process.env): SandboxStatus {
  cached ??= probeSandbox(env);
  return cached;
}

/** The one line the worker prints at start, so running unconfined is never silent. */
export function describeSandbox(status: SandboxStatus = sandboxStatus()): string {
  return status.mode === 'bubblewrap'
    ? `keel worker: run_command is sandboxed with bubblewrap (${status.executable}); only the workspace is writable, no network unless a goal allows it`
    : `keel worker: WARNING run_command is NOT sandboxed (${status.reason}); read-only commands must name only paths inside the workspace, everything else waits for approval`;
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
  const probe = spawnSync(executable, ['--ro-bind', '/', '/', 'true'], { stdio: 'pipe', timeout: 10_000 });
  if (probe.status !== 0) {
    const detail = (probe.error?.message ?? probe.stderr?.toString() ?? '').trim().split('\n')[0] ?? '';
    return {
      mode: 'unconfined',
      reason: `the probe \`bwrap --ro-bind / / true\` failed${detail === '' ? '' : `: ${detail}`}`,
    };
  }
  return { mode: 'bubblewrap', executable };
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
