import {
  GuardName,
  stopAfterWarning,
  warn,
  warnedAndRead,
  type GuardDecision,
  type WarningMemory,
} from './guard-decisions';
import { observeWait, waitPrompt, type Waiting } from './waiting';

/** The guards' state as the wait guard sees it. */
export interface WaitState extends WarningMemory {
  waiting?: Waiting | undefined;
}

/**
 * One call that declares a wait (waiting.ts): its time joins the wait on the same call, and a wait
 * that went on too long is warned about, then stopped. Warnings are per waiting call.
 */
export function waitDecision(
  state: WaitState,
  context: { modelTurns: number; consequence: string },
  call: { key: string; summary: string; resultText: string; atToolCall: number; declaredSeconds: number },
): GuardDecision | undefined {
  const about = `wait ${call.key}`;
  const warned = state.warnings.some((warning) => warning.about === about);
  const observed = observeWait(
    state.waiting,
    { ...call, atTurn: context.modelTurns },
    {
      warned,
      warnedAndRead: warned && warnedAndRead(state, about, context.modelTurns),
    },
  );
  state.waiting = observed.waiting;
  const verdict = observed.verdict;
  if (verdict.kind === 'none') return undefined;
  const data = {
    call: call.summary,
    waitedSeconds: Math.round(verdict.seconds),
    limit: verdict.limit,
    sinceToolCall: verdict.sinceToolCall,
    atToolCall: call.atToolCall,
  };
  const summary = `waiting: ${Math.round(verdict.seconds)} s waited on ${call.summary}`;
  if (verdict.kind === 'stop')
    return stopAfterWarning(state, about, { guard: GuardName.Waiting, summary, data });
  return warn(state, about, context, {
    guard: GuardName.Waiting,
    summary,
    prompt: waitPrompt({ summary: call.summary, seconds: verdict.seconds, consequence: context.consequence }),
    data,
  });
}
