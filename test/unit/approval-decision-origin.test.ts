import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeDecision, type DecisionAuthority } from '../../src/workflows/goal/tool-calls/approval-decision';
import { approversSchema } from '../../src/workflows/approvals/approval-authority';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';

// In a file of its own: a change to approval-decision.test.ts re-tests every mutant it kills.
const turn = (): ToolCallRecord[] => [
  {
    callId: 'x',
    toolName: 'run_command',
    input: {},
    reversibility: 'irreversible',
    summary: 'call x',
    status: 'awaiting-approval',
    approval: { requestedAt: '2030-01-01T00:00:00.000Z', deadlineMs: 1 },
  },
];
const open: DecisionAuthority = {
  workflowId: 'goal-1',
  approvers: approversSchema.parse({}),
  verify: undefined,
};
const reasonOf = (verdict: ReturnType<typeof judgeDecision>) => (verdict.ok ? 'accepted' : verdict.reason);

test('where a decision was made is carried with it, and an overlong origin is refused', () => {
  const verdict = judgeDecision(
    { callId: 'x', approver: 'ann', origin: '  inbox 127.0.0.1, link  ' },
    true,
    turn(),
    open,
  );
  assert.ok(verdict.ok);
  assert.equal(verdict.origin, 'inbox 127.0.0.1, link');
  const plain = judgeDecision({ callId: 'x', approver: 'ann' }, true, turn(), open);
  assert.ok(plain.ok && !('origin' in plain));
  assert.equal(
    reasonOf(judgeDecision({ callId: 'x', approver: 'ann', origin: 'o'.repeat(201) }, true, turn(), open)),
    'malformed-payload',
  );
});
