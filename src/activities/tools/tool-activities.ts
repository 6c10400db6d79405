import { stat, realpath } from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from '../../workflows/common/failure-types';
import { Reversibility } from '../../workflows/tools/reversibility';
import { suggestCall } from '../../workflows/tools/suggest-call';
import {
  reversibilityTierSchema,
  type PreparedCall,
  type ToolCatalogue,
} from '../../workflows/tools/tool-catalogue';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import { activityContextOrUndefined, heartbeatIntervalMs } from '../activity-context';
import type { TierContext, ToolExecutionContext, ToolLogger } from './define-tool';
import { createIrreversibleJournal, describeEarlierAttempt } from './irreversible-journal';
import { errorText, type RegisteredTool } from './registered-tool';
import type { ToolRegistry } from './tool-registry';
import { failure } from './tool-outcomes';

/** Failure types the tool activities throw; everything else comes back as a ToolOutcome. */
export const ToolActivityFailureType = {
  /** The goal's workspace directory is gone: no tool can run, retrying will not help. */
  WorkspaceMissing: 'WorkspaceMissing',
  /** The activity input itself is malformed: a bug in the caller, not something to retry. */
  InvalidToolActivityInput: 'InvalidToolActivityInput',
  /** The goal's tool patterns match nothing this worker has. */
  UnknownTools: FailureType.UnknownTools,
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
  /** The goal's sandbox settings; absent in inputs scheduled before they existed. */
  sandbox: z.object({ network: z.boolean() }).default({ network: false }),
});
export type ExecuteToolInput = z.input<typeof executeToolInputSchema>;

export const prepareToolCallsInputSchema = z.object({
  calls: z.array(z.object({ callId: z.string(), toolName: z.string(), input: z.unknown() })),
  sandbox: z.object({ network: z.boolean() }).default({ network: false }),
});
export type PrepareToolCallsInput = z.input<typeof prepareToolCallsInputSchema>;

export const describeToolsInputSchema = z.object({ patterns: z.array(z.string()).optional() });
export type DescribeToolsInput = z.infer<typeof describeToolsInputSchema>;

export function createToolActivities(options: {
  registry: ToolRegistry;
  journalDirectory: string;
  now?: () => Date;
}) {
  const { registry } = options;
  const journal = createIrreversibleJournal({ directory: options.journalDirectory, now: options.now });

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
    return input.calls.map((call) => prepare(registry.get(call.toolName), call, input.sandbox));
  }

  async function executeTool(raw: ExecuteToolInput): Promise<ToolOutcome> {
    const call = parseOrFail(executeToolInputSchema, raw, 'executeTool');
    const workspace = await existingWorkspace(call.workspace);
    const tool = registry.get(call.toolName);
    if (tool === undefined) return notOnThisWorker(call.toolName, registry);
    const parsed = tool.parse(call.input);
    if (!parsed.ok) return invalidInputOutcome(tool, parsed.error);

    const activity = activityContextOrUndefined();
    const signal = activity?.cancellationSignal ?? new AbortController().signal;
    // Either side saying irreversible is enough: the journal costs little, a repeat could cost a lot.
    const irreversible =
      call.reversibility === Reversibility.Irreversible ||
      tool.decideTier(parsed.input, call.sandbox).tier === Reversibility.Irreversible;
    const context: ToolExecutionContext = {
      workspace,
      goalId: activity?.info.workflowExecution?.workflowId ?? call.idempotencyKey,
      callId: call.callId,
      idempotencyKey: irreversible ? call.idempotencyKey : undefined,
      reversibility: irreversible ? Reversibility.Irreversible : call.reversibility,
      network: call.sandbox.network,
      signal,
      heartbeat: activity === undefined ? () => {} : (details) => activity.heartbeat(details),
      log: activity === undefined ? consoleLogger : activity.log,
    };
    const run = (): Promise<ToolOutcome> => runWithHeartbeats(tool, parsed.input, context, activity);
    const summary = tool.summarize(parsed.input);
    const outcome = irreversible ? await runAtMostOnce(call, summary, run) : await run();

    // A cancelled activity must end as cancelled for Temporal, whatever the tool returned.
    if (activity !== undefined && signal.aborted) throw signal.reason;
    return outcome;
  }

  async function runAtMostOnce(
    call: z.output<typeof executeToolInputSchema>,
    summary: string,
    run: () => Promise<ToolOutcome>,
  ): Promise<ToolOutcome> {
    const claim = await journal.claim({
      idempotencyKey: call.idempotencyKey,
      toolName: call.toolName,
      summary,
    });
    if (!claim.claimed) {
      return failure({
        content: `${summary} was not run again: it is irreversible and was already attempted. ${describeEarlierAttempt(claim.earlier)}`,
        candidates: [
          `${suggestCall('list_dir', { path: '.' })} — inspect the workspace to see whether it took effect`,
          'Check its effect with a read-only call (e.g. git status, or reading what it writes)',
          'Ask the user whether it took effect before trying anything that would repeat it',
        ],
      });
    }
    try {
      const outcome = await run();
      await journal.recordFinish(claim.markerPath, {
        ok: outcome.ok,
        ...(outcome.facts.exitCode === undefined ? {} : { exitCode: outcome.facts.exitCode }),
      });
      return outcome;
    } catch (error) {
      await journal.recordFinish(claim.markerPath, { error: errorText(error) });
      throw error;
    }
  }

  return { describeTools, prepareToolCalls, executeTool };
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
  context: ToolExecutionContext,
  activity: ReturnType<typeof activityContextOrUndefined>,
): Promise<ToolOutcome> {
  const timer =
    activity === undefined
      ? undefined
      : setInterval(() => activity.heartbeat(), heartbeatIntervalMs(activity));
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
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.nonRetryable(
    `Invalid ${activity} input: ${z.prettifyError(parsed.error)}`,
    ToolActivityFailureType.InvalidToolActivityInput,
  );
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
