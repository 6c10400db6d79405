import { RUN_COMMAND_DEFAULT_TIMEOUT_SECONDS, type RunCommandInput } from './builtin/run-command-input';
import { suggestCall } from '../../workflows/tools/suggest-call';
import { classifyShellCommand } from '../../workflows/tools/shell-command-classifier';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import { commandEnvironment } from './command-environment';
import { commandOutcome } from './command-outcome';
import { runLayeredCommand } from './layers/layered-command';
import { runSandboxedCommand } from './sandbox/run-sandboxed-command';
import type { WorkspaceAccess } from './sandbox/bubblewrap-arguments';
import { sandboxStatus, type SandboxStatus } from './sandbox/sandbox-status';
import type { ToolContext, ToolImplementation } from './tool-context';
import { escalation } from './tool-outcomes';
import { withWorkspaceLock } from './workspace-access/workspace-lock';
import { diffWorkspaceSnapshots, takeWorkspaceSnapshot, type WorkspaceSnapshot } from './workspace-snapshot';

/** Characters of output the model sees at most: stdout and stderr get half each. */
export const RUN_COMMAND_OUTPUT_LIMIT = 20_000;
const DEFAULT_HEARTBEAT_INTERVAL_MILLISECONDS = 5000;

/** Workspaces where mounting a layer failed once in this process: later calls there skip trying. */
const layersUnavailable = new Map<string, string>();

/**
 * run_command: the kernel holds each call to its tier, whatever its text says.
 * - read-only: bubblewrap with the workspace bound read-only; a write fails (EROFS). With network
 *   on, a command the classifier reads as read-only runs so too, even once approved.
 * - otherwise, on a copy-on-write layer: the command's changes are applied, held for a human or
 *   discarded by what they are (layers/layered-command.ts), never by what the command looked like.
 * - without a layer (no overlayfs here) or without any sandbox, nothing holds a command to a tier,
 *   so it runs only once a human approved it, straight on the workspace.
 */
export const runCommand: ToolImplementation<RunCommandInput> = async (input, context) => {
  const status = sandboxStatus();
  if (status.mode === 'unconfined') {
    if (!context.approved)
      return needsHuman(
        `this worker has no sandbox (${status.reason}), so nothing would hold the command to its tier`,
      );
    return runStraight(input, context, status);
  }
  if (context.reversibility === 'read-only' && !context.approved) return runReadOnly(input, context, status);
  // With network allowed every command waits for a human (its tier is irreversible), yet what it
  // may do to files is still what the classifier read: a command read as read-only runs on a
  // read-only workspace, approved or not. Approving `git status` (or a rule for `git status*`)
  // grants the network, not the writes a hook the model planted in .git/config would make.
  if (context.network && input.changesFiles !== true && classifyShellCommand(input.command).readOnly)
    return runReadOnly(input, context, status);
  const unavailable = layerUnavailability(status, context.workspace);
  if (unavailable === undefined && status.layers.available) {
    const layered = await runLayeredCommand({
      command: input.command,
      workspace: context.workspace,
      callKey: context.callKey ?? context.idempotencyKey ?? `${context.goalId}/${context.callId}`,
      approved: context.approved,
      deniedEffects: context.deniedEffects ?? [],
      bwrap: status.executable,
      unshare: status.layers.unshare,
      env: environmentFor(context),
      network: context.network,
      timeoutMilliseconds: timeoutSecondsOf(input) * 1000,
      outputLimitPerStream: RUN_COMMAND_OUTPUT_LIMIT / 2,
      signal: context.signal,
      heartbeat: () => context.heartbeat(),
      heartbeatIntervalMilliseconds:
        context.heartbeatIntervalMilliseconds ?? DEFAULT_HEARTBEAT_INTERVAL_MILLISECONDS,
      outcomeOf: (result, effects, note) =>
        commandOutcome({
          input,
          result,
          timeoutSeconds: timeoutSecondsOf(input),
          context,
          ...(effects === undefined ? {} : { effects }),
          ...(note === '' ? {} : { note }),
        }),
    });
    if (layered.kind === 'outcome') return layered.outcome;
    layersUnavailable.set(context.workspace, layered.reason);
    if (!context.approved)
      return needsHuman(`${layered.reason}, so nothing would hold the command to its tier`);
  } else if (!context.approved) {
    return needsHuman(
      `${unavailable ?? 'no copy-on-write layer'} on this worker, so nothing would hold the command to its tier`,
    );
  }
  return runStraight(input, context, status);
};

/** Bound read-only: the kernel refuses any write, so a wrongly classified command changes nothing. */
async function runReadOnly(
  input: RunCommandInput,
  context: ToolContext,
  status: SandboxStatus,
): Promise<ToolOutcome> {
  const result = await runSandboxed(input, context, status, 'read-only');
  const refused = /read-only file system/i.test(`${result.stderr.toString()}\n${result.stdout.toString()}`);
  return commandOutcome({
    input,
    result,
    timeoutSeconds: timeoutSecondsOf(input),
    context,
    ...(refused
      ? {
          note: 'The workspace was read-only for this call: it was judged not to change files.',
          firstCandidate: `${suggestCall('run_command', { command: input.command, changesFiles: true })} — run it where it may write (on a copy-on-write layer)`,
        }
      : {}),
  });
}

/** An approved call where no layer can be mounted: straight on the workspace, effects from a walk. */
async function runStraight(
  input: RunCommandInput,
  context: ToolContext,
  status: SandboxStatus,
): Promise<ToolOutcome> {
  return withWorkspaceLock(context.workspace, async () => {
    const before = await snapshotOrUndefined(() => takeWorkspaceSnapshot({ workspace: context.workspace }));
    const result = await runSandboxed(input, context, status, 'read-write');
    const after =
      before === undefined
        ? undefined
        : await snapshotOrUndefined(() =>
            takeWorkspaceSnapshot({ workspace: context.workspace, alsoInclude: Object.keys(before.entries) }),
          );
    const effects = before && after ? diffWorkspaceSnapshots(before, after) : undefined;
    return commandOutcome({
      input,
      result,
      timeoutSeconds: timeoutSecondsOf(input),
      context,
      ...(effects === undefined ? {} : { effects }),
    });
  });
}

function needsHuman(reason: string): ToolOutcome {
  return escalation({
    content: `Not run: ${reason}. A human has to approve it first, and did not.`,
    reason,
  });
}

function layerUnavailability(
  status: Extract<SandboxStatus, { mode: 'bubblewrap' }>,
  workspace: string,
): string | undefined {
  if (!status.layers.available) return `no copy-on-write layer (${status.layers.reason})`;
  return layersUnavailable.get(workspace);
}

function environmentFor(context: ToolContext): Record<string, string> {
  // Every call gets a stable key (irreversible ones get the journal's own), so scripts can use it.
  return commandEnvironment({
    idempotencyKey: context.idempotencyKey ?? `${context.goalId}/${context.callId}`,
  });
}

function timeoutSecondsOf(input: RunCommandInput): number {
  return input.timeoutSeconds ?? RUN_COMMAND_DEFAULT_TIMEOUT_SECONDS;
}

/** The call's command in bubblewrap (or unconfined), straight on the workspace, bound as asked. */
function runSandboxed(
  input: RunCommandInput,
  context: ToolContext,
  status: SandboxStatus,
  workspaceAccess: WorkspaceAccess,
) {
  return runSandboxedCommand({
    command: input.command,
    workspace: context.workspace,
    env: environmentFor(context),
    network: context.network,
    status,
    workspaceAccess,
    timeoutMs: timeoutSecondsOf(input) * 1000,
    outputLimitPerStream: RUN_COMMAND_OUTPUT_LIMIT / 2,
    signal: context.signal,
    heartbeat: () => context.heartbeat(),
    heartbeatIntervalMs: context.heartbeatIntervalMilliseconds ?? DEFAULT_HEARTBEAT_INTERVAL_MILLISECONDS,
  });
}

/** Effect detection is best-effort: a broken snapshot must not turn a finished command into an error. */
async function snapshotOrUndefined(
  take: () => Promise<WorkspaceSnapshot>,
): Promise<WorkspaceSnapshot | undefined> {
  try {
    return await take();
  } catch {
    return undefined;
  }
}
