/**
 * The stagnation and exploration guards, over a finished turn: the stretches since something new
 * and since a new lasting state move on, and a stretch that went on too long is warned about, then
 * stopped (the verdicts: stagnation-guard.ts). Split from guards.ts.
 */
import { GuardName, stopAfterWarning, warn, warnedAndRead, type GuardDecision } from './guard-decisions';
import type { GuardsState, TurnContext, TurnFacts } from './guards-state';
import {
  detectEndlessExploration,
  detectStagnation,
  explorationPrompt,
  stagnationPrompt,
} from './stagnation-guard';

/**
 * Something new resets the stagnation stretch's turn count; a new lasting state (or a completed
 * plan step) also resets exploration and lets a later stagnation warning be given afresh.
 */
export function noteProgress(
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

export function stagnationDecision(state: GuardsState, context: TurnContext): GuardDecision | undefined {
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

export function explorationDecision(
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
