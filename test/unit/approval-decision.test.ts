import { test } from 'node:test';
import { nodeEd25519Verify } from '../support/node-ed25519';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { judgeDecision, type DecisionAuthority } from '../../src/workflows/goal/tool-calls/approval-decision';
import {
  approversSchema,
  canonicalDecisionText,
  type ApprovalSignatures,
} from '../../src/workflows/approvals/approval-authority';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';

const waiting = (callId: string, reversibility: ToolCallRecord['reversibility']): ToolCallRecord => ({
  callId,
  toolName: 'run_command',
  input: {},
  reversibility,
  summary: `call ${callId}`,
  status: 'awaiting-approval',
  approval: { requestedAt: '2030-01-01T00:00:00.000Z', deadlineMs: 1 },
});

const turn = (): ToolCallRecord[] => [
  waiting('x', 'irreversible'),
  waiting('m', 'mutating'),
  { callId: 'r', toolName: 'list_dir', input: {}, reversibility: 'read-only', summary: 'r', status: 'done' },
];

const open: DecisionAuthority = {
  workflowId: 'goal-1',
  approvers: approversSchema.parse({}),
  verify: undefined,
};

const reasonOf = (verdict: ReturnType<typeof judgeDecision>) => (verdict.ok ? 'accepted' : verdict.reason);

test('a well-formed decision for a waiting call is accepted with its approver', () => {
  const verdict = judgeDecision({ callId: 'x', approver: 'ann', reason: 'ok' }, false, turn(), open);
  assert.ok(verdict.ok);
  assert.equal(verdict.call.callId, 'x');
  assert.equal(verdict.approved, false, 'from the signal (deny)');
  assert.equal(verdict.approver, 'ann');
  const update = judgeDecision(
    { callId: 'x', approver: 'ann', approved: true },
    'from-payload',
    turn(),
    open,
  );
  assert.ok(update.ok && update.approved);
});

test('malformed payloads are refused and say what is wrong, naming what they can', () => {
  const cases: Array<[unknown, RegExp]> = [
    [undefined, /malformed decision/],
    ['x', /malformed decision/],
    [{ callId: 'x' }, /approver: approver is required/],
    [{ callId: 'x', approver: '   ' }, /approver is required/],
    [{ approver: 'ann' }, /callId: callId is required/],
    [{ callId: 'x', approver: 'ann', extra: 1 }, /malformed decision/],
  ];
  for (const [raw, message] of cases) {
    const verdict = judgeDecision(raw, true, turn(), open);
    assert.equal(reasonOf(verdict), 'malformed-payload', JSON.stringify(raw));
    assert.match(verdict.ok ? '' : verdict.message, message);
  }
  const verdict = judgeDecision({ callId: 'x', extra: 1 }, true, turn(), open);
  assert.equal(verdict.ok ? '' : verdict.callId, 'x');
  // The Update needs `approved` too.
  assert.equal(
    reasonOf(judgeDecision({ callId: 'x', approver: 'ann' }, 'from-payload', turn(), open)),
    'malformed-payload',
  );
});

test('unknown and already-decided call ids are refused', () => {
  assert.equal(
    reasonOf(judgeDecision({ callId: 'zzz', approver: 'ann' }, true, turn(), open)),
    'unknown-call',
  );
  assert.equal(
    reasonOf(judgeDecision({ callId: 'x', approver: 'ann' }, true, undefined, open)),
    'unknown-call',
  );
  assert.equal(
    reasonOf(judgeDecision({ callId: 'r', approver: 'ann' }, true, turn(), open)),
    'already-decided',
  );
  const decided = turn();
  const approval = decided[0]?.approval;
  if (approval)
    approval.decision = { approved: true, approver: 'a', reason: '', decidedAt: '', via: 'signal' };
  const verdict = judgeDecision({ callId: 'x', approver: 'ann' }, true, decided, open);
  assert.equal(reasonOf(verdict), 'already-decided');
  assert.deepEqual(verdict.ok ? {} : { callId: verdict.callId, approver: verdict.approver }, {
    callId: 'x',
    approver: 'ann',
  });
});

test('the approver policy is applied per tier', () => {
  const strict = {
    ...open,
    approvers: approversSchema.parse({ irreversible: ['alice'], mutating: ['alice', 'bob'] }),
  };
  assert.equal(
    reasonOf(judgeDecision({ callId: 'x', approver: 'bob' }, true, turn(), strict)),
    'unauthorized-approver',
  );
  assert.equal(reasonOf(judgeDecision({ callId: 'x', approver: 'alice' }, true, turn(), strict)), 'accepted');
  assert.equal(reasonOf(judgeDecision({ callId: 'm', approver: 'bob' }, true, turn(), strict)), 'accepted');
  assert.equal(
    reasonOf(judgeDecision({ callId: 'm', approver: 'eve' }, false, turn(), strict)),
    'unauthorized-approver',
  );
});

test('with signatures required, only a decision signed for exactly this call and verdict is accepted', () => {
  const pair = generateKeyPairSync('ed25519');
  const publicKey = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString(
    'base64',
  );
  const signatures: ApprovalSignatures = { scheme: 'ed25519', keys: { alice: publicKey } };
  const signedAuthority: DecisionAuthority = {
    ...open,
    signatures,
    verify: nodeEd25519Verify,
  };
  const signature = sign(
    null,
    Buffer.from(
      canonicalDecisionText({ workflowId: 'goal-1', callId: 'x', approved: true, approver: 'alice' }),
    ),
    pair.privateKey,
  ).toString('base64');
  const judge = (raw: unknown, approved: boolean) =>
    reasonOf(judgeDecision(raw, approved, turn(), signedAuthority));
  assert.equal(judge({ callId: 'x', approver: 'alice', signature }, true), 'accepted');
  assert.equal(
    judge({ callId: 'x', approver: 'alice', signature }, false),
    'bad-signature',
    'approve signed, sent as deny',
  );
  assert.equal(
    judge({ callId: 'm', approver: 'alice', signature }, true),
    'bad-signature',
    'signed for another call',
  );
  assert.equal(judge({ callId: 'x', approver: 'alice' }, true), 'missing-signature');
  assert.equal(judge({ callId: 'x', approver: 'bob', signature }, true), 'unauthorized-approver');
  const elsewhere = judgeDecision({ callId: 'x', approver: 'alice', signature }, true, turn(), {
    ...signedAuthority,
    workflowId: 'goal-2',
  });
  assert.equal(reasonOf(elsewhere), 'bad-signature', 'a signature for one goal is useless on another');
});

test('doNotAskAgain: a denial carries it, a decision without it does not, an approval with it is refused', () => {
  const denied = judgeDecision({ callId: 'x', approver: 'ann', doNotAskAgain: true }, false, turn(), open);
  assert.ok(denied.ok);
  assert.equal(denied.approved, false);
  assert.equal(denied.doNotAskAgain, true);

  const plain = judgeDecision({ callId: 'x', approver: 'ann' }, false, turn(), open);
  assert.ok(plain.ok);
  assert.equal(plain.doNotAskAgain, false);
  const explicitlyNot = judgeDecision(
    { callId: 'x', approver: 'ann', doNotAskAgain: false },
    true,
    turn(),
    open,
  );
  assert.ok(explicitlyNot.ok && explicitlyNot.approved && !explicitlyNot.doNotAskAgain);

  const byUpdate = judgeDecision(
    { callId: 'x', approver: 'ann', approved: false, doNotAskAgain: true },
    'from-payload',
    turn(),
    open,
  );
  assert.ok(byUpdate.ok && byUpdate.doNotAskAgain && !byUpdate.approved);

  // An approval with the flag would remember nothing: refused in words, naming the call.
  for (const [raw, approved] of [
    [{ callId: 'x', approver: 'ann', doNotAskAgain: true }, true],
    [{ callId: 'x', approver: 'ann', approved: true, doNotAskAgain: true }, 'from-payload'],
  ] as const) {
    const verdict = judgeDecision(raw, approved, turn(), open);
    assert.equal(reasonOf(verdict), 'do-not-ask-again-on-approval');
    assert.match(verdict.ok ? '' : verdict.message, /applies to denials only/);
    assert.equal(verdict.ok ? '' : verdict.callId, 'x');
  }

  const notBoolean = judgeDecision(
    { callId: 'x', approver: 'ann', doNotAskAgain: 'yes' },
    false,
    turn(),
    open,
  );
  assert.equal(reasonOf(notBoolean), 'malformed-payload');
  assert.match(notBoolean.ok ? '' : notBoolean.message, /doNotAskAgain: doNotAskAgain must be true or false/);
});

test('with signatures required, doNotAskAgain is signed: a signature cannot add or drop it', () => {
  const pair = generateKeyPairSync('ed25519');
  const publicKey = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString(
    'base64',
  );
  const signedAuthority: DecisionAuthority = {
    ...open,
    signatures: { scheme: 'ed25519', keys: { alice: publicKey } },
    verify: nodeEd25519Verify,
  };
  const signOver = (doNotAskAgain: boolean) =>
    sign(
      null,
      Buffer.from(
        canonicalDecisionText({
          workflowId: 'goal-1',
          callId: 'x',
          approved: false,
          approver: 'alice',
          doNotAskAgain,
        }),
      ),
      pair.privateKey,
    ).toString('base64');
  const judge = (signature: string, doNotAskAgain?: boolean) =>
    reasonOf(
      judgeDecision(
        {
          callId: 'x',
          approver: 'alice',
          signature,
          ...(doNotAskAgain === undefined ? {} : { doNotAskAgain }),
        },
        false,
        turn(),
        signedAuthority,
      ),
    );
  const plain = signOver(false);
  const remembered = signOver(true);
  assert.equal(judge(plain), 'accepted');
  assert.equal(judge(plain, false), 'accepted', 'false is the same decision as no flag');
  assert.equal(judge(remembered, true), 'accepted');
  assert.equal(judge(plain, true), 'bad-signature', 'a plain denial replayed with the flag added');
  assert.equal(judge(remembered), 'bad-signature', 'a remembered denial replayed with the flag dropped');
  assert.equal(judge(remembered, false), 'bad-signature');
});
