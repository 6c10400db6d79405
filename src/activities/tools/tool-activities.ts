/**
 * The tool activities a worker runs: describeTools (a goal's tool catalogue), prepareToolCalls
 * (a turn's calls checked and tiered), executeTool (one call, irreversible ones at most once) and
 * settleHeldChanges (held changes applied or discarded). Their inputs and failures are re-exported
 * from here.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Reversibility } from '../../workflows/tools/reversibility';
import type { PreparedCall, ToolCatalogue } from '../../workflows/tools/tool-catalogue';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import { activityContextOrUndefined, heartbeatIntervalMs } from '../activity-context';
import type { ToolLogger } from './define-tool';
import type { ToolContext } from './tool-context';
import { applyHeldLayer, discardHeldLayer } from './layers/layered-command';
import { createIrreversibleJournal } from './irreversible-journal';
import type { RegisteredTool } from './registered-tool';
import type { ToolRegistry } from './tool-registry';
import { capOutcome } from './outcome-cap';
import { workspaceStateDirectory } from '../hosts/workspace-state-directory';
import { checkpointBeforeCall, noteKeelWriteOn, noteKeelWriteSoon } from '../lineage/turn-checkpoints';
import { existingWorkspace, ToolActivityFailureType, wrongHost } from './tool-activity-failures';
import {
  describeToolsInputSchema,
  executeToolInputSchema,
  parseOrFail,
  prepareToolCallsInputSchema,
  settleHeldChangesInputSchema,
  type DescribeToolsInput,
  type ExecuteToolInput,
  type PrepareToolCallsInput,
  type SettleHeldChangesInput,
} from './tool-activity-inputs';
import { commandConfinement, prepareCall } from './prepare-tool-call';
import { invalidInputOutcome, notApproved, notOnThisWorker } from './refused-call-outcomes';
import { runAtMostOnce, type AttemptBeat } from './run-at-most-once';
import { markCallRunning, type RunningCall } from './running-calls';

export { ToolActivityFailureType } from './tool-activity-failures';
export {
  describeToolsInputSchema,
  executeToolInputSchema,
  prepareToolCallsInputSchema,
  settleHeldChangesInputSchema,
  type DescribeToolsInput,
  type ExecuteToolInput,
  type PrepareToolCallsInput,
  type SettleHeldChangesInput,
} from './tool-activity-inputs';

export function createToolActivities(options: {
  registry: ToolRegistry;
  /** A journal every call shares (a configured store); beside each workspace when omitted. */
  journalDirectory?: string;
  /** This worker's host (KEEL_HOST_ID), stamped on every outcome and checked against the goal's. */
  hostId?: string;
  /** This worker process among its host's (WORKER_INSTANCE_ID), stamped on every outcome. */
  instanceId?: string;
  now?: () => Date;
}) {
  const { registry, hostId, instanceId } = options;
  /** Which host and process ran the call, on its outcome (the goal counts and records them). */
  const stamped = (outcome: ToolOutcome): ToolOutcome => ({
    ...outcome,
    ...(hostId === undefined ? {} : { host: hostId }),
    ...(instanceId === undefined ? {} : { instance: instanceId }),
  });
  const journals = new Map<string, ReturnType<typeof createIrreversibleJournal>>();
  /**
   * The journal of a workspace's irreversible calls: beside the workspace by default, so every
   * process of the host that holds it reads the same one (see hosts/workspace-state-directory.ts).
   */
  const journalFor = (workspace: string) => {
    const directory = options.journalDirectory ?? workspaceStateDirectory(workspace, 'journal');
    let journal = journals.get(directory);
    if (journal === undefined) {
      journal = createIrreversibleJournal({ directory, now: options.now });
      journals.set(directory, journal);
    }
    return journal;
  };

  /** The catalogue a goal records at its start (see tool-catalogue.ts). */
  // Async like every activity, though the answer is at hand: the worker calls it as one.
  // eslint-disable-next-line @typescript-eslint/require-await
  async function describeTools(raw: DescribeToolsInput): Promise<ToolCatalogue> {
    const input = parseOrFail(describeToolsInputSchema, raw, 'describeTools');
    const selection = registry.catalogue(input.patterns);
    if (!selection.ok) {
      throw ApplicationFailure.nonRetryable(selection.error, ToolActivityFailureType.UnknownTools);
    }
    return selection.catalogue;
  }

  /**
   * Validates a turn's calls and decides each one's tier and label before anything runs. Runs as a
   * local activity: its answer is recorded, so a per-call tier (a function only the worker can
   * run) replays exactly as decided, whatever worker code runs later.
   */
  // eslint-disable-next-line @typescript-eslint/require-await
  async function prepareToolCalls(raw: PrepareToolCallsInput): Promise<PreparedCall[]> {
    const input = parseOrFail(prepareToolCallsInputSchema, raw, 'prepareToolCalls');
    const tierContext = { ...input.sandbox, commands: commandConfinement() };
    return input.calls.map((call) => prepareCall(registry.get(call.toolName), call, tierContext));
  }

  async function executeTool(raw: ExecuteToolInput): Promise<ToolOutcome> {
    const call = parseOrFail(executeToolInputSchema, raw, 'executeTool');
    if (call.host !== undefined && hostId !== undefined && call.host !== hostId) {
      // A quick read runs on whichever worker runs the workflow task; only the host's may answer.
      throw wrongHost(`this worker serves host ${hostId}, not the goal's workspace host ${call.host}`);
    }
    const workspace = await existingWorkspace(call.workspace);
    const journal = journalFor(call.workspace);
    const tool = registry.get(call.toolName);
    if (tool === undefined) return stamped(notOnThisWorker(call.toolName, registry));
    const parsed = tool.parse(call.input);
    if (!parsed.ok) return stamped(invalidInputOutcome(tool, parsed.error));

    const activity = activityContextOrUndefined();
    const signal = activity?.cancellationSignal ?? new AbortController().signal;
    // Either side saying irreversible is enough: the journal costs little, a repeat could cost a lot.
    const summary = tool.summarize(parsed.input);
    const irreversible =
      call.reversibility === Reversibility.Irreversible ||
      tool.decideTier(parsed.input, { ...call.sandbox, commands: commandConfinement() }).tier ===
        Reversibility.Irreversible;
    // Whatever the caller said: an irreversible call runs only once a human approved it.
    if (irreversible && !call.approved) return stamped(notApproved(summary));
    // An irreversible call's heartbeats carry its journal's id, so a retry elsewhere can tell.
    const journalId = irreversible ? await journal.id() : undefined;
    const beat = (details?: unknown): void => {
      if (activity === undefined || activity.info.isLocal) return; // a local activity has no heartbeat
      activity.heartbeat(journalId === undefined ? details : ({ journalId, details } satisfies AttemptBeat));
    };
    const context: ToolContext = {
      workspace,
      goalId: activity?.info.workflowExecution?.workflowId ?? call.idempotencyKey,
      callId: call.callId,
      callKey: call.idempotencyKey,
      idempotencyKey: irreversible ? call.idempotencyKey : undefined,
      reversibility: irreversible ? Reversibility.Irreversible : call.reversibility,
      approved: call.approved,
      ...(call.deniedEffects === undefined ? {} : { deniedEffects: call.deniedEffects }),
      network: call.sandbox.network,
      signal,
      heartbeat: beat,
      log: activity === undefined ? consoleLogger : activity.log,
    };
    // A call that may change the files is marked while it runs: a rewind restores only after it (running-calls.ts).
    const unmark =
      (call.reversibility === Reversibility.ReadOnly && !irreversible) ||
      activity === undefined ||
      activity.info.isLocal
        ? undefined
        : await markedOrWarned(workspace, runningCallOf(activity.info, call.callId), context.log);
    let outcome: ToolOutcome;
    try {
      // Before anything of this call's turn changes the files (issue 48: fork and rewind).
      const seen =
        call.checkpoint === undefined
          ? {}
          : await checkpointBeforeCall(workspace, call.checkpoint, context.log);
      const run = (): Promise<ToolOutcome> => runWithHeartbeats(tool, parsed.input, context, activity, beat);
      outcome =
        journalId === undefined
          ? await run()
          : await runAtMostOnce({ call, summary, run, journal, journalId, activity, beat, signal, hostId });
      if (seen.outside !== undefined) outcome = { ...outcome, outsideChanges: seen.outside };
    } finally {
      // What this call left, whether it answered or threw, is keel's own: the next checkpoint
      // tells later changes apart. The marker goes once that note is written: a worker killed
      // before leaves it, and the next checkpoint knows the call's changes went unnoted.
      if (call.checkpoint !== undefined) noteKeelWriteSoon(workspace, context.log, unmark);
      else await unmark?.();
    }

    // A cancelled activity must end as cancelled for Temporal, whatever the tool returned.
    if (activity !== undefined && signal.aborted) throw signal.reason;
    const capped = capOutcome(outcome);
    return stamped(capped);
  }

  /**
   * A call whose changes were held for a human (see Escalation) is settled: approved, its layer is
   * applied and the call's result returned; denied, the layer is discarded (result null).
   * Runs on the workspace's host, where the layer is.
   */
  async function settleHeldChanges(raw: SettleHeldChangesInput): Promise<ToolOutcome | null> {
    const input = parseOrFail(settleHeldChangesInputSchema, raw, 'settleHeldChanges');
    if (input.host !== undefined && hostId !== undefined && input.host !== hostId) {
      throw ApplicationFailure.nonRetryable(
        `this worker serves host ${hostId}, not the goal's workspace host ${input.host}`,
        ToolActivityFailureType.WrongHost,
      );
    }
    const workspace = await existingWorkspace(input.workspace);
    const layer = { workspace, callKey: input.idempotencyKey };
    if (!input.keep) {
      await discardHeldLayer(layer);
      return null;
    }
    const activity = activityContextOrUndefined();
    const unmark =
      activity === undefined
        ? undefined
        : await markedOrWarned(workspace, runningCallOf(activity.info, input.idempotencyKey), activity.log);
    try {
      const applied = stamped(capOutcome(await applyHeldLayer(layer)));
      await noteKeelWriteOn(workspace, activity?.log ?? consoleLogger);
      return applied;
    } finally {
      await unmark?.();
    }
  }

  return { describeTools, prepareToolCalls, executeTool, settleHeldChanges };
}

/**
 * Marks the call running (running-calls.ts); a marker that cannot be written (a full disk) is
 * logged and the call runs anyway, as when its checkpoint cannot be taken: only a rewind at that
 * moment would not wait for it.
 */
async function markedOrWarned(
  workspace: string,
  call: Omit<RunningCall, 'pid' | 'since'>,
  log: ToolLogger,
): Promise<(() => Promise<void>) | undefined> {
  try {
    const unmark = await markCallRunning(workspace, call);
    return () => unmark().catch(() => undefined);
  } catch (error) {
    log.warn(
      `call ${call.callId} not marked running: ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  }
}

/** The marker of a running call: its goal, and when its activity times out at the latest. */
function runningCallOf(
  info: NonNullable<ReturnType<typeof activityContextOrUndefined>>['info'],
  callId: string,
): Omit<RunningCall, 'pid' | 'since'> {
  const limitMs = info.startToCloseTimeoutMs ?? info.scheduleToCloseTimeoutMs ?? DAY_MS;
  return {
    workflowId: info.workflowExecution?.workflowId ?? '',
    callId,
    deadline: new Date(Date.now() + limitMs).toISOString(),
  };
}
const DAY_MS = 24 * 60 * 60 * 1000;

/** Runs the tool, heartbeating while it runs so a slow tool is not taken for a dead worker. */
async function runWithHeartbeats(
  tool: RegisteredTool,
  input: unknown,
  context: ToolContext,
  activity: ReturnType<typeof activityContextOrUndefined>,
  beat: () => void,
): Promise<ToolOutcome> {
  // Local activities (quick reads) have no heartbeat to send.
  const timer =
    activity === undefined || activity.info.isLocal
      ? undefined
      : setInterval(beat, heartbeatIntervalMs(activity));
  try {
    return await tool.execute(input, context);
  } finally {
    if (timer !== undefined) clearInterval(timer);
  }
}

const consoleLogger: ToolLogger = {
  info: (message, attributes) => console.info(message, attributes ?? ''),
  warn: (message, attributes) => console.warn(message, attributes ?? ''),
  error: (message, attributes) => console.error(message, attributes ?? ''),
};
