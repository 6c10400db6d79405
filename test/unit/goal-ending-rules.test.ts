import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goalEnding } from '../../src/workflows/goal/lifecycle/ending';

/**
 * The goal ending's rules (issue 27: mutation testing; src/workflows/goal/lifecycle/ending.ts): only
 * completed completes and only cancelled cancels; every other status fails with its own named
 * failure type (GoalFailed for a status with none), and the failure message names the status and
 * the reason, or says none was given.
 */

test('completed completes and cancelled cancels, whatever the reason', () => {
  assert.deepEqual(goalEnding({ status: 'completed', reason: 'final answer given' }), { kind: 'complete' });
  assert.deepEqual(goalEnding({ status: 'completed' }), { kind: 'complete' });
  assert.deepEqual(goalEnding({ status: 'cancelled', reason: 'cancelled by request' }), { kind: 'cancel' });
  assert.deepEqual(goalEnding({ status: 'cancelled' }), { kind: 'cancel' });
});

test('each failing status fails with its own type, the message naming status and reason', () => {
  for (const [status, type] of [
    ['failed', 'GoalFailed'],
    ['limit', 'GoalLimitReached'],
    ['budget_exhausted', 'GoalBudgetExhausted'],
    ['rejected', 'GoalRejected'],
    ['stuck', 'GoalStuck'],
  ] as const) {
    assert.deepEqual(
      goalEnding({ status, reason: 'the loop guard stopped it' }),
      { kind: 'fail', type, message: `goal ${status}: the loop guard stopped it` },
      status,
    );
  }
});

test('a status with no failure type of its own (running) fails as GoalFailed', () => {
  assert.deepEqual(goalEnding({ status: 'running', reason: 'why' }), {
    kind: 'fail',
    type: 'GoalFailed',
    message: 'goal running: why',
  });
});

test('a failure without a reason says none was given; an empty reason is kept as it is', () => {
  assert.deepEqual(goalEnding({ status: 'limit' }), {
    kind: 'fail',
    type: 'GoalLimitReached',
    message: 'goal limit: no reason given',
  });
  assert.deepEqual(goalEnding({ status: 'stuck', reason: '' }), {
    kind: 'fail',
    type: 'GoalStuck',
    message: 'goal stuck: ',
  });
});
