/**
 * How a fork learns what the original goal was at a turn: the client replays the original's
 * history (Temporal keeps every turn's inputs and outputs) with a marker in the memo of each
 * run's start event, and the workflow hands its state to the replayer's sink at each turn
 * boundary (client/fork/replay-capture.ts). Without the marker — every real run, every eviction
 * replay — nothing is copied and no sink is called: a goal pays nothing for being forkable.
 */
import * as wf from '@temporalio/workflow';
import type { GoalState, ToolCallRecord } from '../lifecycle/state';

/** The memo key the replayer adds; no real run has it (memo does not affect determinism). */
export const FORK_CAPTURE_MEMO_KEY = 'keelForkCapture';

/** A call as the fork's list of irreversible calls needs it. */
export interface CapturedCall {
  callId: string;
  toolName: string;
  summary: string;
  reversibility: ToolCallRecord['reversibility'];
  ran: boolean;
  isError: boolean;
  unknownOutcome: boolean;
}

export interface ForkCaptureSinks extends wf.Sinks {
  keelForkCapture: {
    /** The state as model turn `turn` is about to be asked, and the workflow clock's elapsed time then. */
    turnStarts(turn: number, state: unknown, elapsedMs: number): void;
    /** The calls of model turn `turn`, once they ran. */
    callsRan(turn: number, calls: CapturedCall[]): void;
  };
}

const sinks = wf.proxySinks<ForkCaptureSinks>();

function capturing(): boolean {
  return wf.workflowInfo().memo?.[FORK_CAPTURE_MEMO_KEY] === true;
}

/** At the top of the loop, with no turn in progress: what a fork at the next turn starts from. */
export function captureTurnStart(state: GoalState): void {
  if (!capturing()) return;
  // Copied now: the sink runs after the activation, when the state has moved on.
  const copy: unknown = JSON.parse(JSON.stringify(state));
  sinks.keelForkCapture.turnStarts(state.counters.modelTurns + 1, copy, Date.now() - state.startedAtMs);
}

/** After a turn's calls ran (the turn is the model turn that asked for them). */
export function captureCallsRan(state: GoalState, calls: readonly ToolCallRecord[]): void {
  if (!capturing()) return;
  sinks.keelForkCapture.callsRan(
    state.counters.modelTurns,
    calls.map((call) => ({
      callId: call.callId,
      toolName: call.toolName,
      summary: call.summary,
      reversibility: call.reversibility,
      ran: call.result !== undefined && call.approval?.decision?.approved !== false,
      isError: call.result?.isError ?? false,
      unknownOutcome: call.result?.unknownOutcome ?? false,
    })),
  );
}
