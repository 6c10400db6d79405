import { stat, realpath } from 'node:fs/promises';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from '../../workflows/common/failure-types';
import { Reversibility } from '../../workflows/tools/reversibility';
import type { OutcomeUnknownDetails } from '../../workflows/tools/outcome-unknown';
import {
  reversibilityTierSchema,
  type PreparedCall,
  type ToolCatalogue,
} from '../../workflows/tools/tool-catalogue';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import { activityContextOrUndefined, heartbeatIntervalMs } from '../activity-context';
import type { CommandConfinement, TierContext, ToolLogger } from './define-tool';
import { sandboxStatus } from './sandbox/sandbox-status';
import { nothingRanOutcome } from './sandbox/network-isolation-outcome';
import type { ToolContext } from './tool-context';
import { applyHeldLayer, discardHeldLayer } from './layers/layered-command';
import { createIrreversibleJournal, describeUnknownAttempt } from './irreversible-journal';
import { errorText, type RegisteredTool } from './registered-tool';
import type { ToolRegistry } from './tool-registry';
import { capOutcome } from './outcome-cap';
import { parseActivityInput } from '../activity-input';
import { workspaceStateDirectory } from '../hosts/workspace-state-directory';
import { escalation, failure } from './tool-outcomes';
import {
  claimVerdict,
  earlierAttemptSchema,
  type EarlierAttempt,
} from '../../workflows/tools/earlier-attempts';

/** Failure types the tool activities throw; everything else comes back as a ToolOutcome. */
export const ToolActivityFailureType = {
  /** The goal's workspace directory is gone: no tool can run, retrying will not help. */
  WorkspaceMissing: 'WorkspaceMissing',
  /** The activity input itself is malformed: a bug in the caller, not something to retry. */
  InvalidToolActivityInput: 'InvalidToolActivityInput',
  /** The goal's tool patterns match nothing this worker has. */
  UnknownTools: FailureType.UnknownTools,
  /** An irreversible call began but recorded no outcome: reported, never run again. */
  OutcomeUnknown: FailureType.OutcomeUnknown,
  /** The call reached a worker of another host than the goal's workspace host. */
  WrongHost: FailureType.WrongHost,
} as const;
export type ToolActivityFailureType = (typeof ToolActivityFailureType)[keyof typeof ToolActivityFailureType];

export const executeToolInputSchema = z.object({
  toolName: z.string().min(1),
  /** The input as prepared (validated, defaults applied); validated again here. */
  input: z.unknown(),
  workspace: z.string().min(1),
  callId: z.string().min(1),
  /** Stable across retries of this call (workflow id + call id). */
  idempotencyKey: z.string().min(1),
  /** As decided before the call; irreversible calls run at most once. */
  reversibility: reversibilityTierSchema,
  /**
   * Whether a human approved this call before it ran. Absent (inputs scheduled before it existed,
   * or anything a caller forgot): not approved, the safe reading.
   */
  approved: z.boolean().default(false),
  /** The goal's sandbox settings; absent in inputs scheduled before they existed. */
  sandbox: z.object({ network: z.boolean() }).default({ network: false }),
  /** The goal's workspace host: a worker of another host refuses the call (WrongHost). */
  host: z.string().optional(),
  /**
   * An irreversible call's attempts on hosts the goal has since left (earlier-attempts.ts): this
   * worker's journal decides only if every one that may have begun used it.
   */
  earlierAttempts: z.array(earlierAttemptSchema).optional(),
  /**
   * The paths a human's denials in this goal cover (denied-effects.ts), relative to the workspace:
   * a command whose layer would change one is held for a human, whatever its text (issue 44).
   */
  deniedEffects: z.array(z.string()).optional(),
});
export type ExecuteToolInput = z.input<typeof executeToolInputSchema>;

export const prepareToolCallsInputSchema = z.object({
  calls: z.array(z.object({ callId: z.string(), toolName: z.string(), input: z.unknown() })),
  sandbox: z.object({ network: z.boolean() }).default({ network: false }),
});
export type PrepareToolCallsInput = z.input<typeof prepareToolCallsInputSchema>;

export const settleHeldChangesInputSchema = z.object({
  workspace: z.string().min(1),
  /** The held call's idempotency key: its layer is kept under it. */
  idempotencyKey: z.string().min(1),
  /** true: a human approved, apply the layer; false: discard it. */
  keep: z.boolean(),
  host: z.string().optional(),
});
export type SettleHeldChangesInput = z.input<typeof settleHeldChangesInputSchema>;

export const describeToolsInputSchema = z.object({ patterns: z.array(z.string()).optional() });
export type DescribeToolsInput = z.infer<typeof describeToolsInputSchema>;

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
    return input.calls.map((call) => prepare(registry.get(call.toolName), call, tierContext));
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
    const run = (): Promise<ToolOutcome> => runWithHeartbeats(tool, parsed.input, context, activity, beat);
    const outcome =
      journalId === undefined
        ? await run()
        : await runAtMostOnce({ call, summary, run, journal, journalId, activity, beat, signal });

    // A cancelled activity must end as cancelled for Temporal, whatever the tool returned.
    if (activity !== undefined && signal.aborted) throw signal.reason;
    const capped = capOutcome(outcome);
    return stamped(capped);
  }

  /**
   * Runs an irreversible call unless an earlier attempt began it. Attempts are retried by
   * Temporal (see goal/lifecycle/activity-proxies.ts); this decides, from the journal, whether a retry may run:
   * never begun → run; begun and finished → its recorded outcome; begun and cut off → an
   * OutcomeUnknown failure, which is not retried.
   */
  async function runAtMostOnce(attempt: {
    call: z.output<typeof executeToolInputSchema>;
    summary: string;
    run: () => Promise<ToolOutcome>;
    journal: ReturnType<typeof createIrreversibleJournal>;
    journalId: string;
    activity: ReturnType<typeof activityContextOrUndefined>;
    beat: (details?: unknown) => void;
    signal: AbortSignal;
  }): Promise<ToolOutcome> {
    const { call, summary, journal, journalId } = attempt;
    const earlierJournal = journalOfEarlierAttempt(attempt.activity);
    const earlier: EarlierAttempt[] = [
      ...(call.earlierAttempts ?? []),
      // An earlier attempt of this same activity, on this host's queue, named its journal.
      ...(earlierJournal === undefined
        ? []
        : [{ host: call.host ?? hostId ?? 'this host', mayHaveStarted: true, journalId: earlierJournal }]),
    ];
    const verdict = claimVerdict({ ownJournalId: journalId, earlier });
    if (verdict.kind === 'cannot-tell') {
      // This journal cannot prove the call never began; a marker here can still say it did.
      const marker = await journal.peek(call.idempotencyKey);
      if (marker?.earlier?.outcome !== undefined)
        return recordedOutcome(marker.earlier.outcome, marker.earlier.finishedAt);
      if (marker !== undefined)
        throw outcomeUnknown(describeUnknownAttempt(marker.earlier), {
          began: true,
          ...(marker.earlier === undefined ? {} : { startedAt: marker.earlier.startedAt }),
        });
      throw outcomeUnknown(verdict.reason, { began: 'unknown' });
    }
    attempt.beat(); // names this journal on the server before the call can begin
    const claim = await journal.claim({
      idempotencyKey: call.idempotencyKey,
      toolName: call.toolName,
      summary,
    });
    if (!claim.claimed) {
      const earlier = claim.earlier;
      if (earlier?.outcome !== undefined) return recordedOutcome(earlier.outcome, earlier.finishedAt);
      await journal.recordReportedUnknown(claim.markerPath);
      throw outcomeUnknown(describeUnknownAttempt(earlier), {
        began: true,
        ...(earlier === undefined ? {} : { startedAt: earlier.startedAt }),
      });
    }
    let outcome: ToolOutcome;
    try {
      outcome = await attempt.run();
    } catch (error) {
      // Thrown before anything started (no network isolation here): a plain failed call, not unknown.
      const notRun = nothingRanOutcome(error);
      await journal.recordFinish(
        claim.markerPath,
        notRun ? { outcome: notRun } : { error: errorText(error) },
      );
      if (notRun !== undefined) return notRun;
      if (attempt.signal.aborted) throw error; // cancelled: Temporal must see the cancellation
      throw outcomeUnknown(`it began and then failed midway (${errorText(error)})`, {
        began: true,
      });
    }
    await journal.recordFinish(claim.markerPath, { outcome });
    return outcome;
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
    const outcome = capOutcome(await applyHeldLayer(layer));
    return stamped(outcome);
  }

  return { describeTools, prepareToolCalls, executeTool, settleHeldChanges };
}

/** What this worker's sandbox can hold a command to (see TierContext.commands). */
function commandConfinement(): CommandConfinement {
  const status = sandboxStatus();
  if (status.mode === 'unconfined') return 'none';
  return status.layers.available ? 'layers' : 'read-only';
}

/** What an irreversible call's heartbeats carry: its journal, and the tool's own details. */
interface AttemptBeat {
  readonly journalId: string;
  readonly details: unknown;
}

/** The journal an earlier attempt of this activity named in its heartbeats, if any. */
function journalOfEarlierAttempt(
  activity: ReturnType<typeof activityContextOrUndefined>,
): string | undefined {
  const details: unknown = activity?.info.heartbeatDetails;
  if (typeof details !== 'object' || details === null || !('journalId' in details)) return undefined;
  return typeof details.journalId === 'string' ? details.journalId : undefined;
}

function outcomeUnknown(message: string, details: OutcomeUnknownDetails): ApplicationFailure {
  return ApplicationFailure.create({
    message,
    type: ToolActivityFailureType.OutcomeUnknown,
    nonRetryable: true,
    details: [details],
  });
}

/** A finished call's recorded outcome, returned to a retry whose earlier attempt's answer was lost. */
function recordedOutcome(outcome: ToolOutcome, finishedAt: string | undefined): ToolOutcome {
  const note = `(Not run again: an earlier attempt of this irreversible call finished at ${finishedAt ?? 'an unrecorded time'}, and this is its recorded result.)`;
  return { ...outcome, content: `${note}\n${outcome.content}` };
}

function prepare(
  tool: RegisteredTool | undefined,
  call: { callId: string; toolName: string; input: unknown },
  tierContext: TierContext,
): PreparedCall {
  if (tool === undefined) {
    return {
      ok: false,
      callId: call.callId,
      error: `The tool "${call.toolName}" is not available on the worker that checked this call.`,
      candidates: [
        'Use another tool from your list for this step',
        'Explain in your answer which tool is missing',
      ],
    };
  }
  const parsed = tool.parse(call.input);
  if (!parsed.ok) {
    const outcome = invalidInputOutcome(tool, parsed.error);
    return { ok: false, callId: call.callId, error: outcome.content, candidates: outcome.candidates };
  }
  let decision;
  try {
    decision = tool.decideTier(parsed.input, tierContext);
  } catch (error) {
    // A tier function that fails cannot vouch for the call: the strictest tier is the safe answer.
    decision = {
      tier: Reversibility.Irreversible,
      reason: `its tier function failed (${errorText(error)}), so it is treated as irreversible`,
    };
  }
  const fixed = tool.tier.kind === 'fixed' ? tool.tier.tier : undefined;
  return {
    ok: true,
    callId: call.callId,
    input: parsed.input,
    tier: fixed ?? decision.tier,
    ...(fixed === undefined ? { reason: decision.reason } : {}),
    summary: tool.summarize(parsed.input),
  };
}

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

function parseOrFail<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  activity: string,
): z.output<Schema> {
  return parseActivityInput(schema, raw, activity, ToolActivityFailureType.InvalidToolActivityInput);
}

async function existingWorkspace(workspace: string): Promise<string> {
  try {
    if ((await stat(workspace)).isDirectory()) return await realpath(workspace);
  } catch {
    // reported below
  }
  throw ApplicationFailure.nonRetryable(
    `The workspace directory ${workspace} does not exist (or is not a directory); no tool can run.`,
    ToolActivityFailureType.WorkspaceMissing,
  );
}

/** An irreversible call that reached the worker without a human's approval: asked for, not run. */
function notApproved(summary: string): ToolOutcome {
  return escalation({
    content: `Not run: ${summary} is irreversible, and no human approved it.`,
    reason: 'the tool decided this call is irreversible, and it runs only once a human approves it',
  });
}

function notOnThisWorker(toolName: string, registry: ToolRegistry): ToolOutcome {
  return failure({
    content: `The tool "${toolName}" is not registered on the worker that ran this call.`,
    candidates: [
      `Use one of the tools this worker has: ${registry.names().join(', ')}`,
      'Explain in your answer which tool is missing, so the user can deploy it',
    ],
  });
}

function invalidInputOutcome(tool: RegisteredTool, error: string): ToolOutcome {
  const schema = tool.inputJsonSchema;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const fields = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {})
    .map((field) => (required.has(field) ? `${field} (required)` : field))
    .join(', ');
  return failure({
    content: error,
    candidates: [
      `Call ${tool.name} again with the fields named above corrected`,
      `${tool.name} accepts: ${fields}`,
    ],
  });
}

const consoleLogger: ToolLogger = {
  info: (message, attributes) => console.info(message, attributes ?? ''),
  warn: (message, attributes) => console.warn(message, attributes ?? ''),
  error: (message, attributes) => console.error(message, attributes ?? ''),
};

/**
 * A quick read run as a local activity on a worker that is not the goal's host is refused and
 * goes to the host's queue: a normal re-route, so the failure is BENIGN, which the SDK logs at
 * debug level without a stack trace (and leaves out of its failure metrics) instead of a warning
 * with the whole trace per read. On the host's own queue it would be a misrouted call: loud.
 */
function wrongHost(message: string): ApplicationFailure {
  const local = activityContextOrUndefined()?.info.isLocal === true;
  return ApplicationFailure.create({
    message,
    type: ToolActivityFailureType.WrongHost,
    nonRetryable: true,
    ...(local ? { category: ApplicationFailureCategory.BENIGN } : {}),
  });
}
