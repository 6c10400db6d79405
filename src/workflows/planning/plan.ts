import { z } from 'zod';
import { MetaStrategy, Strategy, metaStrategyForAttempt } from './strategy';
import { visibleText } from '../tools/call-text';

/**
 * Plans (seed 001): an ordered list of tool calls for a goal, with a pure step lifecycle and the
 * backtracking rules. Every function returns a new plan and never mutates its input, so the
 * workflow can keep old plans as history and record each transition in its ledger.
 */

export const StepStatus = {
  Pending: 'pending',
  Active: 'active',
  Completed: 'completed',
  Failed: 'failed',
  Skipped: 'skipped',
} as const;
export type StepStatus = (typeof StepStatus)[keyof typeof StepStatus];

export const PlanStatus = {
  Active: 'active',
  Completed: 'completed',
  Failed: 'failed',
  Superseded: 'superseded',
} as const;
export type PlanStatus = (typeof PlanStatus)[keyof typeof PlanStatus];

const toolInputSchema = z.lazy(() => z.record(z.string(), z.unknown()));

export const PlanStepSchema = z.lazy(() =>
  z.object({
    /** Position in the proposal, from 0; skipped steps keep theirs so indices match the proposal. */
    index: z.number().int().nonnegative(),
    toolName: z.string().min(1),
    toolInput: toolInputSchema,
    rationale: z.string(),
    status: z.enum(StepStatus),
    /** What should be observably true after the step, e.g. "src/config.ts exists". */
    expectedEffects: z.array(z.string()),
    /** Why the step failed, or why it was skipped. */
    failureReason: z.string().optional(),
  }),
);
export type PlanStep = z.infer<typeof PlanStepSchema>;

export const PlanSchema = z.lazy(() =>
  z.object({
    goalId: z.string().min(1),
    steps: z.array(PlanStepSchema).min(1),
    status: z.enum(PlanStatus),
    /** 0 for the first plan; +1 on each backtrack. */
    attempt: z.number().int().nonnegative(),
    strategy: z.enum(Strategy),
    metaStrategy: z.enum(MetaStrategy),
    /** The model's one-line summary of its approach (001's `strategy: String`). */
    strategySummary: z.string().optional(),
    failureReason: z.string().optional(),
  }),
);
export type Plan = z.infer<typeof PlanSchema>;

/** What the plan activity's model must return (structured output); at least one step. */
export const ProposedPlanSchema = z.lazy(() =>
  z.object({
    strategySummary: z.string().describe('One sentence: the approach this plan takes.'),
    steps: z
      .array(
        z.object({
          toolName: z.string().min(1).describe('One of the available tools.'),
          toolInput: toolInputSchema.describe("The tool's input object."),
          rationale: z.string().describe('Why this step, and why at this point.'),
          expectedEffects: z.array(z.string()).describe('What will be observably true after the step.'),
        }),
      )
      .min(1),
  }),
);
export type ProposedPlan = z.infer<typeof ProposedPlanSchema>;
export type ProposedStep = ProposedPlan['steps'][number];

/** A tool call as compared for repeats: the tool and its input. */
export interface ToolCall {
  toolName: string;
  toolInput: Record<string, unknown>;
}

export type CreatePlanResult = { ok: true; plan: Plan } | { ok: false; reason: string };

/**
 * Builds the plan for an attempt. Leading steps that repeat an already-failed tool call (same
 * tool, deep-equal input) are Skipped: starting a new attempt with the call that just failed
 * would fail the same way. Each skip makes the next step the first, so a run of repeats is skipped;
 * a repeat later in the plan is kept, since earlier steps may have changed what it will meet.
 * The first remaining step is Active; when none remains the result is an error.
 */
export function createPlan(options: {
  goalId: string;
  attempt: number;
  strategy: Strategy;
  metaStrategy: MetaStrategy;
  proposedSteps: readonly ProposedStep[];
  failedToolCalls: readonly ToolCall[];
  strategySummary?: string;
}): CreatePlanResult {
  if (options.proposedSteps.length === 0) return { ok: false, reason: 'the proposed plan has no steps' };
  const failed = new Set(options.failedToolCalls.map(toolCallKey));
  let leading = true;
  const steps = options.proposedSteps.map((proposed, index): PlanStep => {
    const step: PlanStep = {
      index,
      toolName: proposed.toolName,
      toolInput: proposed.toolInput,
      rationale: proposed.rationale,
      status: StepStatus.Pending,
      expectedEffects: [...proposed.expectedEffects],
    };
    if (!leading) return step;
    if (failed.has(toolCallKey(proposed))) {
      return {
        ...step,
        status: StepStatus.Skipped,
        failureReason: 'repeats a tool call that already failed',
      };
    }
    leading = false;
    return { ...step, status: StepStatus.Active };
  });
  if (leading) {
    return { ok: false, reason: `all ${steps.length} proposed steps repeat tool calls that already failed` };
  }
  const plan: Plan = {
    goalId: options.goalId,
    steps,
    status: PlanStatus.Active,
    attempt: options.attempt,
    strategy: options.strategy,
    metaStrategy: options.metaStrategy,
  };
  if (options.strategySummary !== undefined) plan.strategySummary = options.strategySummary;
  return { ok: true, plan };
}

/** The step being worked on, if the plan is active. */
export function activeStep(plan: Plan): PlanStep | undefined {
  return plan.steps.find((step) => step.status === StepStatus.Active);
}

/**
 * Completes the active step and activates the next pending one; with none left the plan is
 * Completed. Without an active step the plan is returned unchanged, so a duplicate report (a
 * retried signal, a second "step done" tool call) is harmless.
 */
export function completeActiveStep(plan: Plan): Plan {
  const active = activeStep(plan);
  if (active === undefined) return plan;
  const next = plan.steps.find((step) => step.index > active.index && step.status === StepStatus.Pending);
  const steps = plan.steps.map((step): PlanStep => {
    if (step.index === active.index) return { ...step, status: StepStatus.Completed };
    if (step.index === next?.index) return { ...step, status: StepStatus.Active };
    return step;
  });
  return { ...plan, steps, status: next === undefined ? PlanStatus.Completed : plan.status };
}

/**
 * Fails the active step: it becomes Failed with the reason, every Pending step Skipped, and the
 * plan Failed (the caller then asks `backtrackDecision`). No active step → unchanged.
 */
export function failActiveStep(plan: Plan, reason: string): Plan {
  const active = activeStep(plan);
  if (active === undefined) return plan;
  const steps = plan.steps.map((step): PlanStep => {
    if (step.index === active.index) return { ...step, status: StepStatus.Failed, failureReason: reason };
    if (step.status === StepStatus.Pending) {
      return { ...step, status: StepStatus.Skipped, failureReason: `step ${active.index + 1} failed` };
    }
    return step;
  });
  return {
    ...plan,
    steps,
    status: PlanStatus.Failed,
    failureReason: `step ${active.index + 1} (${active.toolName}) failed: ${reason}`,
  };
}

/**
 * Marks a plan replaced by a newer one. An active plan's open steps become Skipped; a completed
 * plan is history and stays as it is.
 */
export function supersede(plan: Plan): Plan {
  if (plan.status === PlanStatus.Completed || plan.status === PlanStatus.Superseded) return plan;
  const steps = plan.steps.map((step): PlanStep =>
    step.status === StepStatus.Active || step.status === StepStatus.Pending
      ? { ...step, status: StepStatus.Skipped, failureReason: 'plan superseded' }
      : step,
  );
  return { ...plan, steps, status: PlanStatus.Superseded };
}

/** The tool calls of the plan's failed steps, to keep the next attempt from opening with them. */
export function failedToolCallsOf(plan: Plan): ToolCall[] {
  return plan.steps
    .filter((step) => step.status === StepStatus.Failed)
    .map((step) => ({ toolName: step.toolName, toolInput: step.toolInput }));
}

/** Attempts per goal (001's max_backtrack_attempts): attempts 0, 1 and 2; after 2 fails, give up. */
export const MAX_BACKTRACK_ATTEMPTS = 3;

export type BacktrackDecision =
  { kind: 'replan'; nextAttempt: number; metaStrategy: MetaStrategy } | { kind: 'give-up'; reason: string };

/** After attempt `attempt` failed: plan again with the other meta-strategy, or give up. */
export function backtrackDecision(options: {
  attempt: number;
  maxBacktrackAttempts?: number;
  /** Included in the give-up reason so the goal's failure says what went wrong last. */
  lastFailureReason?: string;
}): BacktrackDecision {
  const limit = options.maxBacktrackAttempts ?? MAX_BACKTRACK_ATTEMPTS;
  const nextAttempt = options.attempt + 1;
  if (nextAttempt < limit) {
    return { kind: 'replan', nextAttempt, metaStrategy: metaStrategyForAttempt(nextAttempt) };
  }
  const last = options.lastFailureReason === undefined ? '' : `; last failure: ${options.lastFailureReason}`;
  return {
    kind: 'give-up',
    reason: `plan attempt ${options.attempt} failed and the limit of ${limit} attempts is reached${last}`,
  };
}

/** What the harness observed while one step was active. */
export interface StepObservations {
  /** Tool calls of this step that failed in a row (reset by a success). */
  consecutiveFailedCalls: number;
  approvalDenied: boolean;
  /** Hypotheses the model stated for this step's calls that the outcome contradicted. */
  hypothesisMismatches: number;
}

export interface StepFailureThresholds {
  consecutiveFailedCalls: number;
  hypothesisMismatches: number;
}

export const STEP_FAILURE_THRESHOLDS: Readonly<StepFailureThresholds> = {
  consecutiveFailedCalls: 3,
  hypothesisMismatches: 2,
};

/**
 * The harness's own verdict on the active step, independent of what the model reports: the reason
 * to fail it, or undefined to let it go on. A denied approval fails it at once, because the step's
 * call is exactly what the human refused.
 */
export function stepFailureFromHarness(
  observations: StepObservations,
  thresholds: StepFailureThresholds = STEP_FAILURE_THRESHOLDS,
): string | undefined {
  if (observations.approvalDenied) return 'the approval for this step was denied';
  if (observations.consecutiveFailedCalls >= thresholds.consecutiveFailedCalls) {
    return `${observations.consecutiveFailedCalls} tool calls of this step failed in a row`;
  }
  if (observations.hypothesisMismatches >= thresholds.hypothesisMismatches) {
    return `${observations.hypothesisMismatches} hypotheses about this step's results were wrong`;
  }
  return undefined;
}

const STATUS_MARKERS: Readonly<Record<StepStatus, string>> = {
  pending: '[ ]',
  active: '[>]',
  completed: '[x]',
  failed: '[!]',
  skipped: '[-]',
};

const INPUT_PREVIEW_CHARS = 80;

/**
 * A compact text listing of the plan, for `keel plan` and for the model's context: one line per
 * step. The steps, their reasons and the failures are the model's or a tool's words, so each is
 * shown on one line with nothing hidden: a newline in a rationale could otherwise print a line
 * that looks like another step (`[x] 3. … done`) to whoever reads `keel plan`, and a terminal
 * escape could rewrite what was printed before it.
 */
export function renderPlan(plan: Plan): string {
  const header = `Plan for ${plan.goalId} — attempt ${plan.attempt}, strategy ${plan.strategy}, ${plan.metaStrategy}: ${plan.status}`;
  const lines = [header];
  if (plan.strategySummary !== undefined) lines.push(`Approach: ${oneLine(plan.strategySummary)}`);
  if (plan.failureReason !== undefined) lines.push(`Failure: ${oneLine(plan.failureReason)}`);
  for (const step of plan.steps) {
    let line = `${STATUS_MARKERS[step.status]} ${step.index + 1}. ${oneLine(step.toolName)} ${preview(step.toolInput)} — ${oneLine(step.rationale)}`;
    if (step.expectedEffects.length > 0) line += ` (expects: ${oneLine(step.expectedEffects.join('; '))})`;
    if (step.failureReason !== undefined) line += ` [${step.status}: ${oneLine(step.failureReason)}]`;
    lines.push(line);
  }
  return lines.join('\n');
}

const oneLine = (text: string): string => visibleText(text, { oneLine: true });

function preview(input: Record<string, unknown>): string {
  const text = oneLine(canonicalJson(input));
  return text.length <= INPUT_PREVIEW_CHARS ? text : `${text.slice(0, INPUT_PREVIEW_CHARS - 1)}…`;
}

/** True when both calls use the same tool with deep-equal input, whatever the key order. */
export function sameToolCall(first: ToolCall, second: ToolCall): boolean {
  return toolCallKey(first) === toolCallKey(second);
}

function toolCallKey(call: ToolCall): string {
  return `${call.toolName}\u0000${canonicalJson(call.toolInput)}`;
}

/** JSON with object keys sorted at every depth, so key order never makes two inputs differ. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'undefined';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return Object.fromEntries(entries.map(([key, inner]) => [key, sortKeys(inner)]));
}
