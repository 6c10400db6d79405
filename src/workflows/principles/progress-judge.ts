import { z } from 'zod';

/**
 * The progress judge (issue 44): what counting cannot see. A model that writes attempt-7.txt,
 * rewrites PLAN.md and a source file in turn, or reads one new irrelevant file after another
 * brings new states and new information at every call, so the counting guards (progress.ts) see
 * progress. After a stretch of calls in which nothing the task needs has moved (no plan step
 * completed, no earlier verdict), one small structured model call — a cheaper model by default —
 * judges whether the stretch advanced the success criteria. A goal without success criteria has no
 * yardstick for such a verdict: it is left to the counting guards and its budget, and its history
 * holds no judge call. Only a confident "no" counts: the
 * first warns the model, a second in a row stops the goal, as the other guards do. A "yes", a
 * doubtful "no" or a call that failed never stops anything.
 *
 * Pure and deterministic (workflow code): the workflow passes in the counts and the verdict.
 */

export const DEFAULT_JUDGE_MODEL = 'claude-haiku-4-5';

export const judgeSettingsSchema = z.lazy(() =>
  z
    .object({
      /** Off: only the counting guards watch (keel run --no-judge). */
      enabled: z.boolean().default(true),
      /** The judge's model: a cheaper one than the goal's by default. */
      model: z.string().min(1).default(DEFAULT_JUDGE_MODEL),
      /** Tool calls in a stretch before it is judged. */
      everyCalls: z.number().int().min(2).max(100).default(4),
      /** A "no" below this confidence counts as no verdict and resets the streak. */
      minConfidence: z.number().gt(0).max(1).default(0.7),
      /** The judge's tokens stay under this share of the goal's: a verdict that would pass it waits. */
      maxShare: z.number().gt(0).max(1).default(0.05),
    })
    .strict(),
);
export type JudgeSettings = z.output<typeof judgeSettingsSchema>;
export const DEFAULT_JUDGE_SETTINGS: JudgeSettings = judgeSettingsSchema.parse({});

/** The judge's memory in the goal's state (carried across continue-as-new). */
export const judgeStateSchema = z.lazy(() =>
  z.object({
    /** The tool-call count where the stretch being watched began. */
    stretchFrom: z.number().int().nonnegative(),
    /** Confident "no" verdicts in a row. */
    noStreak: z.number().int().nonnegative(),
    /** The model turn of the warning, once given (a stop names it). */
    warnedAtTurn: z.number().int().nonnegative().optional(),
    /** The plan's completed steps as last seen: a completed step starts a new stretch. */
    progressMark: z.number().int().nonnegative().optional(),
    /** Verdicts asked for, and every token they cost (for the judge's share of the goal's tokens). */
    verdicts: z.number().int().nonnegative().default(0),
    tokens: z.number().int().nonnegative().default(0),
    /** The latest calls, as the judge's prompt shows them (bounded by the caller). */
    recentCalls: z
      .array(
        z.object({ toolName: z.string(), summary: z.string(), resultText: z.string(), failed: z.boolean() }),
      )
      .default([]),
  }),
);
export type JudgeState = z.output<typeof judgeStateSchema>;

export function initialJudgeState(at: { toolCalls: number; progressMark?: number }): JudgeState {
  return {
    stretchFrom: at.toolCalls,
    noStreak: 0,
    verdicts: 0,
    tokens: 0,
    recentCalls: [],
    ...(at.progressMark === undefined ? {} : { progressMark: at.progressMark }),
  };
}

/** What the judge answers through its forced tool. */
export const judgeVerdictSchema = z.lazy(() =>
  z.object({
    advanced: z.boolean(),
    confidence: z.number().min(0).max(1),
    reason: z.string().default(''),
  }),
);
export type JudgeVerdict = z.output<typeof judgeVerdictSchema>;

export const JUDGE_TOOL_NAME = 'judge_progress';

/** Whether the judge watches this goal at all: on, and with success criteria to judge against. */
export function judgeWatches(settings: JudgeSettings, successCriteria: readonly string[]): boolean {
  return settings.enabled && successCriteria.length > 0;
}

/**
 * Whether the stretch is due for a verdict. A completed plan step is progress the task needs:
 * it starts a new stretch and forgets the streak (the state is updated here).
 */
export function stretchDue(
  state: JudgeState,
  settings: JudgeSettings,
  at: { toolCalls: number; progressMark?: number },
): boolean {
  if (at.progressMark !== undefined && at.progressMark !== state.progressMark) {
    state.progressMark = at.progressMark;
    state.stretchFrom = at.toolCalls;
    state.noStreak = 0;
    return false;
  }
  return settings.enabled && at.toolCalls - state.stretchFrom >= settings.everyCalls;
}

export const JudgeAction = { None: 'none', Reset: 'reset', Warn: 'warn', Stop: 'stop' } as const;
export type JudgeAction = (typeof JudgeAction)[keyof typeof JudgeAction];

export interface JudgeDecision {
  action: JudgeAction;
  /** One line for the ledger and, on a stop, the goal's reason. */
  summary: string;
  /** The note for the model (a warning). */
  prompt?: string;
  data: Record<string, unknown>;
}

/**
 * After a verdict (undefined when the call failed or its answer could not be read): the next
 * stretch begins here, and the streak grows with a confident "no" and resets with anything else.
 * A failed call neither counts nor resets: it says nothing about the model's work.
 */
export function decideOnVerdict(
  state: JudgeState,
  settings: JudgeSettings,
  input: { verdict: JudgeVerdict | undefined; toolCalls: number; modelTurns: number; consequence: string },
): JudgeDecision {
  const stretch = { fromToolCall: state.stretchFrom, atToolCall: input.toolCalls };
  state.stretchFrom = input.toolCalls;
  state.verdicts += 1;
  const { verdict } = input;
  if (verdict === undefined)
    return { action: JudgeAction.None, summary: 'judge gave no verdict', data: stretch };
  const data = {
    ...stretch,
    advanced: verdict.advanced,
    confidence: verdict.confidence,
    reason: verdict.reason,
  };
  const confidentNo = !verdict.advanced && verdict.confidence >= settings.minConfidence;
  if (!confidentNo) {
    state.noStreak = 0;
    const doubt = verdict.advanced ? 'advanced' : `a doubtful no (confidence ${verdict.confidence})`;
    return { action: JudgeAction.Reset, summary: `judge: the last stretch ${doubt}`, data };
  }
  state.noStreak += 1;
  const calls = input.toolCalls - stretch.fromToolCall;
  if (state.noStreak >= 2 && state.warnedAtTurn !== undefined) {
    return {
      action: JudgeAction.Stop,
      summary: `judge: ${calls} more calls advanced no success criterion after a warning at turn ${state.warnedAtTurn} (${verdict.reason})`,
      data: { ...data, streak: state.noStreak, warnedAtTurn: state.warnedAtTurn },
    };
  }
  state.warnedAtTurn = input.modelTurns;
  return {
    action: JudgeAction.Warn,
    summary: `judge: the last ${calls} calls advanced no success criterion (${verdict.reason})`,
    prompt: judgeWarning(calls, verdict.reason, input.consequence),
    data: { ...data, streak: state.noStreak },
  };
}

export function judgeWarning(calls: number, reason: string, consequence: string): string {
  return [
    `[Guard: progress judge] An independent review of your last ${calls} tool calls found that they`,
    `did not advance the goal's success criteria: ${reason || 'no reason given'}.`,
    'New files, rewritten notes or more reading are not progress by themselves.',
    `Work directly toward a criterion now, or give your final answer; if the next stretch is judged the same, keel ${consequence}.`,
  ].join(' ');
}

/** One call of the stretch as the judge reads it: short, so a verdict costs little. */
export interface JudgedCall {
  toolName: string;
  summary: string;
  resultText: string;
  failed: boolean;
}

const EXCERPT_CHARS = 160;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= EXCERPT_CHARS ? flat : `${flat.slice(0, EXCERPT_CHARS)}…`;
}

/** The judge's prompt: the goal, its criteria and the stretch's calls, each with a result excerpt. */
export function judgePrompt(input: {
  goal: string;
  successCriteria: readonly string[];
  calls: readonly JudgedCall[];
}): string {
  const criteria = input.successCriteria.map((line) => `- ${line}`).join('\n');
  const calls = input.calls
    .map(
      (call, index) =>
        `${index + 1}. ${call.toolName}: ${excerpt(call.summary)}${call.failed ? ' [failed]' : ''} → ${excerpt(call.resultText)}`,
    )
    .join('\n');
  return [
    'An agent is working on a goal. Judge whether its latest tool calls advanced the success criteria.',
    'Writing new scratch files, rewriting plans or notes, or reading files unrelated to the goal does not advance them.',
    // The goal in full: it is short, and a scripted model routes requests by its text.
    `## Goal\n${input.goal}`,
    `## Success criteria\n${criteria}`,
    `## Latest calls\n${calls}`,
    'Answer with advanced (true if any call moved a criterion forward), your confidence (0 to 1) and a one-line reason.',
  ].join('\n\n');
}

/** A verdict's tokens before any was asked for: its prompt (about 3 characters a token) and answer. */
export function firstVerdictEstimate(promptChars: number): number {
  return Math.ceil(promptChars / 3) + 150;
}

/**
 * Whether one more verdict keeps the judge's tokens under maxShare of the goal's (its own
 * included): the next verdict is estimated as the average of the earlier ones. A verdict that
 * would pass the share waits until the goal has spent enough; a short goal is never judged at a
 * price out of proportion to it.
 */
export function verdictAffordable(input: {
  state: Pick<JudgeState, 'tokens' | 'verdicts'>;
  settings: Pick<JudgeSettings, 'maxShare'>;
  goalTokens: number;
  promptChars: number;
}): boolean {
  const { state, settings, goalTokens } = input;
  const next = state.verdicts > 0 ? state.tokens / state.verdicts : firstVerdictEstimate(input.promptChars);
  return state.tokens + next <= settings.maxShare * (goalTokens + next);
}

/** The judge's share of the goal's tokens, 0 with none spent. */
export function judgeTokenShare(judgeTokens: number, goalTokens: number): number {
  return goalTokens <= 0 ? 0 : judgeTokens / goalTokens;
}
