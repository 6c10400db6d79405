import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';
import { guardsView, lastDecisionView } from '../../src/workflows/goal/views/status';
import {
  appendEvent,
  LedgerEventKind,
  type LedgerEventKind as Kind,
} from '../../src/workflows/common/ledger';
import type { GoalState } from '../../src/workflows/goal/lifecycle/state';

// Issue 46: a human's denial was shown as `last guard decision: denials: … was denied`, because
// the denials guard warns the model about it. The status shows the decision as the human's.
function stateWith(events: Array<[Kind, string, Record<string, unknown>]>): GoalState {
  const state = newGoalState({ goal: 'g', workspace: '/w' });
  state.guards ??= { decisions: 0 } as NonNullable<GoalState['guards']>;
  for (const [kind, summary, data] of events) {
    state.ledger = appendEvent(state.ledger, { at: '2030-01-01T00:00:00.000Z', kind, summary, data });
  }
  return state;
}

const denial: [Kind, string, Record<string, unknown>] = [
  LedgerEventKind.ApprovalDecided,
  'denied by ann: run_command: rm -rf build',
  { approved: false, approver: 'ann', reason: 'keep build', via: 'update' },
];
const echo: [Kind, string, Record<string, unknown>] = [
  LedgerEventKind.GuardWarned,
  'denials: run_command: rm -rf build was denied',
  { guard: 'denials' },
];

test("a human's denial is the last decision, and the denials guard's echo of it is not a guard decision", () => {
  const state = stateWith([
    [LedgerEventKind.GuardWarned, 'loop: list_dir repeated', { guard: 'loop' }],
    denial,
    echo,
  ]);
  assert.deepEqual(lastDecisionView(state), {
    summary: 'denied by ann: run_command: rm -rf build',
    at: '2030-01-01T00:00:00.000Z',
    reason: 'keep build',
  });
  assert.equal(guardsView(state)?.last?.summary, 'loop: list_dir repeated', 'the guard decision before it');
});

test("the denials guard's stop is its own decision and shows as the last guard decision", () => {
  const state = stateWith([
    denial,
    echo,
    [
      LedgerEventKind.GuardStopped,
      'denials: rm -rf build asked for again and denied 3 times',
      { guard: 'denials' },
    ],
  ]);
  assert.equal(guardsView(state)?.last?.kind, LedgerEventKind.GuardStopped);
});

test('no decision yet: no last decision; one without a reason has none', () => {
  assert.equal(lastDecisionView(stateWith([echo])), undefined);
  const approved = stateWith([
    [LedgerEventKind.ApprovalDecided, 'approved by bob: write_file: a.txt', { approved: true, reason: '' }],
  ]);
  assert.deepEqual(lastDecisionView(approved), {
    summary: 'approved by bob: write_file: a.txt',
    at: '2030-01-01T00:00:00.000Z',
  });
});
