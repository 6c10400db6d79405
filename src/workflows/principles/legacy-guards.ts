import {
  GuardAction,
  GuardName,
  type GuardDecision,
  type GuardSettings,
  type GuardsState,
  type TurnFacts,
} from './guards';
import { hypothesisStreakPrompt, observeHypothesis } from './hypothesis-guard';
import { callKey, detectLoop, loopPrompt, remember, resultDigest } from './loop-guard';
import { CallEffect } from './progress';

/**
 * The guards as they decided before issue 22, for goals whose history was recorded then
 * (PROGRESS_GUARDS_PATCH absent). Replay must take the decisions the history holds — a stop the
 * new guards would take earlier, or a warning they would not give, is a different command — so
 * those goals keep these rules to their end: the loop guard (repeats only, a stop as soon as a
 * warned call repeats), the hypothesis streak, and stagnation as "no successful change for 16
 * turns". New goals never run this file; it can go once no such goal is left running.
 */
export const PROGRESS_GUARDS_PATCH = 'keel-guards-count-progress';

export function legacyGuardTurn(
  state: GuardsState,
  settings: GuardSettings,
  facts: TurnFacts,
): GuardDecision[] {
  if (!settings.enabled) return [];
  const decisions: GuardDecision[] = [];
  for (const call of facts.calls) {
    state.recentCalls = remember(
      state.recentCalls,
      {
        key: callKey(call.toolName, call.input),
        result: resultDigest(call.resultText),
        summary: call.summary,
        atToolCall: call.atToolCall,
      },
      settings.loop.window,
    );
    const loop = detectLoop({
      recent: state.recentCalls,
      settings: settings.loop,
      warnedKeys: state.loopWarnedKeys,
    });
    if (loop.kind === 'stop') {
      decisions.push({
        guard: GuardName.Loop,
        action: GuardAction.Stop,
        summary: `loop: ${loop.summary} made ${loop.repeats} times in the last ${loop.window} tool calls${settings.loop.matchResults ? ' with the same result' : ''}, after a warning`,
        data: {
          call: loop.summary,
          repeats: loop.repeats,
          atToolCall: call.atToolCall,
          limit: settings.loop.stopAt,
        },
      });
    } else if (loop.kind === 'warn') {
      state.loopWarnedKeys = [...state.loopWarnedKeys, loop.key].slice(-settings.loop.window);
      decisions.push({
        guard: GuardName.Loop,
        action: GuardAction.Warn,
        summary: `loop: ${loop.summary} made ${loop.repeats} times in the last ${loop.window} tool calls`,
        prompt: loopPrompt({
          summary: loop.summary,
          repeats: loop.repeats,
          window: loop.window,
          sameResult: settings.loop.matchResults,
          failed: call.failed,
          candidates: call.failed ? call.candidates : [],
          stopAt: settings.loop.stopAt,
          consequence: facts.consequence,
        }),
        data: {
          call: loop.summary,
          repeats: loop.repeats,
          atToolCall: call.atToolCall,
          limit: settings.loop.warnAt,
        },
      });
    }
    if (call.hypothesisMismatch !== undefined) {
      const observed = observeHypothesis({
        streak: state.hypotheses.streak,
        warned: state.hypotheses.warned,
        mismatch: call.hypothesisMismatch,
        settings: settings.hypotheses,
      });
      state.hypotheses.streak = observed.streak;
      if (observed.streak === 0) state.hypotheses.warned = false;
      const verdict = observed.verdict;
      if (verdict.kind === 'stop') {
        decisions.push({
          guard: GuardName.Hypotheses,
          action: GuardAction.Stop,
          summary: `hypotheses: ${verdict.streak} in a row did not match the results, after a warning`,
          data: { streak: verdict.streak, limit: verdict.limit, atToolCall: call.atToolCall },
        });
      } else if (verdict.kind === 'warn') {
        state.hypotheses.warned = true;
        decisions.push({
          guard: GuardName.Hypotheses,
          action: GuardAction.Warn,
          summary: `hypotheses: ${verdict.streak} in a row did not match the results`,
          prompt: hypothesisStreakPrompt({
            streak: verdict.streak,
            stopAfter: settings.hypotheses.stopAfter,
            consequence: facts.consequence,
          }),
          data: { streak: verdict.streak, limit: verdict.limit, atToolCall: call.atToolCall },
        });
      }
    }
  }
  const stagnation = legacyStagnation(state, settings, facts);
  if (stagnation) decisions.push(stagnation);
  state.decisions += decisions.length;
  return decisions;
}

/** Progress was a successful change or a completed plan step; 7 calls without earn a prompt, 16 turns a stop. */
function legacyStagnation(
  state: GuardsState,
  settings: GuardSettings,
  facts: TurnFacts,
): GuardDecision | undefined {
  const changes = facts.calls.filter((call) => call.effect === CallEffect.Change);
  const stepCompleted = facts.progressCycle !== undefined && facts.progressCycle !== state.progress.cycleSeen;
  if (changes.length > 0 || stepCompleted) {
    state.progress = {
      atToolCall: changes[changes.length - 1]?.atToolCall ?? facts.toolCalls,
      atTurn: facts.modelTurns,
      ...(facts.progressCycle === undefined ? {} : { cycleSeen: facts.progressCycle }),
      warned: false,
    };
  }
  const stagnation = settings.stagnation;
  if (!stagnation.enabled) return undefined;
  const calls = Math.max(0, facts.toolCalls - state.progress.atToolCall);
  const turns = Math.max(0, facts.modelTurns - state.progress.atTurn);
  const data = { callsWithoutProgress: calls, turnsWithoutProgress: turns, atToolCall: facts.toolCalls };
  if (state.progress.warned && stagnation.stopAfterTurns > 0 && turns >= stagnation.stopAfterTurns) {
    return {
      guard: GuardName.Stagnation,
      action: GuardAction.Stop,
      summary: `stagnation: no progress for ${turns} model turns (${calls} tool calls), limit ${stagnation.stopAfterTurns}`,
      data: { ...data, limit: stagnation.stopAfterTurns },
    };
  }
  if (!state.progress.warned && stagnation.warnAfterCalls > 0 && calls >= stagnation.warnAfterCalls) {
    state.progress.warned = true;
    return {
      guard: GuardName.Stagnation,
      action: GuardAction.Warn,
      summary: `stagnation: no progress in ${calls} tool calls`,
      prompt: [
        `[No progress] Your last ${calls} tool calls changed nothing: no file was written or edited and no plan step was completed.`,
        'Make the change the task asks for, give your final answer now, or say in plain text what blocks the task.',
        `At ${stagnation.stopAfterTurns} model turns without progress (now ${turns}), keel ${facts.consequence}.`,
      ].join('\n'),
      data: { ...data, limit: stagnation.warnAfterCalls },
    };
  }
  return undefined;
}
