import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pendingApprovals } from '../../src/workflows/goal/views/status';
import { approversSchema } from '../../src/workflows/approvals/approval-authority';
import type { GoalState, ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import { pendingEntries } from '../../src/client/pending-entries';
import { inboxPage, mayDecide } from '../../src/inbox/pages';
import { pendingLines } from '../../src/cli/approval-lines';

/**
 * Issue 46: the inbox filters waiting calls by approver, and `keel pending` says who may decide.
 * The status view carries, per call, the goal's approvers for the tier the call waits at.
 */

function waiting(
  callId: string,
  reversibility: ToolCallRecord['reversibility'],
  diff?: string,
): ToolCallRecord {
  return {
    callId,
    toolName: 'run_command',
    input: { command: `echo ${callId}` },
    reversibility,
    summary: `run_command: echo ${callId}`,
    status: 'awaiting-approval',
    approval: { requestedAt: '2030-01-01T00:00:00.000Z', deadlineMs: Date.UTC(2030, 0, 2) },
    ...(diff === undefined
      ? {}
      : {
          escalation: {
            reason: 'held',
            content: '',
            changes: { created: [], modified: ['a'], deleted: [] },
            diff,
          },
        }),
  };
}

function stateWith(approvers: unknown, calls: ToolCallRecord[]): GoalState {
  // Only what the view reads: the approvers and the current turn's calls.
  return {
    config: { approvers: approversSchema.parse(approvers) },
    currentTurn: calls,
  } as unknown as GoalState;
}

test('each waiting call names the approvers of the tier it waits at; none when anyone may decide', () => {
  const calls = [waiting('m1', 'mutating'), waiting('i1', 'irreversible', '--- a/a\n+++ b/a\n')];
  const named = pendingApprovals(stateWith({ mutating: ['bob', 'ann'], irreversible: ['ann'] }, calls));
  assert.deepEqual(
    named.map((call) => [call.callId, call.approvers]),
    [
      ['m1', ['bob', 'ann']],
      ['i1', ['ann']],
    ],
  );
  assert.equal(named[1]?.heldDiff, '--- a/a\n+++ b/a\n', 'the held diff goes with the call');
  const open = pendingApprovals(stateWith({ irreversible: ['ann'] }, calls));
  assert.equal(open[0]?.approvers, undefined, 'the mutating tier names no one: anyone may');
  assert.deepEqual(open[1]?.approvers, ['ann']);
  assert.equal(open[0]?.heldDiff, undefined);
});

test('the inbox lists only the calls the chosen approver may decide, and says who may', () => {
  const view = pendingApprovals(
    stateWith({ mutating: ['bob', 'ann'], irreversible: ['ann'] }, [
      waiting('m1', 'mutating'),
      waiting('i1', 'irreversible', '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-old <b>\n+new\n'),
    ]),
  );
  const entries = pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: view });
  assert.equal(mayDecide(entries[1] ?? {}, 'bob'), false);
  assert.equal(mayDecide(entries[1] ?? {}, 'ann'), true);
  assert.equal(mayDecide({}, 'anyone'), true);
  const viewer = { approver: 'bob', via: 'token' as const, csrf: 'c' };
  const render = (approver?: string) =>
    inboxPage({
      viewer,
      entries,
      notes: [],
      signed: new Set(),
      heldKeys: new Set(),
      filters: approver === undefined ? {} : { approver },
    }).text;
  const cards = (text: string) => [...text.matchAll(/data-call="([^"]+)"/g)].map((match) => match[1]);
  assert.deepEqual(cards(render()), ['m1', 'i1']);
  assert.deepEqual(cards(render('bob')), ['m1']);
  assert.deepEqual(cards(render('ann')), ['m1', 'i1']);
  assert.deepEqual(cards(render('carol')), []);
  const all = render();
  assert.match(all, /href="\/\?approver=bob" data-testid="mine"/);
  assert.match(all, /who may decide:\s*<span data-testid="approvers">bob, ann<\/span>/);
  assert.match(all, /<span class="del">-old &lt;b&gt;<\/span>\n<span class="add">\+new<\/span>/);
});

test('`keel pending` names who may decide a call, and nothing when anyone may', () => {
  const view = pendingApprovals(
    stateWith({ irreversible: ['ann', 'bob'] }, [waiting('m1', 'mutating'), waiting('i1', 'irreversible')]),
  );
  const lines = pendingLines(pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: view }));
  assert.deepEqual(
    lines.filter((line) => line.includes('who may decide')),
    ['    # who may decide: ann, bob'],
  );
});
