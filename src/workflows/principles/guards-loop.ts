/**
 * The loop guard, turn by turn: each call joins the window, and a call repeated (loop) or a round
 * of calls gone round twice (cycle) is warned about, then stopped (the verdicts: loop-guard.ts).
 * Split from guards.ts.
 */
import { GuardName, stopAfterWarning, warn, warnedAndRead, type GuardDecision } from './guard-decisions';
import type { GuardedCall, GuardsState, TurnContext } from './guards-state';
import { cyclePrompt, detectCycle, detectLoop, loopPrompt, remember } from './loop-guard';
import { resultFingerprint } from './result-noise';
import { waitKey } from './waiting';

export function loopDecision(
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
export function cycleDecision(
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
