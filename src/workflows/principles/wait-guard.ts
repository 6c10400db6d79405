import {
  GuardName,
  stopAfterWarning,
  warn,
  warnedAndRead,
  type GuardDecision,
  type WarningMemory,
} from './guard-decisions';
import { observeWait, waitPrompt, waitStart, type Waiting, type WaitingCall } from './waiting';

/** The guards' state as the wait guard sees it. */
export interface WaitState extends WarningMemory {
  waiting?: Waiting | undefined;
}

/**
 * One call that declares a wait (waiting.ts): its time joins the wait, and a wait that went on too
 * long without anything new is warned about, then stopped. Warnings are per wait (by the call it
 * began at), so polls that alternate are one wait and a wait begun again is warned afresh.
 */
export function waitDecision(
  state: WaitState,
  context: { modelTurns: number; consequence: string },
  call: Omit<WaitingCall, 'atTurn'> & { summary: string },
): GuardDecision | undefined {
  const about = `wait from call ${waitStart(state.waiting, call)}`;
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
