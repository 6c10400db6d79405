import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routeDecision } from '../../src/cli/child-call-route';

/** `keel approve ROOT CHILD/CALL` (issue 47): which goal a decision goes to. */

test("a child-qualified call goes to the child that holds it: a delegate's, a sub-goal's, a grandchild's", () => {
  assert.deepEqual(routeDecision('goal-1', 'call-2'), { workflowId: 'goal-1', callId: 'call-2' });
  assert.deepEqual(routeDecision('goal-1', undefined), { workflowId: 'goal-1', callId: undefined });
  assert.deepEqual(routeDecision('goal-1', 'delegate-1/call-2'), {
    workflowId: 'goal-1-delegate-1',
    callId: 'call-2',
  });
  assert.deepEqual(routeDecision('goal-1', 'sub-2/call-1'), { workflowId: 'goal-1-sub-2', callId: 'call-1' });
  assert.deepEqual(routeDecision('goal-1', 'sub-2-delegate-1/call-4'), {
    workflowId: 'goal-1-sub-2-delegate-1',
    callId: 'call-4',
  });
  assert.deepEqual(routeDecision('goal-1', 'goal-1-delegate-3/call-1'), {
    workflowId: 'goal-1-delegate-3',
    callId: 'call-1',
  });
});

test('an id that names no child of the root is one clear line', () => {
  for (const bad of ['other-1/call-1', 'delegate-1/', 'delegate-x/call-1', 'goal-2-delegate-1/call-1']) {
    assert.throws(
      () => routeDecision('goal-1', bad),
      /names no call of a child goal of goal-1 \(as delegate-N\/call-M\)/,
      bad,
    );
  }
});
