import { z } from 'zod';
import { intentOf, intentText, type CallIntent } from './call-intent';
import { DEFAULT_PARROT_SIMILARITY, rememberReply, repeatsEarlierReply } from './checkpoint-parrot';
import {
  checkpointIgnoredPrompt,
  DEFAULT_CHECKPOINT_ESCALATION_SETTINGS,
  initialCheckpointRecord,
  judgeCheckpointReply,
} from './checkpoint-escalation';
import { DEFAULT_DENIAL_SETTINGS, deniedIntentSchema, denialPrompt, observeDenial } from './denial-guard';
import { deniedIntentOf, turnWithGuardsOff, type RecordedCall } from './denial-record';
import {
  GuardAction,
  GuardName,
  stopAfterWarning,
  warn,
  warnedAndRead,
  type GuardDecision,
} from './guard-decisions';
import {
  DEFAULT_HYPOTHESIS_GUARD_SETTINGS,
  hypothesisStreakPrompt,
  observeHypothesis,
} from './hypothesis-guard';
import {
  cyclePrompt,
  DEFAULT_LOOP_SETTINGS,
  DEFAULT_MAX_CYCLE_LENGTH,
  detectCycle,
  detectLoop,
  loopPrompt,
  remember,
} from './loop-guard';
import { resultFingerprint } from './result-noise';
import { waitDecision } from './wait-guard';
import { declaredWaitSeconds, waitingSchema, waitKey } from './waiting';
import {
  CallEffect,
  initialProgressMemory,
  judgeProgress,
  ProgressKind,
  progressMemorySchema,
} from './progress';
import {
  DEFAULT_STAGNATION_SETTINGS,
  detectEndlessExploration,
  detectStagnation,
  explorationPrompt,
  stagnationPrompt,
} from './stagnation-guard';

/**
 * The hard guards against a misbehaving model (issues 10 and 22), as one pure state machine the
 * workflow drives after each turn and after each reply to a checkpoint. Each guard first prompts
 * the model directly, naming what it saw; only once the model has read that prompt (it had a turn
 * since) and the behaviour goes on does the goal stop as `stuck` (or, with planning on, the active
 * step fails and the plan backtracks). Every decision carries its numbers, for the ledger. All on
 * by default; each can be tuned or switched off in goal input (`guards`).
 */

/** keel's tools whose result depends on nothing but the paths they name (progress.ts: checks). */
const READS_OF_NAMED_PATHS: ReadonlySet<string> = new Set(['read_file', 'list_dir', 'search']);
const positive = () => z.number().int().positive();
const nonnegative = () => z.number().int().nonnegative();

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
        /** Repeated rounds of 2 up to this many calls are cycles (1: cycles off). */
        maxCycleLength: z.number().int().min(1).max(8).default(DEFAULT_MAX_CYCLE_LENGTH),
      })
      .strict()
      .refine((loop) => loop.warnAt <= loop.stopAt, { message: 'warnAt must not exceed stopAt' })
      .refine((loop) => loop.stopAt <= loop.window, { message: 'stopAt must fit in the window' })
      .refine((loop) => 2 * loop.maxCycleLength <= loop.window || loop.maxCycleLength === 1, {
        message: 'two rounds of maxCycleLength calls must fit in the window',
      })
      .prefault({}),
    stagnation: z
      .object({
        enabled: z.boolean().default(DEFAULT_STAGNATION_SETTINGS.enabled),
        window: positive().max(100).default(DEFAULT_STAGNATION_SETTINGS.window),
        warnAfterCalls: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.warnAfterCalls),
        stopAfterCalls: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.stopAfterCalls),
        stopAfterTurns: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.stopAfterTurns),
        exploreWarnAfterCalls: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.exploreWarnAfterCalls),
        exploreStopAfterCalls: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.exploreStopAfterCalls),
      })
      .strict()
      .refine((stagnation) => stagnation.warnAfterCalls <= stagnation.window, {
        message: 'warnAfterCalls must fit in the window',
      })
      .refine((stagnation) => stagnation.stopAfterCalls <= stagnation.window, {
        message: 'stopAfterCalls must fit in the window',
      })
      .prefault({}),
    denials: z
      .object({
        enabled: z.boolean().default(DEFAULT_DENIAL_SETTINGS.enabled),
        stopAfterDenials: z.number().int().min(2).default(DEFAULT_DENIAL_SETTINGS.stopAfterDenials),
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
        /** An answer whose words overlap an earlier reply's this much repeats it (1: only identical). */
        repeatSimilarity: z.number().min(0.5).max(1).default(DEFAULT_PARROT_SIMILARITY),
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

const stretchSchema = z.object({
  atToolCall: z.number().int().nonnegative(),
  atTurn: z.number().int().nonnegative(),
  warned: z.boolean(),
  /** Calls in the stretch that declared a wait: waiting is bounded by time, not counted here (waiting.ts). */
  waitCalls: z.number().int().nonnegative().optional(),
});

export const guardsStateSchema = z.lazy(() =>
  z.object({
    /** The loop guard's window: the latest calls, oldest first. */
    recentCalls: z.array(
      z.object({ key: z.string(), result: z.string(), summary: z.string(), atToolCall: z.number().int() }),
    ),
    /** Calls the model was told it repeats; a further repeat of one of these stops the goal. */
    loopWarnedKeys: z.array(z.string()),
    /** The last time something new came (or the start of the goal, task or plan attempt). */
    progress: stretchSchema.extend({
      /** The progress mark (facts.progressCycle) as last seen, to notice a completed plan step. */
      cycleSeen: z.number().int().nonnegative().optional(),
    }),
    /** The last new lasting state (absent in state from before issue 22: starts at `progress`). */
    exploration: stretchSchema.optional(),
    /** What the task has seen (progress.ts). */
    memory: progressMemorySchema.default(initialProgressMemory),
    /** Whether each of the latest calls brought something new, oldest first. */
    recentProgress: z.array(z.boolean()).default([]),
    /** Every warning given, by what it was about, and the turn it was given in. */
    warnings: z
      .array(
        z.object({
          about: z.string(),
          atTurn: z.number().int().nonnegative(),
          atToolCall: z.number().int().nonnegative().optional(),
        }),
      )
      .default([]),
    /** Intents denied in this goal, with how often. */
    denied: z.array(deniedIntentSchema).default([]),
    /** The model's latest replies, as shapes with their turn (checkpoint-parrot.ts). */
    replies: z.array(z.object({ shape: z.string(), atTurn: z.number().int().nonnegative() })).default([]),
    hypotheses: z.object({ streak: z.number().int().nonnegative(), warned: z.boolean() }),
    /** The call being waited on, and for how long (waiting.ts). */
    waiting: waitingSchema.optional(),
    checkpoints: z.object({
      judged: z.number().int().nonnegative(),
      answered: z.number().int().nonnegative(),
      escalated: z.boolean(),
      heldTurns: z.number().int().nonnegative(),
    }),
    /** Every decision taken (warnings, escalations, stops), for the status view. */
    decisions: z.number().int().nonnegative(),
  }),
);
export type GuardsState = z.output<typeof guardsStateSchema>;

export function initialGuardsState(at: {
  toolCalls: number;
  modelTurns: number;
  progressCycle?: number;
}): GuardsState {
  const stretch = { atToolCall: at.toolCalls, atTurn: at.modelTurns, warned: false };
  return {
    recentCalls: [],
    loopWarnedKeys: [],
    progress: { ...stretch, ...(at.progressCycle === undefined ? {} : { cycleSeen: at.progressCycle }) },
    exploration: { ...stretch },
    memory: initialProgressMemory(),
    recentProgress: [],
    warnings: [],
    denied: [],
    replies: [],
    hypotheses: { streak: 0, warned: false },
    checkpoints: initialCheckpointRecord(),
    decisions: 0,
  };
}

/** One call of the finished turn, as the guards see it (executed, answered by the harness, or denied). */
export interface GuardedCall extends RecordedCall {
  summary: string;
  resultText: string;
  failed: boolean;
  /** The tool's own next actions when it failed. */
  candidates: readonly string[];
  /** The goal's tool-call count for this call. */
  atToolCall: number;
  /** What the workspace holds after a change, when the tool knows (effects.stateDigest). */
  stateAfter?: string;
  /** true/false when the call stated a hypothesis that did / did not match; undefined without one. */
  hypothesisMismatch: boolean | undefined;
}

export interface TurnFacts {
  calls: readonly GuardedCall[];
  toolCalls: number;
  modelTurns: number;
  /** A mark that moves when a plan step is completed (the plan's completed steps); undefined without a plan. */
  progressCycle: number | undefined;
  /** "stops the goal as stuck" or "fails the active plan step": said in every prompt. */
  consequence: string;
}

/** A turn's context for the decisions about one call. */
interface TurnContext {
  settings: GuardSettings;
  modelTurns: number;
  consequence: string;
}

/**
 * After a turn's calls have run (or were denied) and their results are known: per call the loop,
 * cycle, hypothesis and denial guards, then stagnation and exploration over the turn. Returns
 * every decision; the caller acts on the first stop, if any.
 */
export { GuardAction, GuardName, type GuardDecision } from './guard-decisions';

export function guardTurn(state: GuardsState, settings: GuardSettings, facts: TurnFacts): GuardDecision[] {
  if (!settings.enabled) return turnWithGuardsOff(state.denied, facts.calls); // denials still recorded
  const context: TurnContext = { settings, modelTurns: facts.modelTurns, consequence: facts.consequence };
  const decisions: GuardDecision[] = [];
  const add = (decision: GuardDecision | undefined) => {
    if (decision) decisions.push(decision);
  };
  let lastNew: number | undefined;
  let lastChange: number | undefined;
  let waitsSinceChange = 0;
  for (const call of facts.calls) {
    const waits =
      call.effect === CallEffect.Denied ? undefined : declaredWaitSeconds(call.toolName, call.input);
    const key = waitKey(call.toolName, call.input);
    const progress = judgeProgress(state.memory, {
      effect: call.effect,
      key,
      resultText: call.resultText,
      ...(call.stateAfter === undefined ? {} : { stateAfter: call.stateAfter }),
      targets: intentOf(call.toolName, call.input).targets,
      readsNamedPathsOnly: READS_OF_NAMED_PATHS.has(call.toolName),
    });
    if (call.effect === CallEffect.Denied) add(denialDecision(state, context, call));
    else if (waits !== undefined) {
      const brought = progress !== ProgressKind.Nothing; // output that moved begins the wait again
      add(waitDecision(state, context, { ...call, key, declaredSeconds: waits, brought }));
    } else {
      // A repeat with a new lasting state in between is a re-run (tests after an edit), not a loop.
      const since = Math.max(lastChange ?? 0, state.exploration?.atToolCall ?? 0);
      add(loopDecision(state, context, call, since));
      add(cycleDecision(state, context, call));
      add(hypothesisDecision(state, context, call));
    }
    // A wait is bounded by the time it waits (waiting.ts), not by stagnation's count.
    const brought = progress !== ProgressKind.Nothing || waits !== undefined;
    state.recentProgress = [...state.recentProgress, brought].slice(-settings.stagnation.window);
    if (progress !== ProgressKind.Nothing) lastNew = call.atToolCall;
    if (waits !== undefined) waitsSinceChange += 1;
    else if (progress === ProgressKind.NewState) {
      lastChange = call.atToolCall;
      waitsSinceChange = 0;
      delete state.waiting;
    }
  }
  noteProgress(state, facts, lastNew, lastChange);
  if (state.exploration && waitsSinceChange > 0)
    state.exploration.waitCalls = (state.exploration.waitCalls ?? 0) + waitsSinceChange;
  add(stagnationDecision(state, context));
  add(explorationDecision(state, context, facts));
  state.decisions += decisions.length;
  return decisions;
}

function loopDecision(
  state: GuardsState,
  context: TurnContext,
  call: GuardedCall,
  sinceToolCall: number,
): GuardDecision | undefined {
  const { settings } = context;
  const remembered = {
    key: waitKey(call.toolName, call.input),
    result: resultFingerprint(call.resultText),
    summary: call.summary,
    atToolCall: call.atToolCall,
  };
  state.recentCalls = remember(state.recentCalls, remembered, settings.loop.window);
  const verdict = detectLoop({
    recent: state.recentCalls,
    settings: settings.loop,
    warnedKeys: state.loopWarnedKeys,
    sinceToolCall,
    deliveredKeys: state.loopWarnedKeys.filter((key) =>
      warnedAndRead(state, `loop ${key}`, context.modelTurns),
    ),
  });
  if (verdict.kind === 'none') return undefined;
  const about = `loop ${verdict.key}`;
  const data = {
    call: verdict.summary,
    repeats: verdict.repeats,
    window: verdict.window,
    sameResult: verdict.sameResult,
    failed: call.failed,
    firstAtToolCall: verdict.firstAtToolCall,
    atToolCall: call.atToolCall,
    limit: verdict.kind === 'warn' ? settings.loop.warnAt : settings.loop.stopAt,
  };
  if (verdict.kind === 'stop') {
    return stopAfterWarning(state, about, {
      guard: GuardName.Loop,
      summary: `loop: ${verdict.summary} made ${verdict.repeats} times in the last ${verdict.window} tool calls${verdict.sameResult ? ' with the same result' : ''}`,
      data,
    });
  }
  state.loopWarnedKeys = [...state.loopWarnedKeys, verdict.key].slice(-settings.loop.window);
  return warn(state, about, context, {
    guard: GuardName.Loop,
    summary: `loop: ${verdict.summary} made ${verdict.repeats} times in the last ${verdict.window} tool calls`,
    prompt: loopPrompt({
      summary: verdict.summary,
      repeats: verdict.repeats,
      window: verdict.window,
      sameResult: verdict.sameResult,
      failed: call.failed,
      candidates: call.failed ? call.candidates : [],
      stopAt: settings.loop.stopAt,
      consequence: context.consequence,
    }),
    data,
  });
}

/** Rounds of 2 to maxCycleLength calls; runs after loopDecision has remembered the call. */
function cycleDecision(
  state: GuardsState,
  context: TurnContext,
  call: GuardedCall,
): GuardDecision | undefined {
  const { settings } = context;
  if (!settings.loop.enabled || settings.loop.maxCycleLength < 2) return undefined;
  const cycle = detectCycle({
    recent: state.recentCalls,
    maxLength: settings.loop.maxCycleLength,
    matchResults: settings.loop.matchResults,
  });
  if (!cycle) return undefined;
  const about = `cycle ${cycle.signature}`;
  const data = {
    calls: cycle.summaries,
    length: cycle.length,
    atToolCall: call.atToolCall,
    sameResult: settings.loop.matchResults,
  };
  const warning = state.warnings.find((known) => known.about === about);
  if (!warning) {
    return warn(
      state,
      about,
      { modelTurns: context.modelTurns, atToolCall: call.atToolCall },
      {
        guard: GuardName.Cycle,
        summary: `cycle: the same ${cycle.length} calls twice in a row (${cycle.summaries.join(' → ')})`,
        prompt: cyclePrompt({ summaries: cycle.summaries, rounds: 2, consequence: context.consequence }),
        data,
      },
    );
  }
  // A whole round made after the model read the warning: it went round again.
  if (warning.atTurn >= context.modelTurns) return undefined;
  if (call.atToolCall - (warning.atToolCall ?? 0) < cycle.length) return undefined;
  return stopAfterWarning(state, about, {
    guard: GuardName.Cycle,
    summary: `cycle: the same ${cycle.length} calls went round again (${cycle.summaries.join(' → ')})`,
    data,
  });
}

function hypothesisDecision(
  state: GuardsState,
  context: TurnContext,
  call: GuardedCall,
): GuardDecision | undefined {
  if (call.hypothesisMismatch === undefined) return undefined;
  const { settings } = context;
  const observed = observeHypothesis({
    streak: state.hypotheses.streak,
    warned: state.hypotheses.warned && warnedAndRead(state, 'hypotheses', context.modelTurns),
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
  const summary = `hypotheses: ${verdict.streak} in a row did not match the results`;
  if (verdict.kind === 'stop')
    return stopAfterWarning(state, 'hypotheses', { guard: GuardName.Hypotheses, summary, data });
  // Warned already but not read yet (two mismatches in one turn): the first warning stands.
  if (state.hypotheses.warned) return undefined;
  state.hypotheses.warned = true;
  return warn(state, 'hypotheses', context, {
    guard: GuardName.Hypotheses,
    summary,
    prompt: hypothesisStreakPrompt({
      streak: verdict.streak,
      stopAfter: settings.hypotheses.stopAfter,
      consequence: context.consequence,
    }),
    data,
  });
}

function denialDecision(
  state: GuardsState,
  context: TurnContext,
  call: GuardedCall,
): GuardDecision | undefined {
  const { settings } = context;
  const aboutIntent = (intent: CallIntent) => `denial ${intentText(intent)}`;
  const verdict = observeDenial(state.denied, deniedIntentOf(call), settings.denials, (intent) =>
    warnedAndRead(state, aboutIntent(intent), context.modelTurns),
  );
  if (verdict.kind === 'none') return undefined;
  const about = aboutIntent(verdict.intent);
  const data = {
    call: call.summary,
    intent: intentText(verdict.intent),
    denials: verdict.denials,
    limit: settings.denials.stopAfterDenials,
    atToolCall: call.atToolCall,
  };
  if (verdict.kind === 'stop') {
    return stopAfterWarning(state, about, {
      guard: GuardName.Denials,
      summary: `denials: ${intentText(verdict.intent)} asked for again and denied ${verdict.denials} times`,
      data,
    });
  }
  return warn(state, about, context, {
    guard: GuardName.Denials,
    summary: `denials: ${call.summary} was denied`,
    prompt: denialPrompt({
      summary: call.summary,
      intentText: intentText(verdict.intent),
      stopAfterDenials: settings.denials.stopAfterDenials,
      consequence: context.consequence,
    }),
    data,
  });
}

/**
 * Something new resets the stagnation stretch's turn count; a new lasting state (or a completed
 * plan step) also resets exploration and lets a later stagnation warning be given afresh.
 */
function noteProgress(
  state: GuardsState,
  facts: TurnFacts,
  lastNew: number | undefined,
  lastChange: number | undefined,
): void {
  state.exploration ??= {
    atToolCall: state.progress.atToolCall,
    atTurn: state.progress.atTurn,
    warned: false,
  };
  const stepCompleted = facts.progressCycle !== undefined && facts.progressCycle !== state.progress.cycleSeen;
  const cycleSeen = facts.progressCycle === undefined ? {} : { cycleSeen: facts.progressCycle };
  if (lastChange !== undefined || stepCompleted) {
    const at = { atToolCall: lastChange ?? facts.toolCalls, atTurn: facts.modelTurns, warned: false };
    state.exploration = at;
    state.progress = { ...at, ...cycleSeen };
    if (stepCompleted) state.recentProgress = [];
    return;
  }
  if (lastNew !== undefined) {
    state.progress = { ...state.progress, atToolCall: lastNew, atTurn: facts.modelTurns };
  }
}

function stagnationDecision(state: GuardsState, context: TurnContext): GuardDecision | undefined {
  const { settings } = context;
  const verdict = detectStagnation(
    {
      recent: state.recentProgress,
      turnsWithoutNew: Math.max(0, context.modelTurns - state.progress.atTurn),
      warned: state.progress.warned,
      warnedAndRead: state.progress.warned && warnedAndRead(state, 'stagnation', context.modelTurns),
    },
    settings.stagnation,
  );
  if (verdict.kind === 'none') return undefined;
  const data = {
    callsWithoutNew: verdict.callsWithoutNew,
    window: verdict.window,
    turnsWithoutNew: verdict.turnsWithoutNew,
    limit: verdict.limit,
    lastNewAtToolCall: state.progress.atToolCall,
    atToolCall: state.recentCalls[state.recentCalls.length - 1]?.atToolCall ?? state.progress.atToolCall,
  };
  if (verdict.kind === 'stop') {
    return stopAfterWarning(state, 'stagnation', {
      guard: GuardName.Stagnation,
      summary: `stagnation: ${verdict.callsWithoutNew} of the last ${verdict.window} tool calls brought nothing new (${verdict.turnsWithoutNew} model turns since anything new)`,
      data,
    });
  }
  state.progress.warned = true;
  return warn(state, 'stagnation', context, {
    guard: GuardName.Stagnation,
    summary: `stagnation: ${verdict.callsWithoutNew} of the last ${verdict.window} tool calls brought nothing new`,
    prompt: stagnationPrompt({
      callsWithoutNew: verdict.callsWithoutNew,
      window: verdict.window,
      stopAfterCalls: settings.stagnation.stopAfterCalls,
      stopAfterTurns: settings.stagnation.stopAfterTurns,
      stopWindow: settings.stagnation.window,
      consequence: context.consequence,
    }),
    data,
  });
}

function explorationDecision(
  state: GuardsState,
  context: TurnContext,
  facts: TurnFacts,
): GuardDecision | undefined {
  const exploration = state.exploration;
  if (!exploration) return undefined;
  const verdict = detectEndlessExploration(
    {
      callsWithoutChange: Math.max(
        0,
        facts.toolCalls - exploration.atToolCall - (exploration.waitCalls ?? 0),
      ),
      warned: exploration.warned,
      warnedAndRead: exploration.warned && warnedAndRead(state, 'exploration', context.modelTurns),
      stillLearning:
        state.recentProgress.length >= context.settings.stagnation.window &&
        state.recentProgress.every((brought) => brought),
    },
    context.settings.stagnation,
  );
  if (verdict.kind === 'none') return undefined;
  const data = {
    callsWithoutChange: verdict.callsWithoutChange,
    limit: verdict.limit,
    lastChangeAtToolCall: exploration.atToolCall,
    atToolCall: facts.toolCalls,
  };
  const summary = `exploration: ${verdict.callsWithoutChange} tool calls without a change to the workspace`;
  if (verdict.kind === 'stop')
    return stopAfterWarning(state, 'exploration', { guard: GuardName.Exploration, summary, data });
  exploration.warned = true;
  return warn(state, 'exploration', context, {
    guard: GuardName.Exploration,
    summary,
    prompt: explorationPrompt({
      callsWithoutChange: verdict.callsWithoutChange,
      stopAfterCalls: context.settings.stagnation.exploreStopAfterCalls,
      consequence: context.consequence,
    }),
    data,
  });
}

/**
 * Whether a reply answers an open checkpoint: the generous judge said yes (`judged`), and it does
 * not repeat an earlier reply given while nothing moved, nor a fixed text (checkpoint-parrot.ts).
 */
export function answersCheckpoint(
  state: GuardsState,
  settings: GuardSettings,
  reply: { text: string; judged: boolean },
): { addressed: boolean; repeats?: string } {
  // Anything new since (information, a lasting change, or time waited) makes a repeated true
  // answer an answer: a poller says "still building" again, truly.
  const waitedAtTurn = state.waiting?.atTurn ?? 0;
  const changedAtTurn = Math.max(state.progress.atTurn, waitedAtTurn);
  const lastingChangeAtTurn = Math.max((state.exploration ?? state.progress).atTurn, waitedAtTurn);
  const repeats =
    settings.enabled && settings.checkpoints.enabled
      ? repeatsEarlierReply(reply.text, state.replies, {
          similarity: settings.checkpoints.repeatSimilarity,
          changedAtTurn,
          lastingChangeAtTurn,
        })
      : undefined;
  return { addressed: reply.judged && repeats === undefined, ...(repeats === undefined ? {} : { repeats }) };
}

/** Every reply the model gives joins the comparison set (after it was itself compared). */
export function rememberModelReply(state: GuardsState, text: string, atTurn: number): void {
  state.replies = rememberReply(state.replies, text, atTurn);
}

/** The model's first reply after a checkpoint (or after an enforced one it has not answered yet). */
export function guardCheckpointReply(
  state: GuardsState,
  settings: GuardSettings,
  reply: { addressed: boolean; repeated: boolean; toolCalls: number; modelTurns: number },
): GuardDecision | undefined {
  if (!settings.enabled) return undefined;
  const verdict = judgeCheckpointReply(state.checkpoints, reply.addressed, settings.checkpoints);
  if (verdict.kind === 'none') return undefined;
  state.decisions += 1;
  if (verdict.kind === 'stop') {
    return stopAfterWarning(state, 'checkpoints', {
      guard: GuardName.Checkpoints,
      summary: `checkpoints: ${verdict.heldTurns} replies in a row ignored an enforced checkpoint (answered ${verdict.answered} of ${verdict.judged})`,
      data: { ...verdict, limit: settings.checkpoints.stopAfterHeldTurns, atToolCall: reply.toolCalls },
    });
  }
  const escalated = verdict.kind === 'escalate';
  const data = {
    judged: verdict.judged,
    answered: verdict.answered,
    responseRate: verdict.rate,
    minResponseRate: settings.checkpoints.minResponseRate,
    repeated: reply.repeated,
    atToolCall: reply.toolCalls,
  };
  return warn(state, 'checkpoints', reply, {
    guard: GuardName.Checkpoints,
    action: escalated ? GuardAction.Escalate : GuardAction.Warn,
    summary: escalated
      ? `checkpoints: answered ${verdict.answered} of ${verdict.judged} (below ${settings.checkpoints.minResponseRate}): checkpoints are enforced from now on`
      : `checkpoints: a checkpoint went unanswered${reply.repeated ? ' (the answer repeated an earlier reply)' : ''} (answered ${verdict.answered} of ${verdict.judged})`,
    prompt: checkpointIgnoredPrompt({
      judged: verdict.judged,
      answered: verdict.answered,
      escalated,
      repeated: reply.repeated,
    }),
    data,
  });
}

/**
 * A new task, or a new plan attempt after a backtrack: the stretches start again. What the goal
 * has seen and what was denied stay: they are facts about the workspace and the human. So does
 * the checkpoint record (the model's answers are a fact about the model), and with it the
 * checkpoint warning, so a later stop for held replies still names the turn it was warned in.
 */
export function restartGuards(
  state: GuardsState,
  at: { toolCalls: number; modelTurns: number; progressCycle?: number },
): void {
  const fresh = initialGuardsState(at);
  state.recentCalls = fresh.recentCalls;
  state.loopWarnedKeys = fresh.loopWarnedKeys;
  state.progress = fresh.progress;
  state.exploration = fresh.exploration;
  state.recentProgress = fresh.recentProgress;
  state.hypotheses = fresh.hypotheses;
  delete state.waiting;
  state.warnings = state.warnings.filter(
    (warning) => warning.about.startsWith('denial ') || warning.about === 'checkpoints',
  );
}
