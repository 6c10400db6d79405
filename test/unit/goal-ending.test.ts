import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FailureType } from '../../src/workflows/common/failure-types';
import { goalEnding } from '../../src/workflows/goal/lifecycle/ending';
import { asGoalResult } from '../../src/workflows/goal/lifecycle/result';
import { emptyCounters, emptyUsage } from '../../src/workflows/goal/lifecycle/state';

test('only a completed goal completes its workflow; a cancelled one is cancelled; the rest fail by name', () => {
  assert.deepEqual(goalEnding({ status: 'completed', reason: 'final answer given' }), { kind: 'complete' });
  assert.deepEqual(goalEnding({ status: 'cancelled', reason: 'cancelled by request' }), { kind: 'cancel' });
  const expected: Array<[Parameters<typeof goalEnding>[0]['status'], string]> = [
    ['failed', FailureType.GoalFailed],
    ['limit', FailureType.GoalLimitReached],
    ['budget_exhausted', FailureType.GoalBudgetExhausted],
    ['rejected', FailureType.GoalRejected],
  ];
  for (const [status, type] of expected) {
    assert.deepEqual(goalEnding({ status, reason: 'why' }), {
      kind: 'fail',
      type,
      message: `goal ${status}: why`,
    });
  }
});

test('a result read back from failure details is checked before it is trusted', () => {
  const result = {
    status: 'limit',
    reason: 'tool-call limit of 2 reached',
    counters: emptyCounters(),
    usage: emptyUsage(),
    tasks: 1,
    stats: { assessments: 0 },
  };
  assert.deepEqual(asGoalResult(result), result);
  assert.equal(asGoalResult({ status: 'limit' }), undefined);
  assert.equal(asGoalResult({ ...result, status: 'exploded' }), undefined);
  assert.equal(asGoalResult(undefined), undefined);
});
