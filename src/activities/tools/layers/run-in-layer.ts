import { runShellProcess, type ShellProcessResult } from '../shell-process';
import { bubblewrapArguments, SANDBOX_HOME } from '../sandbox/bubblewrap-arguments';
import { confinementPrefix } from '../sandbox/confinement';
import { layerLauncher } from '../sandbox/layer-launcher';
import { enforcedFileSizeBytes, FILE_SIZE_EXCEEDED_EXIT } from '../sandbox/resource-limits';
import { withProcessCgroup } from '../sandbox/process-cgroup';
import { sandboxStatus } from '../sandbox/sandbox-status';
import { layerOversize } from './layer-size';
import { captureLayer, type CapturedLayer } from './layer-capture';
import type { CallLayer } from './layer-record';

export interface LayeredRun {
  /** The command's output; `exitCode` is the command's own, not the launcher's. */
  readonly result: ShellProcessResult;
  /** False when the overlay could not be mounted (why: `result.stderr`); nothing ran then. */
  readonly mounted: boolean;
  /** What the command changed, when it ended on its own and the layer could be read. */
  readonly capture?: CapturedLayer;
  /** Why the layer could not be read (the command ran; its changes are unknown, so none apply). */
  readonly captureError?: string;
  /** Why the layer is discarded whole though it could be read: it hit a resource limit. */
  readonly overLimit?: string;
}

/**
 * Runs `/bin/sh -c command` in bubblewrap on a copy-on-write layer over the workspace: the
 * command sees the workspace read-write at its own path, but everything it writes lands in the
 * layer's upper directory, and the workspace is untouched until keel applies the layer. The
 * layer is taken stock of while the launcher still holds its namespace (the merged view is read
 * through /proc/PID/root). Sandbox otherwise as for read-only calls: see bubblewrap-arguments.ts.
 */
export async function runInLayer(options: {
  command: string;
  workspace: string;
  layer: CallLayer;
  bwrap: string;
  unshare: string;
  env: Record<string, string>;
  network: boolean;
  timeoutMilliseconds: number;
  outputLimitPerStream: number;
  signal: AbortSignal;
  heartbeat: () => void;
  heartbeatIntervalMilliseconds: number;
}): Promise<LayeredRun> {
  // Before the layer is made: a call granted network this worker cannot isolate fails, typed.
  const status = sandboxStatus();
  if (status.mode === 'bubblewrap') confinementPrefix(status, options.network);
  const confined = status.mode === 'bubblewrap' ? status : undefined;
  return withProcessCgroup(confined?.processCgroup, confined?.limits.processes ?? 0, (cgroup) =>
    runWithConfinement(
      options,
      confined === undefined ? [] : confinementPrefix(confined, options.network, cgroup),
    ),
  );
}

async function runWithConfinement(
  options: Parameters<typeof runInLayer>[0],
  confinement: readonly string[],
): Promise<LayeredRun> {
  const { layer, workspace } = options;
  const status = sandboxStatus();
  await layer.prepare();
  const directories = layer.directories;
  const bwrap = [
    ...confinement,
    options.bwrap,
    ...bubblewrapArguments({
      workspace,
      network: options.network,
      access: 'read-write',
      source: directories.merged,
      // Root of the launcher's namespace is the worker's user; the command runs as that user's
      // ids inside, as read-only calls do, not as root of anything.
      identity: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    }),
  ];
  let mounted = false;
  let commandExit: number | undefined;
  let capture: CapturedLayer | undefined;
  let captureError: string | undefined;
  let overLimit: string | undefined;
  const result = await runShellProcess({
    command: options.command,
    launcher: layerLauncher({ unshare: options.unshare, layer: directories, workspace, bwrap }),
    cwd: workspace,
    environment: { ...options.env, HOME: SANDBOX_HOME },
    timeoutMilliseconds: options.timeoutMilliseconds,
    outputLimitPerStream: options.outputLimitPerStream,
    signal: options.signal,
    heartbeat: options.heartbeat,
    heartbeatIntervalMilliseconds: options.heartbeatIntervalMilliseconds,
    control: {
      onLine: async (line, launcherPid) => {
        if (line === 'mounted') mounted = true;
        if (!line.startsWith('exit ')) return;
        commandExit = Number(line.slice('exit '.length));
        try {
          overLimit = await overLimitOf(commandExit, directories.upper, status);
          if (overLimit !== undefined) return;
          capture = await captureLayer({
            upper: directories.upper,
            workspace,
            merged: `/proc/${launcherPid}/root${directories.merged}`,
          });
        } catch (error) {
          captureError = error instanceof Error ? error.message : String(error);
        }
      },
    },
  });
  const ended = commandExit !== undefined && !result.timedOut && !result.cancelled;
  return {
    result: {
      ...result,
      exitCode: commandExit,
      signal: commandExit === undefined ? result.signal : undefined,
    },
    mounted,
    ...(overLimit !== undefined ? { overLimit } : {}),
    ...(ended && capture !== undefined ? { capture } : {}),
    ...(ended && capture === undefined && overLimit === undefined
      ? { captureError: captureError ?? 'the layer was not read' }
      : {}),
  };
}

/**
 * A layer is not taken stock of, let alone applied, when the command was stopped by the file
 * size limit (its files may be cut short) or the layer is larger than a call may make: walking
 * and applying 100,000 files would hold the workspace half-changed for minutes.
 */
async function overLimitOf(
  exit: number,
  upper: string,
  status: ReturnType<typeof sandboxStatus>,
): Promise<string | undefined> {
  if (status.mode !== 'bubblewrap') return undefined;
  const fileSizeLimit = enforcedFileSizeBytes(status.limits);
  if (exit === FILE_SIZE_EXCEEDED_EXIT)
    return `it was stopped at the file size limit of ${fileSizeLimit} bytes per file (KEEL_COMMAND_MAX_FILE_SIZE)`;
  return layerOversize({
    upper,
    maxBytes: status.limits.layerBytes,
    maxEntries: status.limits.layerEntries,
    fileSizeLimit,
  });
}
