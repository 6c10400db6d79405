import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChildOf, rootAmong, underRoots } from '../../src/client/pending-tree';
import type { PendingEntry } from '../../src/client/pending-entries';

/** `keel pending`: a child goal's waiting calls are listed under its root (issue 47). */

const entry = (workflowId: string, callId: string): PendingEntry => ({
  workflowId,
  callId,
  reversibility: 'mutating',
  summary: 'write_file a.txt',
  deadline: '',
});

test('child goals are known by the ids their parents give them, at any depth', () => {
  assert.equal(isChildOf('goal-1-delegate-2', 'goal-1'), true);
  assert.equal(isChildOf('goal-1-sub-1-delegate-3', 'goal-1'), true);
  assert.equal(isChildOf('goal-1-sub-1-delegate-3', 'goal-1-sub-1'), true);
  assert.equal(isChildOf('goal-10-delegate-1', 'goal-1'), false, 'a longer id is another goal');
  assert.equal(isChildOf('goal-1-other', 'goal-1'), false);
  assert.equal(isChildOf('goal-1', 'goal-1'), false);
  const running = new Set(['goal-1', 'goal-1-delegate-1', 'goal-1-delegate-1-delegate-1', 'a-b']);
  assert.equal(rootAmong('goal-1-delegate-1-delegate-1', running), 'goal-1', 'the outermost goal listed');
  assert.equal(
    rootAmong('goal-1-delegate-1-delegate-1', new Set(['goal-1-delegate-1'])),
    'goal-1-delegate-1',
  );
  assert.equal(rootAmong('goal-1', running), undefined);
  assert.equal(rootAmong('a-b-delegate-1', running), 'a-b', 'ids with dashes of their own');
});

test("each child's entry moves under its root with a child-qualified call id; roots' and orphans' stay", () => {
  const goals = new Set(['goal-1', 'goal-1-delegate-1', 'goal-1-delegate-1-delegate-2']);
  assert.deepEqual(
    underRoots(
      [
        entry('goal-1', 'call-4'),
        entry('goal-1-delegate-1', 'call-1'),
        entry('goal-1-delegate-1-delegate-2', 'call-3'),
        entry('goal-9-delegate-1', 'call-1'),
      ],
      goals,
    ).map((moved) => [moved.workflowId, moved.callId]),
    [
      ['goal-1', 'call-4'],
      ['goal-1', 'delegate-1/call-1'],
      ['goal-1', 'delegate-1-delegate-2/call-3'],
      ['goal-9-delegate-1', 'call-1'],
    ],
  );
});
