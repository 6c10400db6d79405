import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { nodeEd25519Verify } from '../support/node-ed25519';
import { judgeDecision, type DecisionAuthority } from '../../src/workflows/goal/tool-calls/approval-decision';
import { approversSchema, canonicalDecisionText } from '../../src/workflows/approvals/approval-authority';
import { changeSetDigest } from '../../src/workflows/approvals/change-set-digest';
import { rawPublicKey, signDecision } from '../../src/client/approval-keys';
import { decideApprovals, type GoalHandle } from '../../src/client/goal-client';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import type { ApprovalUpdatePayload } from '../../src/workflows/goal/messages';

/**
 * An escalated call is asked twice (goal/tool-calls/tool-calls.ts escalate): first at its own tier, then,
 * irreversible, for what its layer held. A signature for the first ask must not decide the second.
 */

const pair = generateKeyPairSync('ed25519');
const authority: DecisionAuthority = {
  workflowId: 'goal-1',
  approvers: approversSchema.parse({}),
  signatures: { scheme: 'ed25519', keys: { alice: rawPublicKey(pair.publicKey) } },
  verify: nodeEd25519Verify,
};
const held = { deleted: ['src/a.ts'], modified: ['.git/hooks/pre-commit'], created: [] };
const digest = changeSetDigest(held);
const FIRST_ASK = '2030-01-01T00:00:00.000Z';
const ESCALATED_ASK = '2030-01-01T00:00:05.000Z';

const firstAsk = (): ToolCallRecord => ({
  callId: 'c1',
  toolName: 'run_command',
  input: { command: 'npm test' },
  reversibility: 'mutating',
  summary: 'npm test',
  status: 'awaiting-approval',
  approval: { requestedAt: FIRST_ASK, deadlineMs: 1 },
});
const escalated = (changes: typeof held | null = held): ToolCallRecord => ({
  ...firstAsk(),
  reversibility: 'irreversible',
  escalation: { reason: 'deletions', content: '', ...(changes === null ? {} : { changes }) },
  approval: { requestedAt: ESCALATED_ASK, deadlineMs: 1 },
});

/** What `keel approve` sends: the client's own payload (decideApprovals), captured, not sent. */
async function clientPayload(
  decision: Parameters<typeof decideApprovals>[1][number],
): Promise<ApprovalUpdatePayload> {
  let sent: ApprovalUpdatePayload | undefined;
  const handle = {
    workflowId: 'goal-1',
    executeUpdate: (_update: unknown, options: { args: [{ decisions: ApprovalUpdatePayload[] }] }) => {
      sent = options.args[0].decisions[0];
      return Promise.resolve([]);
    },
  } as unknown as GoalHandle;
  await decideApprovals(handle, [decision]);
  assert.ok(sent);
  return sent;
}

const judge = (payload: unknown, call: ToolCallRecord) =>
  judgeDecision(payload, 'from-payload', [call], authority);
const reasonOf = (verdict: ReturnType<typeof judgeDecision>) => (verdict.ok ? 'accepted' : verdict.reason);

test('a signature for the first ask, replayed for the escalated ask, is refused as for another stage', async () => {
  // As signed without a listing (a signal with no worker): the text every signer signed so far.
  const unlisted = await clientPayload({
    callId: 'c1',
    approved: true,
    approver: 'alice',
    signingKey: pair.privateKey,
  });
  assert.equal(reasonOf(judge(unlisted, firstAsk())), 'accepted', 'it decides the first ask');
  const replayed = judge({ ...unlisted, changesDigest: digest }, escalated());
  assert.equal(reasonOf(replayed), 'signature-for-another-stage');
  assert.match(
    replayed.ok ? '' : replayed.message,
    /escalated to an irreversible approval at 2030-01-01T00:00:05/,
  );
  assert.equal(reasonOf(judge(unlisted, escalated(null))), 'signature-for-another-stage', 'no changes held');

  // As signed from the listing of the first ask: its stage does not match the escalated ask either.
  const listed = await clientPayload({
    callId: 'c1',
    approved: true,
    approver: 'alice',
    signingKey: pair.privateKey,
    listed: { reversibility: 'mutating', requestedAt: FIRST_ASK },
  });
  assert.equal(reasonOf(judge(listed, firstAsk())), 'accepted', 'it decides the first ask');
  const { requestedAt: _asked, ...withoutAsk } = listed;
  assert.equal(reasonOf(judge({ ...withoutAsk, changesDigest: digest }, escalated())), 'bad-signature');
  assert.equal(reasonOf(judge(listed, escalated())), 'bad-signature', 'its listed ask is signed too');
});

test('a fresh signature for the escalated ask, naming its changes, is accepted; without them it is refused', async () => {
  const listing = { reversibility: 'irreversible' as const, requestedAt: ESCALATED_ASK };
  const fresh = await clientPayload({
    callId: 'c1',
    approved: true,
    approver: 'alice',
    signingKey: pair.privateKey,
    listed: listing,
    changesDigest: digest,
  });
  const verdict = judge(fresh, escalated());
  assert.ok(verdict.ok && verdict.approved && verdict.approver === 'alice');

  const undigested = await clientPayload({
    callId: 'c1',
    approved: true,
    approver: 'alice',
    signingKey: pair.privateKey,
    listed: listing,
  });
  const refused = judge(undigested, escalated());
  assert.equal(reasonOf(refused), 'missing-changes-digest');
  assert.match(refused.ok ? '' : refused.message, /holds changes.*--changes/);
  assert.equal(reasonOf(judge(undigested, escalated(null))), 'accepted', 'nothing held: nothing to name');
  // A denial applies nothing, so it needs no digest.
  const denial = await clientPayload({
    callId: 'c1',
    approved: false,
    approver: 'alice',
    signingKey: pair.privateKey,
    listed: listing,
  });
  assert.equal(reasonOf(judge(denial, escalated())), 'accepted');
  // The digest is signed: another one in the payload breaks the signature.
  assert.equal(reasonOf(judge({ ...fresh, changesDigest: `${digest}0` }, escalated())), 'bad-signature');
});

test('the stage is its own last element, signed only when given', () => {
  const decision = { workflowId: 'w', callId: 'c', approved: true, approver: 'a' };
  assert.equal(canonicalDecisionText(decision), '["keel-approval-v1","w","c","approve","a"]');
  assert.equal(
    canonicalDecisionText({
      ...decision,
      stage: { tier: 'irreversible', requestedAt: 't', changesDigest: 'd' },
    }),
    '["keel-approval-v1","w","c","approve","a","stage:[\\"irreversible\\",\\"t\\",\\"d\\"]"]',
  );
  assert.equal(
    canonicalDecisionText({ ...decision, stage: { tier: 'mutating', requestedAt: 't' } }),
    '["keel-approval-v1","w","c","approve","a","stage:[\\"mutating\\",\\"t\\",\\"\\"]"]',
  );
});

test('a bad signature on a first ask is refused as before, and an unsigned escalated ask is refused', () => {
  const bad = {
    callId: 'c1',
    approver: 'alice',
    approved: true,
    signature: Buffer.alloc(64).toString('base64'),
  };
  assert.equal(reasonOf(judge(bad, firstAsk())), 'bad-signature');
  const { signature: _none, ...unsigned } = bad;
  assert.equal(reasonOf(judge({ ...unsigned, changesDigest: digest }, escalated())), 'missing-signature');
  const signed = signDecision(pair.privateKey, {
    workflowId: 'goal-1',
    callId: 'c1',
    approved: true,
    approver: 'alice',
    stage: { tier: 'mutating', requestedAt: FIRST_ASK },
  });
  assert.equal(reasonOf(judge({ ...unsigned, signature: signed }, firstAsk())), 'accepted');
  // Signed for another call's tier (an irreversible one asked at the same time): refused.
  assert.equal(
    reasonOf(judge({ ...unsigned, signature: signed }, { ...firstAsk(), reversibility: 'irreversible' })),
    'bad-signature',
  );
});

test('without signatures an escalated call is decided as before: no digest is required', () => {
  const open: DecisionAuthority = { ...authority };
  delete open.signatures;
  const verdict = judgeDecision(
    { callId: 'c1', approver: 'bob', approved: true },
    'from-payload',
    [escalated()],
    open,
  );
  assert.ok(verdict.ok);
});
