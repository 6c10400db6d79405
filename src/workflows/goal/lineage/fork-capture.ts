/**
 * How a fork learns what the original goal was at a turn: the client replays the run of the
 * original's history that holds the turn (Temporal keeps every turn's inputs and outputs), with
 * the turn it wants in the memo of the run's start event, and the workflow hands the replayer its
 * state when that turn is about to begin (client/fork/replay-capture.ts). Without the marker —
 * every real run, every eviction replay — nothing is copied and no sink is called: a goal pays
 * nothing for being forkable.
 */
import * as wf from '@temporalio/workflow';
import type { GoalState } from '../lifecycle/state';

/** The memo key the replayer adds, naming the turn it wants; no real run has it (memo does not affect determinism). */
export const FORK_CAPTURE_MEMO_KEY = 'keelForkCapture';

export interface ForkCaptureSinks extends wf.Sinks {
  keelForkCapture: {
    /**
     * Model turn `turn` is about to be asked: its state (only for the turn asked for) and the
     * workflow clock's elapsed time then.
     */
    turnStarts(turn: number, state: unknown, elapsedMs: number): void;
  };
}

const sinks = wf.proxySinks<ForkCaptureSinks>();

/** At the top of the loop, with no turn in progress: what a fork at the next turn starts from. */
export function captureTurnStart(state: GoalState): void {
  const wanted = wf.workflowInfo().memo?.[FORK_CAPTURE_MEMO_KEY];
  if (typeof wanted !== 'number') return;
  const turn = state.counters.modelTurns + 1;
  // Copied now: the sink runs after the activation, when the state has moved on.
  const copy: unknown = turn === wanted ? JSON.parse(JSON.stringify(state)) : undefined;
  sinks.keelForkCapture.turnStarts(turn, copy, Date.now() - state.startedAtMs);
}
