import { z } from 'zod';
import {
  budgetSchema,
  evaluateBudget,
  metaNoteLine,
  type BudgetExhaustion,
  type BudgetSpent,
} from './budget';
import { checkpointDue, checkpointPrompt, DEFAULT_REFLECTION_CADENCE } from './cadence';
import { DEFAULT_PRICE_TABLE, estimateUsd, priceTableSchema, totalTokens, type TokenUsage } from './cost';
import { CadenceEvent, nextCadence } from './dynamic-cadence';
import { compareHypothesis, hypothesisMismatchPrompt, HypothesisVerdict } from './hypothesis';
import type { Reversibility } from '../tools/reversibility';
import type { ToolOutcome } from '../tools/tool-outcome';

/**
 * The four harness principles (seed 003) as one small state machine the workflow drives:
 * hypothesis-first, actionable failure, cadence reflection and cost awareness. Each is switchable
 * per goal; every decision here is pure so the workflow stays glue and replays identically.
 */
export const principleSettingsSchema = z
  .object({
    /** Principle 1: compare results with the call's stated hypothesis. */
    hypothesis: z.boolean().default(true),
    /** Principle 2: append the tool's candidate next actions to failed results. */
    actionableFailure: z.boolean().default(true),
    /** Principle 3: scheduled checkpoints. `every` unset → the worker's default (7); 0 disables. */
    cadence: z
      .object({
        every: z.number().int().nonnegative().optional(),
        trackResponses: z.boolean().default(false),
        enforce: z.boolean().default(false),
        /** Opt-in dynamic cadence: tighter after failures and denials, looser after mutating successes. */
        dynamic: z
          .object({ min: z.number().int().positive(), max: z.number().int().positive() })
          .strict()
          .refine((bounds) => bounds.min <= bounds.max, { message: 'min must not exceed max' })
          .optional(),
      })
      .strict()
      .default({ trackResponses: false, enforce: false }),
    /** Principle 4: budgets (tokens, USD, wall time, tool calls) and the price table. */
    budget: budgetSchema.optional(),
    prices: priceTableSchema.optional(),
  })
  .strict();
export type PrincipleSettings = z.output<typeof principleSettingsSchema>;
export const DEFAULT_PRINCIPLE_SETTINGS: PrincipleSettings = principleSettingsSchema.parse({});

export const principlesStateSchema = z.lazy(() =>
  z.object({
    cadence: z.object({
      /** The cadence chosen at start (input, else worker config, else 7); dynamic cadence moves `current`. */
      base: z.number().int().nonnegative(),
      current: z.number().int().nonnegative(),
      /** Tool calls in the current task, and the count at the last checkpoint (both reset per task). */
      taskToolCalls: z.number().int().nonnegative(),
      lastCheckpointAt: z.number().int().nonnegative(),
      checkpoints: z.number().int().nonnegative(),
      addressed: z.number().int().nonnegative(),
      awaitingAnswer: z.boolean(),
      lastCheckpoint: z.object({ atToolCall: z.number(), at: z.string() }).optional(),
    }),
    hypotheses: z.object({
      given: z.number().int().nonnegative(),
      mismatches: z.number().int().nonnegative(),
    }),
    budgetWarned: z.array(z.string()),
    /** Notes for the model that ride on the next tool result (budget) or precede the next turn. */
    pendingMetaNote: z.string().optional(),
  }),
);
export type PrinciplesState = z.infer<typeof principlesStateSchema>;

export function initialPrinciplesState(cadence: number): PrinciplesState {
  return {
    cadence: {
      base: cadence,
      current: cadence,
      taskToolCalls: 0,
      lastCheckpointAt: 0,
      checkpoints: 0,
      addressed: 0,
      awaitingAnswer: false,
    },
    hypotheses: { given: 0, mismatches: 0 },
    budgetWarned: [],
  };
}

/** Input beats worker config beats the default; 0 from any of them disables checkpoints. */
export function resolveCadence(settings: PrincipleSettings, workerDefault: number | undefined): number {
  return settings.cadence.every ?? workerDefault ?? DEFAULT_REFLECTION_CADENCE;
}

export interface ToolCallObservation {
  input: unknown;
  reversibility: Reversibility;
  summary: string;
  outcome: ToolOutcome;
  /**
   * A human (or a timeout) denied the call and it never ran: it counts as a call, but neither as
   * a failure for the cadence (observeDenial moved it already) nor as evidence for a hypothesis.
   */
  denied?: boolean;
}

export interface Observed {
  /** A reflection prompt for the model before its next turn (hypothesis mismatch). */
  prompt?: string;
  mismatchReason?: string;
}

/** After one executed call: count it for the cadence and judge its hypothesis (principle 1). */
export function observeToolCall(
  state: PrinciplesState,
  settings: PrincipleSettings,
  call: ToolCallObservation,
): Observed {
  state.cadence.taskToolCalls += 1;
  if (call.denied === true) return {};
  moveCadence(state, settings, cadenceEventOf(call));
  if (!settings.hypothesis) return {};
  const hypothesis = hypothesisOf(call.input);
  if (hypothesis === undefined) return {};
  state.hypotheses.given += 1;
  const comparison = compareHypothesis({ hypothesis, outcome: call.outcome });
  if (comparison.verdict !== HypothesisVerdict.Mismatch) return {};
  state.hypotheses.mismatches += 1;
  return {
    prompt: hypothesisMismatchPrompt({ toolSummary: call.summary, hypothesis, reason: comparison.reason }),
    mismatchReason: comparison.reason,
  };
}

/** A denied or timed-out approval tightens a dynamic cadence like a failed call does. */
export function observeDenial(state: PrinciplesState, settings: PrincipleSettings): void {
  moveCadence(state, settings, CadenceEvent.ApprovalDenied);
}

function cadenceEventOf(call: ToolCallObservation): CadenceEvent | undefined {
  if (!call.outcome.ok) return CadenceEvent.ToolFailed;
  if (call.reversibility !== 'read-only') return CadenceEvent.MutatingSucceeded;
  return undefined;
}

function moveCadence(
  state: PrinciplesState,
  settings: PrincipleSettings,
  event: CadenceEvent | undefined,
): void {
  const dynamic = settings.cadence.dynamic;
  if (!dynamic || event === undefined) return;
  state.cadence.current = nextCadence({
    current: state.cadence.current,
    settings: { base: state.cadence.base, ...dynamic },
    event,
  });
}

function hypothesisOf(input: unknown): string | undefined {
  const value = (input as { hypothesis?: unknown } | null)?.hypothesis;
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * Checked only after a turn that used tools, once its calls are counted (seed 000). On firing,
 * the marker becomes the current count and the prompt is returned for the transcript.
 */
export function checkpointAfterTurn(
  state: PrinciplesState,
  options: { taskText: string; now: string },
): string | undefined {
  const cadence = state.cadence;
  const since = checkpointDue(cadence.taskToolCalls, cadence.lastCheckpointAt, cadence.current);
  if (since === undefined) return undefined;
  cadence.lastCheckpointAt = cadence.taskToolCalls;
  cadence.checkpoints += 1;
  cadence.awaitingAnswer = true;
  cadence.lastCheckpoint = { atToolCall: cadence.taskToolCalls, at: options.now };
  return checkpointPrompt({ toolCallsSinceCheckpoint: since, taskText: options.taskText });
}

export interface ReplyJudgement {
  /** Hard enforcement: run none of this reply's tool calls; ask for the checkpoint answer first. */
  holdToolCalls: boolean;
  addressed?: boolean;
}

/**
 * The model's first reply after a checkpoint: counted, and when enforced, required. `addressed`
 * is the guards' verdict (the judge's, less answers that repeat an earlier reply), so the stats
 * count what the guards counted, whether or not response tracking is on.
 */
export function judgeReplyAfterCheckpoint(
  state: PrinciplesState,
  settings: PrincipleSettings,
  addressed: boolean,
): ReplyJudgement {
  const cadence = state.cadence;
  if (!cadence.awaitingAnswer) return { holdToolCalls: false };
  if (addressed) cadence.addressed += 1;
  const tracking = settings.cadence.trackResponses || settings.cadence.enforce;
  if (!tracking) {
    cadence.awaitingAnswer = false;
    return { holdToolCalls: false };
  }
  if (addressed) {
    cadence.awaitingAnswer = false;
    return { holdToolCalls: false, addressed };
  }
  if (!settings.cadence.enforce) cadence.awaitingAnswer = false;
  return { holdToolCalls: settings.cadence.enforce, addressed };
}

/** Calls after an unanswered checkpoint's warning before the next checkpoint (at most the cadence). */
export const CHECKPOINT_RETRY_CALLS = 3;

/**
 * After the guards warned about an unanswered checkpoint: the next one comes after
 * CHECKPOINT_RETRY_CALLS more calls instead of a whole cadence, so a model that will not answer
 * meets enforcement (and its stop) within a few calls rather than two cadences.
 */
export function bringCheckpointForward(state: PrinciplesState): void {
  const cadence = state.cadence;
  if (cadence.current <= CHECKPOINT_RETRY_CALLS) return;
  cadence.lastCheckpointAt = Math.max(0, cadence.taskToolCalls - (cadence.current - CHECKPOINT_RETRY_CALLS));
}

/** A new task inside the goal: both cadence counters reset (seed 000), the cadence to its base. */
export function startTask(state: PrinciplesState, settings: PrincipleSettings): void {
  state.cadence.taskToolCalls = 0;
  state.cadence.lastCheckpointAt = 0;
  state.cadence.awaitingAnswer = false;
  moveCadence(state, settings, CadenceEvent.TaskStarted);
}

export interface CostPicture {
  spent: BudgetSpent;
  usd: number;
  priced: boolean;
}

export function costPicture(options: {
  usage: TokenUsage;
  model: string;
  settings: PrincipleSettings;
  elapsedMs: number;
  toolCalls: number;
}): CostPicture {
  const estimate = estimateUsd({
    usage: options.usage,
    model: options.model,
    prices: options.settings.prices ?? DEFAULT_PRICE_TABLE,
  });
  return {
    usd: estimate.usd,
    priced: estimate.priced,
    spent: {
      tokens: totalTokens(options.usage),
      usd: estimate.usd,
      wallTimeMs: options.elapsedMs,
      toolCalls: options.toolCalls,
    },
  };
}

/**
 * Principle 4: warnings become one meta note for the next tool result (each fraction once); at
 * 100% of any budget the workflow ends the goal, whatever the model says.
 */
export function checkBudget(
  state: PrinciplesState,
  settings: PrincipleSettings,
  spent: BudgetSpent,
): BudgetExhaustion | undefined {
  if (!settings.budget) return undefined;
  const evaluation = evaluateBudget({ budget: settings.budget, spent, alreadyWarned: state.budgetWarned });
  if (evaluation.warnings.length > 0) {
    state.budgetWarned.push(...evaluation.warnings.map((warning) => warning.key));
    const line = metaNoteLine(evaluation.warnings);
    if (line) state.pendingMetaNote = state.pendingMetaNote ? `${state.pendingMetaNote} ${line}` : line;
  }
  return evaluation.exhausted;
}

/** Takes the pending meta note (it rides on exactly one tool result). */
export function takeMetaNote(state: PrinciplesState): string | undefined {
  const note = state.pendingMetaNote;
  state.pendingMetaNote = undefined;
  return note;
}
