/**
 * The denial guard, turn by turn: a denied call is recorded by its intent, warned about, and an
 * intent asked for again and denied too often stops (the verdict: denial-guard.ts). Split from
 * guards.ts.
 */
import { intentText, type CallIntent } from './call-intent';
import { denialPrompt, observeDenial } from './denial-guard';
import { deniedIntentOf } from './denial-record';
import { GuardName, stopAfterWarning, warn, warnedAndRead, type GuardDecision } from './guard-decisions';
import type { GuardedCall, GuardsState, TurnContext } from './guards-state';

export function denialDecision(
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
