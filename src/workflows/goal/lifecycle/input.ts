import { z } from 'zod';
import { guardSettingsSchema } from '../../principles/guards';
import { judgeSettingsSchema } from '../../principles/progress-judge';
import { principleSettingsSchema } from '../../principles/principles';
import { approvalSignaturesSchema, approversSchema } from '../../approvals/approval-authority';
import { approvalRuleSchema, MAX_RULES, ruleSpecSchema } from '../../approvals/approval-rule';
import { rememberedDenialsSchema } from '../tool-calls/remembered-denials';
import { goalNotifySchema } from '../../approvals/notifications';

/** Rules a goal's input may carry. */
export const MAX_INPUT_RULES = 100;
import { hostIdSchema, workspaceSourceSchema } from '../../hosts/host-queues';
import { delegationSettingsSchema } from '../../delegation/delegation';
import { MAX_OUTPUT_TOKENS, modelLimits } from '../../common/model-limits';
import {
  betasSchema,
  extraHeadersSchema,
  modelOptionsProblem,
  toolChoiceSettingSchema,
} from '../model-turn/request-options';

export const ApprovalPolicy = { Auto: 'auto', Ask: 'ask' } as const;
export type ApprovalPolicy = (typeof ApprovalPolicy)[keyof typeof ApprovalPolicy];

export const DEFAULT_MODEL = 'claude-sonnet-4-6';
/**
 * How long a goal waits out an unavailable model API (429, 529, 5xx, lost connections, silent
 * streams) before it fails with ModelUnavailable: long enough for an outage or a busy afternoon.
 */
export const DEFAULT_MODEL_PATIENCE_MS = 6 * 60 * 60_000;
export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/**
 * Prompt caching (see activities/model/cache-breakpoints.ts): on by default, as every turn's
 * request begins with the whole previous one. `ttl: '1h'` keeps the cache across a human's wait
 * (writes cost 2× the input price instead of 1.25×); off only for endpoints that refuse
 * cache_control.
 */
export const promptCacheSettingsSchema = z
  .object({
    enabled: z.boolean().default(true),
    ttl: z.enum(['5m', '1h']).default('5m'),
  })
  .strict();

/**
 * Extended thinking: the model may think for up to `budgetTokens` before it answers (the API's
 * minimum is 1,024 and the budget must stay below max_tokens). Thinking blocks are kept in the
 * transcript with their signatures and sent back as the API requires.
 */
export const thinkingSettingsSchema = z
  .object({ budgetTokens: z.number().int().min(1024, 'thinking.budgetTokens must be at least 1024') })
  .strict();

export const modelSettingsSchema = z
  .object({
    name: z.string().min(1).default(DEFAULT_MODEL),
    maxTokens: z.number().int().positive().max(MAX_OUTPUT_TOKENS).default(4096),
    temperature: z.number().min(0).max(1).optional(),
    thinking: thinkingSettingsSchema.optional(),
    cache: promptCacheSettingsSchema.prefault({}),
    /**
     * Models a turn goes to, in order, when the model stays overloaded or rate-limited for
     * `fallbackAfterMs` (default 2 min); the primary is asked again `fallbackCooldownMs` (default
     * 10 min) after the goal left it (`keel run --fallback-model`; goal/model-turn/fallback.ts).
     */
    fallbacks: z.array(z.string().trim().min(1)).max(5).optional(),
    fallbackAfterMs: z.number().int().positive().optional(),
    fallbackCooldownMs: z.number().int().positive().optional(),
    /**
     * How long transient API trouble is waited out, per model call (`keel run --model-patience`).
     * The wait is Temporal's (durable: a worker restart loses none of it); an answer that begins
     * before it ends still gets its whole time to stream (goal/model-turn/retry-policy.ts).
     */
    patienceMs: z.number().int().positive().default(DEFAULT_MODEL_PATIENCE_MS),
    /**
     * The model's context window in tokens, for a model keel's table does not know (another
     * provider's id behind a gateway) or a smaller window than the model's own; the context budget
     * keeps each request within it less the answer's room (common/context-tokens.ts).
     */
    contextWindowTokens: z.number().int().min(4_096).max(10_000_000).optional(),
    /** tool_choice and parallel tool use, beta features, gateway headers: goal/model-turn/request-options.ts. */
    toolChoice: toolChoiceSettingSchema.optional(),
    disableParallelToolUse: z.boolean().optional(),
    betas: betasSchema.optional(),
    extraHeaders: extraHeadersSchema.optional(),
  })
  .strict()
  .superRefine((model, context) => {
    const problem = modelOptionsProblem(model);
    if (problem) context.addIssue({ code: 'custom', ...problem });
    const limit = modelLimits(model.name)?.maxOutputTokens;
    if (limit !== undefined && model.maxTokens > limit) {
      context.addIssue({
        code: 'custom',
        path: ['maxTokens'],
        message: `${model.name} writes at most ${limit} tokens an answer; maxTokens ${model.maxTokens} is above it`,
      });
    }
    if (model.thinking === undefined) return;
    if (model.thinking.budgetTokens >= model.maxTokens) {
      context.addIssue({
        code: 'custom',
        path: ['thinking', 'budgetTokens'],
        message: `the thinking budget (${model.thinking.budgetTokens}) must be below maxTokens (${model.maxTokens})`,
      });
    }
    if (model.temperature !== undefined && model.temperature !== 1) {
      context.addIssue({
        code: 'custom',
        path: ['temperature'],
        message: 'extended thinking works only with the default temperature; leave temperature unset',
      });
    }
  });

export const goalLimitsSchema = z
  .object({
    maxToolCalls: z.number().int().positive().default(100),
    maxTurns: z.number().int().positive().default(50),
    approvalTimeoutMs: z.number().int().positive().default(DEFAULT_APPROVAL_TIMEOUT_MS),
  })
  .strict();

/**
 * How long activities may take. Defaults suit real use; tests shorten the heartbeat timeout so
 * a killed worker is noticed in seconds rather than half a minute.
 */
export const activityTimingSchema = z
  .object({
    /**
     * How long a model call may wait for its stream's first event (the API reads a long prompt
     * first). It no longer bounds the answer's length: see goal/model-turn/retry-policy.ts.
     */
    modelTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(5 * 60_000),
    toolTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(11 * 60_000),
    heartbeatTimeoutMs: z.number().int().positive().default(30_000),
    /**
     * The longest a model call's stream may go without data before the attempt is ended and
     * retried (its heartbeat timeout); twice heartbeatTimeoutMs when unset. modelTimeoutMs is
     * the wait for the stream's first event; the answer's length is bounded by its max_tokens.
     */
    streamSilenceMs: z.number().int().positive().optional(),
    /**
     * The widest random wait between two attempts of a model call in trouble (full jitter;
     * activities/model/retry-delay.ts): the first request after an outage ends comes within it.
     */
    modelRetryCapMs: z.number().int().positive().default(10_000),
    /**
     * How long a call may wait for a worker of the goal's host before the host counts as
     * unavailable (schedule-to-start), and how often it is asked again while it is.
     */
    hostTimeoutMs: z.number().int().positive().default(60_000),
  })
  .strict();

/** The context budget of goals whose input predates it, and the defaults of new ones. */
export const DEFAULT_CONTEXT_BUDGET = { maxChars: 400_000, keepLatestMessages: 6 } as const;

/**
 * Everything a goal needs, validated at the workflow boundary. Secrets never belong here: the
 * API key lives only in the worker's environment, because workflow input is stored in history.
 */
export const goalInputSchema = z
  .object({
    goal: z.string().trim().min(1, 'goal text must not be empty'),
    successCriteria: z.array(z.string().trim().min(1)).default([]),
    workspace: z.string().startsWith('/', 'workspace must be an absolute path'),
    /**
     * The host whose workers hold the workspace (KEEL_HOST_ID); when omitted, the goal asks every
     * host polling the task queue and binds to one that has it (see docs/several-machines.md).
     */
    host: hostIdSchema.optional(),
    /** Where the workspace can be recreated, so the goal can move to another host (rebind). */
    workspaceSource: workspaceSourceSchema.optional(),
    model: modelSettingsSchema.prefault({}),
    limits: goalLimitsSchema.prefault({}),
    /** Mutating calls: run at once (auto) or wait for a human (ask). Irreversible calls always wait. */
    approvalPolicy: z.enum([ApprovalPolicy.Auto, ApprovalPolicy.Ask]).default(ApprovalPolicy.Auto),
    /** Who may decide approvals, per tier ("*" = anyone); anyone by default. */
    approvers: approversSchema.prefault({}),
    /** When set, every decision must be signed by the approver's key (see docs/approvals-and-security.md). */
    approvalSignatures: approvalSignaturesSchema.optional(),
    /**
     * Rules that decide matching calls at once instead of asking (`keel run --allow/--forbid`,
     * approvals/approval-rule.ts). A goal that requires signed decisions takes rules only as
     * signed changes, never from its input.
     */
    approvalRules: z.array(ruleSpecSchema).max(MAX_INPUT_RULES).optional(),
    /**
     * With payload encryption on, refuse decisions and rule changes that arrived in plain text (a
     * `temporal workflow signal` without `--codec-endpoint` stores its approver and reason readable
     * in history); they are recorded as such either way.
     */
    requireEncryptedDecisions: z.boolean().default(false),
    /**
     * Who else hears that a call waits for a human (`keel run --notify`, approvals/notifications.ts):
     * channels the worker's channels file defines, by name, and email addresses, added to the
     * worker's own channels; and the reminder's lead. Names only: URLs and keys stay on the worker.
     */
    notify: goalNotifySchema.optional(),
    /** After the final answer, how long to wait for a follow-up message before completing. */
    followUpWindowMs: z.number().int().nonnegative().default(0),
    timing: activityTimingSchema.prefault({}),
    /** The four harness principles (hypothesis, actionable failure, cadence, cost); see docs/guards-and-principles.md. */
    principles: principleSettingsSchema.prefault({}),
    /** Hard guards against a misbehaving model (loops, stagnation, ignored checkpoints, wrong hypotheses). */
    guards: guardSettingsSchema.prefault({}),
    /** The progress judge: a cheap model's verdict on stretches counting calls progress (progress-judge.ts). */
    judge: judgeSettingsSchema.prefault({}),
    /** Plans and backtracking (seed 001): off unless asked for, as it costs a model call per plan. */
    planning: z
      .object({
        enabled: z.boolean().default(false),
        maxBacktrackAttempts: z.number().int().min(1).max(10).default(3),
        rollbackOnBacktrack: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    /** Periodic self-assessment every `interval` model turns (0 disables). */
    assessment: z
      .object({
        interval: z.number().int().nonnegative().default(5),
        /** The context budget memory pressure is measured against, in transcript characters. */
        contextBudgetChars: z.number().int().positive().default(600_000),
        keepLatestMessages: z.number().int().min(2).default(6),
        /** When stalled, split the goal into child goal workflows (otherwise only a note to the model). */
        spawnSubGoals: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    /**
     * From the parent goal that delegated this one (goal/tool-calls/delegation.ts): its approval
     * rules in force and the intents its humans refused for good, so a child is never a way around
     * them. Taken only by a child workflow; a goal a client started records them as not applied.
     */
    inherited: z
      .object({
        rules: z.array(approvalRuleSchema).max(MAX_RULES),
        rememberedDenials: rememberedDenialsSchema,
      })
      .strict()
      .optional(),
    /**
     * Workspace checkpoints per turn, for `keel fork` and `keel rewind` (issue 48): on unless turned
     * off; every checkpoint is kept unless retainTurns bounds them to the latest ones, or
     * retainForMs to those taken within that time (with both, either lets one go; the newest stays).
     */
    checkpoints: z
      .object({
        enabled: z.boolean().default(true),
        retainTurns: z.number().int().min(1).optional(),
        retainForMs: z.number().int().min(1).optional(),
      })
      .strict()
      .optional(),
    /** The delegate tool: child goals with a subset of the tools and a slice of the budget (delegation/delegation.ts). */
    delegation: delegationSettingsSchema.prefault({}),
    /** Cross-run task reflection (seed 002), after the output is accepted by a review. */
    reflection: z
      .object({
        enabled: z.boolean().default(false),
        /** A separate (cheaper) model for the review and the reflection; the goal's model otherwise. */
        model: z.string().min(1).optional(),
        review: z.enum(['llm', 'human', 'none']).default('llm'),
        expectedOutput: z.string().optional(),
        /** A custom strategy: a prompt template with {description} {expectedOutput} {output} {prior}. */
        promptTemplate: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    /**
     * The hard bound on what the model is sent (see common/context-budget.ts): over it, the oldest
     * large tool results and inputs are elided. ~400,000 characters is about 100k tokens, and keeps
     * every model request far below Temporal's 2 MB payload limit.
     */
    context: z
      .object({
        maxChars: z.number().int().min(20_000).max(1_500_000).default(DEFAULT_CONTEXT_BUDGET.maxChars),
        keepLatestMessages: z.number().int().min(1).default(DEFAULT_CONTEXT_BUDGET.keepLatestMessages),
      })
      .strict()
      .prefault({}),
    ledger: z
      .object({ maxEvents: z.number().int().min(10).max(10_000).default(500) })
      .strict()
      .prefault({}),
    /** run_command's sandbox: network is off unless asked for, and then every command needs approval. */
    sandbox: z
      .object({ network: z.boolean().default(false) })
      .strict()
      .prefault({}),
    /**
     * The tools this goal may use, as names or globs ("read_file", "github__*"); every tool the
     * worker has when omitted. Matched once, at the goal's start; a glob that matches nothing fails
     * the goal with UnknownTools.
     */
    tools: z.array(z.string().trim().min(1)).min(1).optional(),
    systemPrompt: z.string().optional(),
  })
  .strict()
  .refine((input) => input.approvalSignatures === undefined || (input.approvalRules ?? []).length === 0, {
    path: ['approvalRules'],
    message:
      'a goal that requires signed decisions takes no rules from its input: add signed ones with keel rules <goal> --allow … --sign-key',
  });

export type ModelSettings = z.output<typeof modelSettingsSchema>;
export type GoalInput = z.input<typeof goalInputSchema>;
export type GoalConfig = z.output<typeof goalInputSchema>;

export type GoalInputParse = { ok: true; config: GoalConfig } | { ok: false; message: string };

/** Validates raw goal input; the message names each offending field on one line. */
export function parseGoalInput(raw: unknown): GoalInputParse {
  const result = goalInputSchema.safeParse(raw);
  if (result.success) return { ok: true, config: result.data };
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'input';
    return `${field}: ${issue.message}`;
  });
  return { ok: false, message: `invalid goal input: ${problems.join('; ')}` };
}
