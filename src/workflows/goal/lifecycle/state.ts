import { z } from 'zod';
import { guardObservationSchema } from './guard-observation';
import { goalInputSchema } from './input';
import { LedgerSchema } from '../../common/ledger';
import { PlanSchema } from '../../planning/plan';
import { budgetSchema } from '../../principles/budget';
import { guardsStateSchema } from '../../principles/guards';
import { judgeStateSchema } from '../../principles/progress-judge';
import { principlesStateSchema } from '../../principles/principles';
import { Strategy } from '../../planning/strategy';
import { toolCatalogueSchema } from '../../tools/tool-catalogue';
import { toolDocumentSchema, toolImageSchema, workspaceEffectsSchema } from '../../tools/tool-outcome';
import { transcriptMessageSchema } from '../../common/transcript';
import { hostBindingSchema } from '../../hosts/host-binding';
import { workspaceLossSchema, workspaceWritesSchema } from '../../hosts/workspace-writes';
import { hostMissingSchema } from '../../hosts/host-loss';
import { carriedModelRequestSchema } from '../model-turn/carried-request';
import { rememberedDenialsSchema } from '../tool-calls/remembered-denials';
import { modelChoiceStateSchema } from '../model-turn/fallback';
import { approvalRulesStateSchema, ruleSpecSchema } from '../../approvals/approval-rule';
import { notificationDefaultsSchema } from '../../approvals/notifications';
import { approvalRecordSchema } from './approval-record';
import { childSpendSchema } from '../oversight/child-budget';
import { delegationStateSchema } from '../../delegation/delegation';
import { childApprovalSchema } from '../views/child-approval-schema';
import { lineageSchema } from '../lineage/lineage';

/** Bump when the shape changes; loadGoalState migrates older versions forward. */
export const GOAL_STATE_SCHEMA_VERSION = 2;
/** Versions loadGoalState still reads: 1 had no tool catalogue (the goal learns it on resume). */
const READABLE_SCHEMA_VERSIONS: readonly unknown[] = [1, GOAL_STATE_SCHEMA_VERSION];

export const GoalStatus = {
  Running: 'running',
  Completed: 'completed',
  Failed: 'failed',
  Limit: 'limit',
  BudgetExhausted: 'budget_exhausted',
  /** The output was rejected by its review (reflection.review: llm or human). */
  Rejected: 'rejected',
  /** A hard guard stopped the goal: the model repeated itself, made no progress or ignored checkpoints. */
  Stuck: 'stuck',
  Cancelled: 'cancelled',
} as const;
export type GoalStatus = (typeof GoalStatus)[keyof typeof GoalStatus];

export const GoalPhase = {
  Thinking: 'thinking',
  RunningTools: 'running-tools',
  AwaitingApproval: 'awaiting-approval',
  AwaitingFollowUp: 'awaiting-follow-up',
  Planning: 'planning',
  Reviewing: 'reviewing',
  /** The workers of the goal's workspace host take no calls (see hosts/host-binding.ts). */
  HostUnavailable: 'host-unavailable',
  Done: 'done',
} as const;
export type GoalPhase = (typeof GoalPhase)[keyof typeof GoalPhase];

export const ToolCallStatus = {
  AwaitingApproval: 'awaiting-approval',
  Ready: 'ready',
  Running: 'running',
  Done: 'done',
} as const;
export type ToolCallStatus = (typeof ToolCallStatus)[keyof typeof ToolCallStatus];

export const reversibilitySchema = z.lazy(() => z.enum(['read-only', 'mutating', 'irreversible']));

export { approvalDecisionSchema, type ApprovalDecision } from './approval-record';

export const ignoredDecisionSchema = z.lazy(() =>
  z.object({
    at: z.string(),
    reason: z.string(),
    message: z.string(),
    callId: z.string().optional(),
    approver: z.string().optional(),
  }),
);
export type IgnoredDecision = z.infer<typeof ignoredDecisionSchema>;

export const toolCallRecordSchema = z.lazy(() =>
  z.object({
    /** keel's own id for the call (goal/tool-calls/call-ids.ts); the model's tool_use id in runs from before. */
    callId: z.string(),
    /** The model's tool_use id, which the tool_result answers, when it differs from callId. */
    toolUseId: z.string().optional(),
    toolName: z.string(),
    input: z.unknown(),
    reversibility: reversibilitySchema,
    /** Why this tier, when the tool decided it per call (shown with the approval request). */
    tierReason: z.string().optional(),
    summary: z.string(),
    status: z.enum(['awaiting-approval', 'ready', 'running', 'done']),
    /**
     * The worker asked for a human after the call ran or before it could (see tools/tool-outcome.ts,
     * Escalation): why, what the model reads if it is denied, and the changes a copy-on-write layer
     * holds until then (approval applies them; absent: approval runs the call again, approved).
     */
    escalation: z
      .object({
        reason: z.string(),
        content: z.string(),
        changes: workspaceEffectsSchema.optional(),
        /** The held changes as a diff, cut short (layers/held-diff.ts): for the approver's eyes. */
        diff: z.string().optional(),
      })
      .optional(),
    approval: approvalRecordSchema.optional(),
    /** What the guards read of the call when it ran (guard-observation.ts). */
    guardObservation: guardObservationSchema.optional(),
    result: z
      .object({
        content: z.string(),
        isError: z.boolean(),
        /** The worker stopped mid-call on an irreversible tool: it may or may not have happened. */
        unknownOutcome: z.boolean().optional(),
        /** Images the tool returned (MCP image contents), sent to the model with the text. */
        images: z.array(toolImageSchema).optional(),
        /** PDFs the tool returned (read_file), sent to the model as document blocks. */
        documents: z.array(toolDocumentSchema).optional(),
        /** The host whose worker ran the call (multi-host: always the goal's workspace host). */
        host: z.string().optional(),
        /** The worker process of that host that ran it (see ToolOutcome.instance). */
        instance: z.string().optional(),
      })
      .optional(),
  }),
);
export type ToolCallRecord = z.infer<typeof toolCallRecordSchema>;

export const tokenUsageSchema = z.lazy(() =>
  z.object({
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    cacheCreationInputTokens: z.number().int().nonnegative(),
    cacheReadInputTokens: z.number().int().nonnegative(),
    /** The part of cacheCreationInputTokens written with the 1-hour TTL (priced higher). */
    cacheCreation1hInputTokens: z.number().int().nonnegative().optional(),
  }),
);
export type TokenUsageTotals = z.infer<typeof tokenUsageSchema>;

export const goalCountersSchema = z.lazy(() =>
  z.object({
    modelTurns: z.number().int().nonnegative(),
    toolCalls: z.number().int().nonnegative(),
    toolCallsByTool: z.record(z.string(), z.number().int().nonnegative()),
    toolCallsByReversibility: z.object({
      'read-only': z.number().int().nonnegative(),
      mutating: z.number().int().nonnegative(),
      irreversible: z.number().int().nonnegative(),
    }),
    approvalsRequested: z.number().int().nonnegative(),
    approvalsGranted: z.number().int().nonnegative(),
    approvalsDenied: z.number().int().nonnegative(),
    approvalsTimedOut: z.number().int().nonnegative(),
    /** Approve/deny signals that changed nothing (malformed, unknown call, unauthorized, bad signature). */
    approvalsIgnored: z.number().int().nonnegative().default(0),
    /**
     * Calls refused without asking because a human denied their intent with doNotAskAgain; not in
     * approvalsRequested or approvalsDenied, which count what humans were asked and decided.
     */
    approvalsAutoDenied: z.number().int().nonnegative().default(0),
    /** Calls an approval rule approved at once (nobody was asked). */
    approvalsByRule: z.number().int().nonnegative().default(0),
    /** Calls a forbid rule refused at once (nobody was asked). */
    refusalsByRule: z.number().int().nonnegative().default(0),
    /** Decisions and rule changes accepted although they arrived in plain text on an encrypted goal. */
    decisionsInPlainText: z.number().int().nonnegative().default(0),
    unknownOutcomes: z.number().int().nonnegative(),
    /** Executed calls by the host that ran them (see hosts/host-queues.ts). */
    toolCallsByHost: z.record(z.string(), z.number().int().nonnegative()).default({}),
    /** Executed calls by the worker process (instance id) that ran them: more than one per host is visible here. */
    toolCallsByInstance: z.record(z.string(), z.number().int().nonnegative()).default({}),
  }),
);
export type GoalCounters = z.infer<typeof goalCountersSchema>;

export const taskRecordSchema = z.lazy(() =>
  z.object({
    index: z.number().int().nonnegative(),
    text: z.string(),
    startedAt: z.string(),
    startedAtTurn: z.number().int().nonnegative(),
  }),
);
export type TaskRecord = z.infer<typeof taskRecordSchema>;

export const planningStateSchema = z.lazy(() =>
  z.object({
    plan: PlanSchema.optional(),
    selection: z
      .object({ strategy: z.enum(Strategy), method: z.string(), scores: z.record(z.string(), z.number()) })
      .optional(),
    failedToolCalls: z.array(
      z.object({ toolName: z.string(), toolInput: z.record(z.string(), z.unknown()) }),
    ),
    failures: z.array(z.object({ attempt: z.number().int(), reason: z.string() })),
    /** What the harness saw during the active step, to fail it when the model will not. */
    step: z.object({
      consecutiveFailedCalls: z.number().int().nonnegative(),
      hypothesisMismatches: z.number().int().nonnegative(),
      approvalDenied: z.boolean(),
    }),
    /** Files as they were before this attempt's first mutating step (rollbackOnBacktrack). */
    snapshotId: z.string().optional(),
  }),
);
export type PlanningState = z.infer<typeof planningStateSchema>;

export const assessmentStateSchema = z.lazy(() =>
  z.object({
    priority: z.number().min(0).max(255),
    count: z.number().int().nonnegative(),
    lastAssessmentCycle: z.number().int().nonnegative(),
    lastProgressCycle: z.number().int().nonnegative().optional(),
    toolStats: z.record(z.string(), z.object({ calls: z.number().int(), successes: z.number().int() })),
    requested: z.boolean(),
    consolidations: z.number().int().nonnegative(),
    /** Workflow ids of child goals spawned by a decomposition. */
    subGoals: z.array(z.string()).default([]),
  }),
);
export type AssessmentState = z.infer<typeof assessmentStateSchema>;

/** Everything the goal knows. One object, so continue-as-new can carry it whole. */
export const goalStateSchema = z.lazy(() =>
  z.object({
    schemaVersion: z.literal(GOAL_STATE_SCHEMA_VERSION),
    /** The tools this goal may use, recorded at its start (see tools/tool-catalogue.ts). */
    tools: z.object({ catalogue: toolCatalogueSchema }).optional(),
    config: goalInputSchema,
    status: z.enum(GoalStatus),
    phase: z.enum(GoalPhase),
    transcript: z.array(transcriptMessageSchema),
    /** The tool calls of the turn in progress; survives continue-as-new during approval waits. */
    currentTurn: z.array(toolCallRecordSchema).optional(),
    tasks: z.array(taskRecordSchema).min(1),
    counters: goalCountersSchema,
    usage: tokenUsageSchema,
    /**
     * What this goal's child goals spent (goal/oversight/child-budget.ts), counted with its own
     * spend by its budget and its cost; absent until a child ends.
     */
    childSpend: childSpendSchema.optional(),
    /** Children started by the delegate tool, and those still running (delegation/delegation.ts); absent until one starts. */
    delegations: delegationStateSchema.optional(),
    /** What running children last said waits for a human in their trees, by child (views/child-approvals.ts). */
    childApprovals: z.record(z.string(), z.array(childApprovalSchema)).optional(),
    /** What this delegated goal last told its parent waits (so it tells only changes). */
    toldParent: z.string().optional(),
    /** The latest ignored approve/deny signal, for the status view and the Web UI. */
    lastIgnoredDecision: ignoredDecisionSchema.optional(),
    /**
     * Intents humans denied and asked not to be asked again for, oldest first, capped
     * (goal/tool-calls/remembered-denials.ts); absent in goals from before and in goals without any.
     */
    rememberedDenials: rememberedDenialsSchema.optional(),
    /** Approval rules in force and revoked (approvals/rule-book.ts); absent until the goal has one. */
    approvalRules: approvalRulesStateSchema.optional(),
    /** Follow-up user messages not yet given to the model. */
    inbox: z.array(z.string()),
    /** Harness notes (checkpoints, mismatches, plan changes) to give the model before its next turn. */
    notes: z.array(z.string()),
    finalText: z.string().optional(),
    /** The text of answers cut off at max_tokens so far, joined to the answer that completes them. */
    cutText: z.string().optional(),
    endReason: z.string().optional(),
    startedAtMs: z.number(),
    continuedAsNew: z.number().int().nonnegative(),
    /** What the worker said at the goal's start (its config is read once, through an activity). */
    workerDefaults: z.object({
      reflectionCadence: z.number().int().nonnegative().optional(),
      ledgerSinks: z.boolean(),
      /** The worker's default budget (KEEL_BUDGET_*); the goal's own limits win per dimension. */
      budget: budgetSchema.optional(),
      /** The worker's approval policy file (KEEL_APPROVAL_RULES), as the goal read it at its start. */
      approvalRules: z.array(ruleSpecSchema).optional(),
      /** The fleet holds a model request limit: model calls go to the model queue (worker/model-queue-worker.ts). */
      sharedModelQueue: z.boolean().optional(),
      /** The channels that tell approvers a call waits, and the reminder (KEEL_NOTIFY_*); absent: none. */
      notifications: notificationDefaultsSchema.optional(),
    }),
    principles: principlesStateSchema,
    /** The hard guards' memory; absent in state carried from a version without guards (made on resume). */
    guards: guardsStateSchema.optional(),
    /** The progress judge's memory; absent until its first turn (progress-judge.ts). */
    judge: judgeStateSchema.optional(),
    ledger: LedgerSchema,
    /** The last ledger sequence handed to the sinks (publishing is at least once, in order). */
    ledgerPublishedThrough: z.number().int().nonnegative(),
    planning: planningStateSchema,
    assessment: assessmentStateSchema,
    reflection: z.object({
      taskIdentity: z.string().optional(),
      notesApplied: z.boolean(),
      review: z.object({ accepted: z.boolean(), by: z.string(), notes: z.string() }).optional(),
      outcome: z.string().optional(),
    }),
    /** Structured LLM outputs parsed, and how many needed the prose fallback (seed 004). */
    structured: z.object({
      calls: z.number().int().nonnegative(),
      rawFallbacks: z.number().int().nonnegative(),
    }),
    lastModel: z.string().optional(),
    /**
     * The tokens the API counted in the last request and its answer, and the transcript they were
     * counted on (common/context-tokens.ts): the context budget's measure in tokens. Absent in goals
     * from before and until the first answer.
     */
    contextMeasure: z
      .object({
        tokens: z.number().int().nonnegative(),
        messages: z.number().int().nonnegative(),
        chars: z.number().int().nonnegative(),
      })
      .optional(),
    /**
     * Goals with fallback models (model.fallbacks): which model takes turns and since when, the
     * turns each model answered, tokens by model (goal/model-turn/fallback.ts). Optional, so states from
     * before load as they are; without fallbacks it is never made.
     */
    models: modelChoiceStateSchema.optional(),
    /** Tool calls keel has named so far (call-<n>, see goal/tool-calls/call-ids.ts); 0 in goals from before. */
    callsNamed: z.number().int().nonnegative().default(0),
    /**
     * The worker process that ran the goal's last tool call: a call run by another one is a ledger
     * event (tool.instance), so the ledger says which instance ran every call.
     */
    lastToolInstance: z.object({ host: z.string().optional(), instance: z.string() }).optional(),
    /** The host holding the workspace, bound at the goal's start; absent in goals from before. */
    host: hostBindingSchema.optional(),
    /** What the goal's calls changed in the workspace since it was last (re)created (workspace-writes.ts). */
    workspaceWrites: workspaceWritesSchema.optional(),
    /** Each recreation of the workspace after the goal moved, with the writes it lost; absent if none. */
    workspaceLoss: z.array(workspaceLossSchema).optional(),
    /** Set while a host watcher says the bound host stopped beating (hosts/host-loss.ts). */
    hostMissing: hostMissingSchema.optional(),
    /**
     * Carried over continue-as-new only: the model request the worker stored after the last turn,
     * which the transcript's first `messageCount` messages still are, so the new run's first turn
     * can extend it instead of sending the transcript whole (goal/model-turn/request.ts).
     */
    lastRequest: carriedModelRequestSchema.optional(),
    /** A fork's or a rewind's origin (goal/lineage/lineage.ts); absent in goals started anew. */
    lineage: lineageSchema.optional(),
  }),
);
export type GoalState = z.infer<typeof goalStateSchema>;

export function emptyCounters(): GoalCounters {
  return {
    modelTurns: 0,
    toolCalls: 0,
    toolCallsByTool: {},
    toolCallsByReversibility: { 'read-only': 0, mutating: 0, irreversible: 0 },
    approvalsRequested: 0,
    approvalsGranted: 0,
    approvalsDenied: 0,
    approvalsTimedOut: 0,
    approvalsIgnored: 0,
    approvalsAutoDenied: 0,
    approvalsByRule: 0,
    refusalsByRule: 0,
    decisionsInPlainText: 0,
    unknownOutcomes: 0,
    toolCallsByHost: {},
    toolCallsByInstance: {},
  };
}

export function emptyUsage(): TokenUsageTotals {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: 0,
    cacheCreation1hInputTokens: 0,
  };
}

export type StateLoad = { ok: true; state: GoalState } | { ok: false; message: string };

/** Validates carried state (continue-as-new, or a resumed run) and migrates older versions. */
export function loadGoalState(raw: unknown): StateLoad {
  const version = (raw as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (!READABLE_SCHEMA_VERSIONS.includes(version)) {
    return { ok: false, message: `unsupported goal state schemaVersion ${String(version)}` };
  }
  const result = goalStateSchema.safeParse({ ...(raw as object), schemaVersion: GOAL_STATE_SCHEMA_VERSION });
  if (result.success) return { ok: true, state: result.data };
  return { ok: false, message: `invalid goal state: ${result.error.issues[0]?.message ?? 'unknown'}` };
}
