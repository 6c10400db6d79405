import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeDecision, type DecisionAuthority } from '../../src/workflows/goal/tool-calls/approval-decision';
import { approversSchema } from '../../src/workflows/approvals/approval-authority';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';

/**
 * "Approve, and exactly this call from now on" must mean exactly it. A rule pattern has no escape
 * for `*` or `?`, so the exact pattern of a path `.en?` would approve `.env` too: a model could
 * ask for an odd-looking write a human approves for good, then use the wildcard. Such a decision
 * is refused (the call keeps waiting: approving it alone, or with a pattern the human writes,
 * still works); a forbid rule made the same way refuses a little more than its call, the safe side.
 */

const authority: DecisionAuthority = {
  workflowId: 'goal-1',
  approvers: approversSchema.parse({}),
  verify: undefined,
  workspace: '/ws',
};

const write = (path: string): ToolCallRecord => ({
  callId: 'w1',
  toolName: 'write_file',
  input: { path, content: 'x' },
  reversibility: 'mutating',
  summary: `write_file: ${path}`,
  status: 'awaiting-approval',
  approval: { requestedAt: '2030-01-01T00:00:00.000Z', deadlineMs: Date.parse('2030-01-01T00:01:00.000Z') },
});

const refused = (text: string) => ({
  ok: false,
  reason: 'rule-refused',
  message: `no rule can approve exactly this call for later calls: "${text}" holds * or ?, which a rule reads as a wildcard (approve it alone, or give the rule's pattern yourself)`,
  callId: 'w1',
  approver: 'ann',
});

test('an exact allow rule for a path holding ? or * is refused, naming the path as the rule would read it', () => {
  for (const [path, text] of [
    ['.en?', '.en?'],
    ['/ws/src/a*.ts', 'src/a*.ts'],
    ['config/*', 'config/*'],
  ] as const) {
    const call = write(path);
    assert.deepEqual(
      judgeDecision({ callId: 'w1', approver: 'ann', rule: {} }, true, [call], authority),
      refused(text),
      path,
    );
  }
});

test('the same call approved alone, or with a pattern the human writes, is accepted', () => {
  const call = write('.en?');
  assert.deepEqual(judgeDecision({ callId: 'w1', approver: 'ann' }, true, [call], authority), {
    ok: true,
    call,
    approved: true,
    approver: 'ann',
    reason: '',
    doNotAskAgain: false,
  });
  const judged = judgeDecision(
    { callId: 'w1', approver: 'ann', rule: { pattern: '.en?' } },
    true,
    [call],
    authority,
  );
  assert.deepEqual(judged.ok && 'rule' in judged ? judged.rule : judged, {
    tool: 'write_file',
    pattern: '.en?',
    irreversible: false,
  });
});

test('an exact rule for a path without wildcards is kept, and covers that path alone', () => {
  const call = write('.envx');
  const judged = judgeDecision({ callId: 'w1', approver: 'ann', rule: {} }, true, [call], authority);
  assert.deepEqual(judged.ok && 'rule' in judged ? judged.rule : judged, {
    tool: 'write_file',
    pattern: '.envx',
    irreversible: false,
  });
});

test('an exact forbid rule for a path holding ? is kept: it refuses that path and, at worst, a few more', () => {
  const call = write('.en?');
  const judged = judgeDecision({ callId: 'w1', approver: 'ann', rule: {} }, false, [call], authority);
  assert.deepEqual(judged.ok && 'rule' in judged ? judged.rule : judged, {
    tool: 'write_file',
    pattern: '.en?',
    irreversible: false,
  });
});
