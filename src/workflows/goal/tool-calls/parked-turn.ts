/**
 * When a turn parked on humans moves to a new run (history limits and a timer). Separate from the
 * lanes: it watches the whole turn, not one call, and GoalToolCalls.run races it against them.
 */
import * as wf from '@temporalio/workflow';
import { PARKED_HANDOVER_DELAY_MS } from '../lifecycle/history-limits';
import type { ToolCallRecord } from '../lifecycle/state';
import type { ToolCallsHost } from './tool-calls-host';
import { isQuietForContinueAsNew } from './turn';

/**
 * Resolves when the waiting turn should move to a new run: at once when the run is at its
 * limits; otherwise once it has stayed parked for PARKED_HANDOVER_DELAY_MS in a run long enough
 * to hand over. A human who answers within that time (a script, someone watching) never pays
 * for a hand-over; one who answers later finds the goal in a short run, and if the worker had
 * evicted it meanwhile, the timer's task, not the decision, paid for replaying the long run.
 */
export async function parkedLongEnough(goal: ToolCallsHost, turn: ToolCallRecord[]): Promise<void> {
  for (;;) {
    await wf.condition(() => canContinueAsNewMidTurn(goal, turn));
    if (goal.handover.timeForNewRun()) return;
    const moved = await wf.condition(
      () => !canContinueAsNewMidTurn(goal, turn) || goal.handover.timeForNewRun(),
      PARKED_HANDOVER_DELAY_MS,
    );
    if (!moved || goal.handover.timeForNewRun()) return;
  }
}

export function canContinueAsNewMidTurn(goal: ToolCallsHost, turn: ToolCallRecord[]): boolean {
  return goal.handover.timeToHandOverParkedTurn() && isQuietForContinueAsNew(turn);
}
