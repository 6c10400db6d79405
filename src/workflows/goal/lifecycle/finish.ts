/**
 * How a goal ends, whatever ends it: the closing report when a guard or a limit stops it, the
 * final status, approvals still waiting closed, the ending in the ledger, and the ledger flushed
 * to its listeners before the workflow closes.
 */
import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import { cacheHitRate as cacheHitRateOf } from '../../principles/cost';
import type { GoalClosingReport } from '../model-turn/closing-report-turn';
import type { HumanReviewWait } from '../oversight/review-wait';
import type { GoalToolCalls } from '../tool-calls/tool-calls';
import { goalResultOf } from '../views/status';
import type { GoalVisibility } from '../views/visibility';
import type { GoalResult } from './result';
import { GoalPhase, GoalStatus, type GoalState } from './state';

export async function finishGoal(
  goal: {
    readonly state: GoalState;
    readonly visibility: GoalVisibility;
    readonly closingReport: GoalClosingReport;
    readonly review: HumanReviewWait;
    readonly toolCalls: GoalToolCalls;
  },
  status: GoalStatus,
  reason: string,
): Promise<GoalResult> {
  const { state, visibility } = goal;
  // A guard or a limit: the model says what was done and what is left (closing-report.ts).
  await goal.closingReport.write(status, reason);
  state.status = status;
  state.phase = GoalPhase.Done;
  state.endReason = reason;
  goal.review.close();
  goal.toolCalls.closePendingApprovals(`the goal ended (${status})`);
  const cacheHitRate = cacheHitRateOf(state.usage);
  visibility.record(endingEvent(status), `goal ${status}: ${reason}`, {
    status,
    reason,
    ...(cacheHitRate > 0 ? { cacheHitRate } : {}),
  });
  visibility.show();
  // The last events reach the listeners before the workflow closes (closing would stop retries),
  // also when a cancellation arrived during the closing report (the goal ends with its stop).
  await wf.CancellationScope.nonCancellable(() => visibility.flush());
  return goalResultOf(state, Date.now());
}

function endingEvent(status: GoalStatus): LedgerEventKind {
  switch (status) {
    case GoalStatus.Completed:
      return LedgerEventKind.GoalCompleted;
    case GoalStatus.Cancelled:
      return LedgerEventKind.GoalCancelled;
    case GoalStatus.Stuck:
      return LedgerEventKind.GoalStuck;
    default:
      return LedgerEventKind.GoalFailed;
  }
}
