import { FailureType } from '../../common/failure-types';
import type { GoalResult } from './result';
import { GoalStatus } from './state';

/**
 * How a goal's ending maps onto Temporal's own statuses, so the Web UI badge, its Failures view
 * and `ExecutionStatus="Failed"` agree with keel:
 *
 * - completed → the workflow completes with the result;
 * - cancelled → the workflow ends Canceled (the cancellation is rethrown after the goal is settled);
 * - failed, limit, budget_exhausted, rejected, stuck → the workflow fails with a non-retryable
 *   ApplicationFailure of a named type whose details hold the result.
 *
 * A limit or an exhausted budget is a failure: the goal was not reached, and whoever filters for
 * failed workflows wants to see it (and `keel run --wait` already exits 1 for it). The failure
 * type says which ending it was, and KeelStatus keeps keel's own word.
 */
export type GoalEnding =
  { kind: 'complete' } | { kind: 'cancel' } | { kind: 'fail'; type: FailureType; message: string };

const FAILURE_TYPE_OF: Readonly<Partial<Record<GoalStatus, FailureType>>> = {
  [GoalStatus.Failed]: FailureType.GoalFailed,
  [GoalStatus.Limit]: FailureType.GoalLimitReached,
  [GoalStatus.BudgetExhausted]: FailureType.GoalBudgetExhausted,
  [GoalStatus.Rejected]: FailureType.GoalRejected,
  [GoalStatus.Stuck]: FailureType.GoalStuck,
};

export function goalEnding(result: Pick<GoalResult, 'status' | 'reason'>): GoalEnding {
  if (result.status === GoalStatus.Completed) return { kind: 'complete' };
  if (result.status === GoalStatus.Cancelled) return { kind: 'cancel' };
  const type = FAILURE_TYPE_OF[result.status] ?? FailureType.GoalFailed;
  return { kind: 'fail', type, message: `goal ${result.status}: ${result.reason ?? 'no reason given'}` };
}
