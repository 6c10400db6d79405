import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';
import { deliverBulkDecision } from '../../src/client/decision-delivery';
import type { GoalHandle } from '../../src/client/goal-client';
import { judgeDecision, type DecisionAuthority } from '../../src/workflows/goal/tool-calls/approval-decision';
import { approversSchema } from '../../src/workflows/approvals/approval-authority';
import { changeSetDigest } from '../../src/workflows/approvals/change-set-digest';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import type {
  ApprovalUpdatePayload,
  GoalStatusView,
  PendingApprovalView,
} from '../../src/workflows/goal/messages';

/**
 * `keel approve <goal> --all` approves what it listed, and nothing else: each decision names the
 * held changes and the ask of the listing it was chosen from, so the goal refuses a set that
 * changed between the listing and the send (an escalation in between) instead of applying it.
 */

const held = { deleted: ['src/a.ts'], modified: [], created: [] };
const LISTED_AT = '2030-01-01T00:00:00.000Z';

const view = (callId: string, heldChanges?: typeof held): PendingApprovalView => ({
  callId,
  toolName: 'run_command',
  summary: callId,
  call: callId,
  reversibility: heldChanges === undefined ? 'mutating' : 'irreversible',
  input: {},
  requestedAt: LISTED_AT,
  deadline: LISTED_AT,
  ...(heldChanges === undefined ? {} : { heldChanges }),
});

/** A worker that lists `pending` and takes the Update; the decisions it was sent, captured. */
async function approveAll(pending: PendingApprovalView[]): Promise<ApprovalUpdatePayload[]> {
  let sent: ApprovalUpdatePayload[] = [];
  const handle = {
    workflowId: 'goal-1',
    describe: () => Promise.resolve({ taskQueue: 'keel', status: { name: 'RUNNING' } }),
    query: () =>
      Promise.resolve({ status: 'running', pendingApprovals: pending } as unknown as GoalStatusView),
    executeUpdate: (_update: unknown, options: { args: [{ decisions: ApprovalUpdatePayload[] }] }) => {
      sent = options.args[0].decisions;
      return Promise.resolve([]);
    },
  } as unknown as GoalHandle;
  const client = {
    connection: {},
    options: { namespace: 'default' },
    withDeadline: (_deadline: number, ask: () => Promise<unknown>) => ask(),
  } as unknown as Client;
  const delivery = await deliverBulkDecision({
    client,
    handle,
    select: (listed) => [...listed],
    decision: { approved: true, approver: 'ann' },
  });
  assert.equal(delivery.kind, 'decided');
  return sent;
}

const open: DecisionAuthority = {
  workflowId: 'goal-1',
  approvers: approversSchema.parse({}),
  verify: undefined,
};
const waiting = (heldChanges?: typeof held, requestedAt = LISTED_AT): ToolCallRecord => ({
  callId: 'c1',
  toolName: 'run_command',
  input: {},
  reversibility: heldChanges === undefined ? 'mutating' : 'irreversible',
  summary: 'c1',
  status: 'awaiting-approval',
  approval: { requestedAt, deadlineMs: 1 },
  ...(heldChanges === undefined ? {} : { escalation: { reason: 'held', content: '', changes: heldChanges } }),
});
const reasonOf = (payload: unknown, call: ToolCallRecord) => {
  const verdict = judgeDecision(payload, 'from-payload', [call], open);
  return verdict.ok ? 'accepted' : verdict.reason;
};

test('--all sends each call with the digest of the held changes it listed, and the ask it listed', async () => {
  const [plain, holding] = await approveAll([view('c0'), view('c1', held)]);
  assert.equal(plain?.callId, 'c0');
  assert.equal(plain?.changesDigest, undefined, 'nothing held, nothing named');
  assert.equal(plain?.requestedAt, LISTED_AT);
  assert.equal(holding?.callId, 'c1');
  assert.equal(holding?.changesDigest, changeSetDigest(held));
  assert.equal(holding?.requestedAt, LISTED_AT);

  assert.equal(reasonOf(holding, waiting(held)), 'accepted', 'the listed set is approved');
  const grown = { ...held, deleted: [...held.deleted, 'src/b.ts'] };
  assert.equal(reasonOf(holding, waiting(grown)), 'changes-differ', 'a set that changed is refused');
});

test('a call listed at its first ask and escalated before the send is refused, not approved unseen', async () => {
  const [listed] = await approveAll([view('c1')]);
  assert.equal(reasonOf(listed, waiting()), 'accepted', 'the ask it listed');
  const escalated = waiting(held, '2030-01-01T00:00:05.000Z');
  const verdict = judgeDecision(listed, 'from-payload', [escalated], open);
  assert.equal(verdict.ok ? 'accepted' : verdict.reason, 'another-ask');
  assert.match(verdict.ok ? '' : verdict.message, /listed as asked at 2030-01-01T00:00:00.000Z.*00:05/);
  // A client that names no ask (from before) is judged as before.
  const { requestedAt: _ask, ...unlisted } = listed ?? { requestedAt: '' };
  assert.equal(reasonOf(unlisted, escalated), 'accepted');
});
