import { runShellProcess, type ShellProcessResult } from '../shell-process';
import { bubblewrapArguments, SANDBOX_HOME, type WorkspaceAccess } from './bubblewrap-arguments';
import { confinementPrefix } from './confinement';
import { networkSetupFailure } from './network-isolation';
import { withProcessCgroup } from './process-cgroup';
import { sandboxStatus, type SandboxStatus } from './sandbox-status';

const DEFAULT_OUTPUT_LIMIT_PER_STREAM = 10_000;
const DEFAULT_HEARTBEAT_INTERVAL_MILLISECONDS = 5000;

/**
 * Without bubblewrap, a watchdog in the command's process group reads a pipe the worker holds
 * open; end of file means the worker died (even by SIGKILL), and the watchdog kills the whole
 * group so nothing runs on past its timeout. The pipe goes through fd 3 because sh gives a
 * background job /dev/null as stdin unless it is redirected explicitly. "$@" is the real command,
 * with stdin at end of file and without the pipe.
 */
const WATCHDOG = 'exec 3<&0; { cat >/dev/null; kill -9 0; } <&3 >/dev/null 2>&1 & exec "$@" </dev/null 3<&-';

export interface SandboxedCommandOptions {
  /** Run with /bin/sh -c, cwd = workspace. */
  command: string;
  /** Absolute, symlink-resolved directory: the only place the command can write (or see, besides the system). */
  workspace: string;
  /** The command's whole environment: pass a scrubbed one (see commandEnvironment); HOME is replaced. */
  env: Record<string, string>;
  timeoutMs: number;
  /**
   * A network of its own that reaches out but never this host (network-isolation.ts); off by
   * default (the sandbox has only its own loopback). Throws NetworkIsolationUnavailable where no
   * such network can be made.
   */
  network?: boolean;
  signal?: AbortSignal;
  heartbeat?: () => void;
  heartbeatIntervalMs?: number;
  outputLimitPerStream?: number;
  /** Defaults to this worker's (cached) probe; tests may pass one. */
  status?: SandboxStatus;
  /**
   * `read-only` binds the workspace read-only, so the kernel refuses every write (run_command's
   * read-only calls); default `read-write`. Without bubblewrap nothing enforces either.
   */
  workspaceAccess?: WorkspaceAccess;
}

export interface SandboxedCommandResult extends ShellProcessResult {
  /** 'unconfined' when bwrap is unavailable or KEEL_SANDBOX=off: the caller must have checked the command. */
  readonly sandbox: SandboxStatus['mode'];
}

/**
 * Runs a shell command in a bubblewrap sandbox when this worker has one (workspace read-write, or
 * read-only with workspaceAccess; system read-only; private /tmp and /proc; no network unless
 * asked; killed with the worker), with the timeout, process-group kill, heartbeats and output caps of
 * runShellProcess. For tools that run commands; see docs/approvals-and-security.md, Sandbox. Without bubblewrap it runs
 * unconfined (result.sandbox says so), so a caller must decide beforehand whether that is safe.
 */
export async function runSandboxedCommand(options: SandboxedCommandOptions): Promise<SandboxedCommandResult> {
  const status = options.status ?? sandboxStatus();
  const confined = status.mode === 'bubblewrap';
  const launcherIn = (cgroup: string | undefined) =>
    confined
      ? [
          ...confinementPrefix(status, options.network ?? false, cgroup),
          status.executable,
          ...bubblewrapArguments({
            workspace: options.workspace,
            network: options.network ?? false,
            access: options.workspaceAccess ?? 'read-write',
          }),
        ]
      : ['/bin/sh', '-c', WATCHDOG, 'keel-watchdog'];
  if (confined) launcherIn(undefined); // a call granted network this worker cannot isolate fails before anything is made
  const result = await withProcessCgroup(
    confined ? status.processCgroup : undefined,
    confined ? status.limits.processes : 0,
    (cgroup) =>
      runShellProcess({
        command: options.command,
        launcher: launcherIn(cgroup),
        holdStdinOpen: !confined,
        cwd: options.workspace,
        // Inside the sandbox the real home does not exist; dotfiles go to the private /tmp.
        environment: confined ? { ...options.env, HOME: SANDBOX_HOME } : options.env,
        timeoutMilliseconds: options.timeoutMs,
        outputLimitPerStream: options.outputLimitPerStream ?? DEFAULT_OUTPUT_LIMIT_PER_STREAM,
        signal: options.signal ?? new AbortController().signal,
        heartbeat: options.heartbeat ?? (() => {}),
        heartbeatIntervalMilliseconds: options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MILLISECONDS,
      }),
  );
  // The command never started when its network could not be set up: "not run", typed.
  const setupFailure = confined && options.network === true ? networkSetupFailure(result) : undefined;
  if (setupFailure !== undefined) throw setupFailure;
  return { ...result, sandbox: status.mode };
}
