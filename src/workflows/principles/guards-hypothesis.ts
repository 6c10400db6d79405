/**
 * The hypothesis guard, turn by turn: a call whose stated hypothesis did not match its result adds
 * to the streak, which is warned about, then stopped (the verdict: hypothesis-guard.ts). Split
 * from guards.ts.
 */
import { GuardName, stopAfterWarning, warn, warnedAndRead, type GuardDecision } from './guard-decisions';
import type { GuardedCall, GuardsState, TurnContext } from './guards-state';
import { hypothesisStreakPrompt, observeHypothesis } from './hypothesis-guard';

export function hypothesisDecision(
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
