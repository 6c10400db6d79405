import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  changedSearchAttributes,
  dueFields,
  searchAttributeUpdates,
  TOOL_CALLS_REFRESH_STEP,
  type SearchAttributeValues,
} from '../../src/workflows/goal/views/search-attribute-values';

/**
 * KeelCostUsd (issue 47): a goal's spend with its children's, written only along with other
 * attributes. Pure, no server: it lives here, not in test/unit, because the module's types reach
 * the goal state, and a unit test there would put every measured module back into CI's mutation
 * step (scripts/mutation-changed.ts) for a test that cannot kill their mutants.
 */

const values: SearchAttributeValues = {
  status: 'running',
  phase: 'awaiting-approval',
  toolCalls: 4,
  planAttempt: 2,
  pendingApprovals: 1,
  priority: 0.75,
};

test('the cost rides along with other writes and is never written alone', () => {
  const costed = { ...values, costUsd: 0.25 };
  assert.deepEqual(dueFields(costed, { ...costed, costUsd: 0.5 }), [], 'a cost that changed alone waits');
  assert.deepEqual(dueFields(costed, { ...costed, costUsd: 0.5, phase: 'thinking' }), ['phase', 'costUsd']);
  const lagging = { ...costed, toolCalls: values.toolCalls + TOOL_CALLS_REFRESH_STEP, costUsd: 0.5 };
  assert.deepEqual(dueFields(costed, lagging), ['toolCalls', 'costUsd'], 'with a lagging count');
  assert.deepEqual(dueFields(values, { ...values, toolCalls: values.toolCalls + 1, costUsd: 1 }), []);
});

test('the cost is written to a hundredth of a cent, as a Double, and only when there is one', () => {
  const costed = { ...values, costUsd: 0.25 };
  assert.deepEqual(changedSearchAttributes(costed, { ...costed, costUsd: 0.250_04 }), []);
  const pairs = changedSearchAttributes(costed, { ...costed, costUsd: 0.123_456 });
  assert.deepEqual(
    pairs.map((pair) => [pair.key.name, pair.key.type, pair.value]),
    [['KeelCostUsd', 'DOUBLE', 0.1235]],
  );
  assert.equal(
    changedSearchAttributes(costed, { ...costed, costUsd: Number.NaN })[0]?.value,
    0,
    'NaN cannot be stored',
  );
  assert.ok(!searchAttributeUpdates(values).some((pair) => pair.key.name === 'KeelCostUsd'));
  assert.ok(searchAttributeUpdates(costed).some((pair) => pair.key.name === 'KeelCostUsd'));
});
