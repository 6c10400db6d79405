import { z } from 'zod';
import {
  checkpointIgnoredPrompt,
  DEFAULT_CHECKPOINT_ESCALATION_SETTINGS,
  initialCheckpointRecord,
  judgeCheckpointReply,
} from './checkpoint-escalation';
import {
  DEFAULT_HYPOTHESIS_GUARD_SETTINGS,
  hypothesisStreakPrompt,
  observeHypothesis,
} from './hypothesis-guard';
import { callKey, DEFAULT_LOOP_SETTINGS, detectLoop, loopPrompt, remember, resultDigest } from './loop-guard';
import { DEFAULT_STAGNATION_SETTINGS, detectStagnation, stagnationPrompt } from './stagnation-guard';

/**
 * The hard guards against a misbehaving model (issue 10), as one pure state machine the workflow
 * drives after each turn and after each reply to a checkpoint. Each guard first prompts the model
 * directly, naming what it saw; if the behaviour goes on, the goal stops as `stuck` (or, with
 * planning on, the active step fails and the plan backtracks). Every decision carries its numbers,
 * for the ledger. All on by default; each can be tuned or switched off in goal input (`guards`).
 */

const positive = () => z.number().int().positive();

export const guardSettingsSchema = z
  .object({
    /** All guards at once; each can also be switched off on its own. */
    enabled: z.boolean().default(true),
    loop: z
      .object({
        enabled: z.boolean().default(DEFAULT_LOOP_SETTINGS.enabled),
        window: positive().max(100).default(DEFAULT_LOOP_SETTINGS.window),
        warnAt: z.number().int().min(2).default(DEFAULT_LOOP_SETTINGS.warnAt),
        stopAt: z.number().int().min(2).default(DEFAULT_LOOP_SETTINGS.stopAt),
        matchResults: z.boolean().default(DEFAULT_LOOP_SETTINGS.matchResults),
      })
      .strict()
      .refine((loop) => loop.warnAt <= loop.stopAt, { message: 'warnAt must not exceed stopAt' })
      .refine((loop) => loop.stopAt <= loop.window, { message: 'stopAt must fit in the window' })
      .prefault({}),
    stagnation: z
      .object({
        enabled: z.boolean().default(DEFAULT_STAGNATION_SETTINGS.enabled),
        warnAfterCalls: positive().default(DEFAULT_STAGNATION_SETTINGS.warnAfterCalls),
        stopAfterTurns: positive().default(DEFAULT_STAGNATION_SETTINGS.stopAfterTurns),
      })
      .strict()
      .prefault({}),
    checkpoints: z
      .object({
        enabled: z.boolean().default(DEFAULT_CHECKPOINT_ESCALATION_SETTINGS.enabled),
        minResponseRate: z
          .number()
          .min(0)
          .max(1)
          .default(DEFAULT_CHECKPOINT_ESCALATION_SETTINGS.minResponseRate),
        minCheckpoints: positive().default(DEFAULT_CHECKPOINT_ESCALATION_SETTINGS.minCheckpoints),
        stopAfterHeldTurns: positive().default(DEFAULT_CHECKPOINT_ESCALATION_SETTINGS.stopAfterHeldTurns),
      })
      .strict()
      .prefault({}),
    hypotheses: z
      .object({
        enabled: z.boolean().default(DEFAULT_HYPOTHESIS_GUARD_SETTINGS.enabled),
        warnAfter: positive().default(DEFAULT_HYPOTHESIS_GUARD_SETTINGS.warnAfter),
        stopAfter: positive().default(DEFAULT_HYPOTHESIS_GUARD_SETTINGS.stopAfter),
      })
      .strict()
      .refine((guard) => guard.warnAfter <= guard.stopAfter, {
        message: 'warnAfter must not exceed stopAfter',
      })
      .prefault({}),
  })
  .strict();
export type GuardSettings = z.output<typeof guardSettingsSchema>;
export const DEFAULT_GUARD_SETTINGS: GuardSettings = guardSettingsSchema.parse({});

export const guardsStateSchema = z.object({
  /** The loop guard's window: the latest calls, oldest first. */
  recentCalls: z.array(
    z.object({ key: z.string(), result: z.string(), summary: z.string(), atToolCall: z.number().int() }),
  ),
  /** Calls the model was told it repeats; a further repeat of one of these stops the goal. */
  loopWarnedKeys: z.array(z.string()),
  /** The last progress (or the start of the goal, task or plan attempt). */
  progress: z.object({
    atToolCall: z.number().int().nonnegative(),
    atTurn: z.number().int().nonnegative(),
    /** assessment.lastProgressCycle as last seen, to notice a completed plan step. */
    cycleSeen: z.number().int().nonnegative().optional(),
    warned: z.boolean(),
  }),
  hypotheses: z.object({ streak: z.number().int().nonnegative(), warned: z.boolean() }),
  checkpoints: z.object({
    judged: z.number().int().nonnegative(),
    answered: z.number().int().nonnegative(),
    escalated: z.boolean(),
    heldTurns: z.number().int().nonnegative(),
  }),
  /** Every decision taken (warnings, escalations, stops), for the status view. */
  decisions: z.number().int().nonnegative(),
});
export type GuardsState = z.infer<typeof guardsStateSchema>;

export function initialGuardsState(at: {
  toolCalls: number;
  modelTurns: number;
  progressCycle?: number;
}): GuardsState {
  return {
    recentCalls: [],
    loopWarnedKeys: [],
    progress: {
      atToolCall: at.toolCalls,
      atTurn: at.modelTurns,
      ...(at.progressCycle === undefined ? {} : { cycleSeen: at.progressCycle }),
      warned: false,
    },
    hypotheses: { streak: 0, warned: false },
    checkpoints: initialCheckpointRecord(),
    decisions: 0,
  };
}

export const GuardName = {
  Loop: 'loop',
  Stagnation: 'stagnation',
  Checkpoints: 'checkpoints',
  Hypotheses: 'hypotheses',
} as const;
export type GuardName = (typeof GuardName)[keyof typeof GuardName];

export const GuardAction = {
  /** A direct prompt to the model, naming what the guard saw. */
  Warn: 'warn',
  /** Checkpoints enforced from now on: tool calls held back until one is answered. */
  Escalate: 'escalate',
  /** The goal stops as stuck, or with planning on the active step fails and the plan backtracks. */
  Stop: 'stop',
} as const;
export type GuardAction = (typeof GuardAction)[keyof typeof GuardAction];

export interface GuardDecision {
  guard: GuardName;
  action: GuardAction;
  /** One line for the ledger and, on a stop, the goal's reason. */
  summary: string;
  /** The message for the model (warnings and escalations). */
  prompt?: string;
  /** The evidence: counts, limits, the repeated call. */
  data: Record<string, unknown>;
}

/** One call of the finished turn, as the guards see it (executed or answered by the harness). */
export interface GuardedCall {
  toolName: string;
  input: unknown;
  summary: string;
  resultText: string;
  failed: boolean;
  /** The tool's own next actions when it failed. */
  candidates: readonly string[];
  /** The goal's tool-call count for this call. */
  atToolCall: number;
  /** A successful mutating or irreversible call: the world changed. */
  progress: boolean;
  /** true/false when the call stated a hypothesis that did / did not match; undefined without one. */
  hypothesisMismatch: boolean | undefined;
}

export interface TurnFacts {
  calls: readonly GuardedCall[];
  toolCalls: number;
  modelTurns: number;
  /** assessment.lastProgressCycle (a completed plan step moves it too). */
  progressCycle: number | undefined;
  /** "stops the goal as stuck" or "fails the active plan step": said in every prompt. */
  consequence: string;
}

/**
 * After a turn's calls have run and their results are known: loop, hypothesis and stagnation
 * guards, in that order. Returns every decision; the caller acts on the first stop, if any.
 */
export function guardTurn(state: GuardsState, settings: GuardSettings, facts: TurnFacts): GuardDecision[] {
  if (!settings.enabled) return [];
  const decisions: GuardDecision[] = [];
  for (const call of facts.calls) {
    const loop = loopDecision(state, settings, call, facts.consequence);
    if (loop) decisions.push(loop);
    const hypothesis = hypothesisDecision(state, settings, call, facts.consequence);
    if (hypothesis) decisions.push(hypothesis);
  }
  noteProgress(state, facts);
  const stagnation = stagnationDecision(state, settings, facts);
  if (stagnation) decisions.push(stagnation);
  state.decisions += decisions.length;
  return decisions;
}

function loopDecision(
  state: GuardsState,
  settings: GuardSettings,
  call: GuardedCall,
  consequence: string,
): GuardDecision | undefined {
  const remembered = {
    key: callKey(call.toolName, call.input),
    result: resultDigest(call.resultText),
    summary: call.summary,
    atToolCall: call.atToolCall,
  };
  state.recentCalls = remember(state.recentCalls, remembered, settings.loop.window);
  const verdict = detectLoop({
    recent: state.recentCalls,
    settings: settings.loop,
    warnedKeys: state.loopWarnedKeys,
  });
  if (verdict.kind === 'none') return undefined;
  const data = {
    call: verdict.summary,
    repeats: verdict.repeats,
    window: verdict.window,
    sameResult: settings.loop.matchResults,
    failed: call.failed,
    firstAtToolCall: verdict.firstAtToolCall,
    atToolCall: call.atToolCall,
    limit: verdict.kind === 'warn' ? settings.loop.warnAt : settings.loop.stopAt,
  };
  if (verdict.kind === 'stop') {
    return {
      guard: GuardName.Loop,
      action: GuardAction.Stop,
      summary: `loop: ${verdict.summary} made ${verdict.repeats} times in the last ${verdict.window} tool calls${settings.loop.matchResults ? ' with the same result' : ''}, after a warning`,
      data,
    };
  }
  state.loopWarnedKeys = [...state.loopWarnedKeys, verdict.key].slice(-settings.loop.window);
  return {
    guard: GuardName.Loop,
    action: GuardAction.Warn,
    summary: `loop: ${verdict.summary} made ${verdict.repeats} times in the last ${verdict.window} tool calls`,
    prompt: loopPrompt({
      summary: verdict.summary,
      repeats: verdict.repeats,
      window: verdict.window,
      sameResult: settings.loop.matchResults,
      failed: call.failed,
      candidates: call.failed ? call.candidates : [],
      stopAt: settings.loop.stopAt,
      consequence,
    }),
    data,
  };
}

function hypothesisDecision(
  state: GuardsState,
  settings: GuardSettings,
  call: GuardedCall,
  consequence: string,
): GuardDecision | undefined {
  if (call.hypothesisMismatch === undefined) return undefined;
  const observed = observeHypothesis({
    streak: state.hypotheses.streak,
    warned: state.hypotheses.warned,
    mismatch: call.hypothesisMismatch,
    settings: settings.hypotheses,
  });
  state.hypotheses.streak = observed.streak;
  if (observed.streak === 0) state.hypotheses.warned = false;
  const verdict = observed.verdict;
  if (verdict.kind === 'none') return undefined;
  const data = {
    streak: verdict.streak,
    limit: verdict.limit,
    atToolCall: call.atToolCall,
    call: call.summary,
  };
  if (verdict.kind === 'stop') {
    return {
      guard: GuardName.Hypotheses,
      action: GuardAction.Stop,
      summary: `hypotheses: ${verdict.streak} in a row did not match the results, after a warning`,
      data,
    };
  }
  state.hypotheses.warned = true;
  return {
    guard: GuardName.Hypotheses,
    action: GuardAction.Warn,
    summary: `hypotheses: ${verdict.streak} in a row did not match the results`,
    prompt: hypothesisStreakPrompt({
      streak: verdict.streak,
      stopAfter: settings.hypotheses.stopAfter,
      consequence,
    }),
    data,
  };
}

/** Progress resets the stagnation stretch: a successful change, or a plan step completed. */
function noteProgress(state: GuardsState, facts: TurnFacts): void {
  const progressing = facts.calls.filter((call) => call.progress);
  const stepCompleted = facts.progressCycle !== undefined && facts.progressCycle !== state.progress.cycleSeen;
  if (progressing.length === 0 && !stepCompleted) return;
  const last = progressing[progressing.length - 1];
  state.progress = {
    atToolCall: last?.atToolCall ?? facts.toolCalls,
    atTurn: facts.modelTurns,
    ...(facts.progressCycle === undefined ? {} : { cycleSeen: facts.progressCycle }),
    warned: false,
  };
}

function stagnationDecision(
  state: GuardsState,
  settings: GuardSettings,
  facts: TurnFacts,
): GuardDecision | undefined {
  const verdict = detectStagnation(
    {
      toolCalls: facts.toolCalls,
      modelTurns: facts.modelTurns,
      progressAtToolCall: state.progress.atToolCall,
      progressAtTurn: state.progress.atTurn,
      warned: state.progress.warned,
    },
    settings.stagnation,
  );
  if (verdict.kind === 'none') return undefined;
  const data = {
    callsWithoutProgress: verdict.callsWithoutProgress,
    turnsWithoutProgress: verdict.turnsWithoutProgress,
    limit: verdict.limit,
    lastProgressAtToolCall: state.progress.atToolCall,
    atToolCall: facts.toolCalls,
  };
  if (verdict.kind === 'stop') {
    return {
      guard: GuardName.Stagnation,
      action: GuardAction.Stop,
      summary: `stagnation: no progress for ${verdict.turnsWithoutProgress} model turns (${verdict.callsWithoutProgress} tool calls), limit ${verdict.limit}`,
      data,
    };
  }
  state.progress.warned = true;
  return {
    guard: GuardName.Stagnation,
    action: GuardAction.Warn,
    summary: `stagnation: no progress in ${verdict.callsWithoutProgress} tool calls`,
    prompt: stagnationPrompt({
      callsWithoutProgress: verdict.callsWithoutProgress,
      turnsWithoutProgress: verdict.turnsWithoutProgress,
      stopAfterTurns: settings.stagnation.stopAfterTurns,
      consequence: facts.consequence,
    }),
    data,
  };
}

/** The model's first reply after a checkpoint (or after an enforced one it has not answered yet). */
export function guardCheckpointReply(
  state: GuardsState,
  settings: GuardSettings,
  reply: { addressed: boolean; toolCalls: number },
): GuardDecision | undefined {
  if (!settings.enabled) return undefined;
  const verdict = judgeCheckpointReply(state.checkpoints, reply.addressed, settings.checkpoints);
  if (verdict.kind === 'none') return undefined;
  state.decisions += 1;
  if (verdict.kind === 'stop') {
    return {
      guard: GuardName.Checkpoints,
      action: GuardAction.Stop,
      summary: `checkpoints: ${verdict.heldTurns} replies in a row ignored an enforced checkpoint (answered ${verdict.answered} of ${verdict.judged})`,
      data: { ...verdict, limit: settings.checkpoints.stopAfterHeldTurns, atToolCall: reply.toolCalls },
    };
  }
  const escalated = verdict.kind === 'escalate';
  const data = {
    judged: verdict.judged,
    answered: verdict.answered,
    responseRate: verdict.rate,
    minResponseRate: settings.checkpoints.minResponseRate,
    atToolCall: reply.toolCalls,
  };
  return {
    guard: GuardName.Checkpoints,
    action: escalated ? GuardAction.Escalate : GuardAction.Warn,
    summary: escalated
      ? `checkpoints: answered ${verdict.answered} of ${verdict.judged} (below ${settings.checkpoints.minResponseRate}): checkpoints are enforced from now on`
      : `checkpoints: a checkpoint went unanswered (answered ${verdict.answered} of ${verdict.judged})`,
    prompt: checkpointIgnoredPrompt({ judged: verdict.judged, answered: verdict.answered, escalated }),
    data,
  };
}

/** A new task, or a new plan attempt after a backtrack: the stretches start again. */
export function restartGuards(
  state: GuardsState,
  at: { toolCalls: number; modelTurns: number; progressCycle?: number },
): void {
  const fresh = initialGuardsState(at);
  state.recentCalls = fresh.recentCalls;
  state.loopWarnedKeys = fresh.loopWarnedKeys;
  state.progress = fresh.progress;
  state.hypotheses = fresh.hypotheses;
}
