import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, verify, createPublicKey, type KeyObject } from 'node:crypto';
import {
  approverAllowed,
  approversSchema,
  approvalSignaturesSchema,
  canonicalDecisionText,
  checkSignature,
} from '../../src/workflows/approvals/approval-authority';
import type { Ed25519Verify } from '../../src/workflows/common/ed25519';
import { decodeBase64 } from '../../src/workflows/common/base64';
import { goalInputSchema } from '../../src/workflows/goal/lifecycle/input';

/** A real Ed25519 verifier for the tests (Node's); the workflow gets a pure one injected. */
const nodeVerify: Ed25519Verify = (signature, message, publicKey) =>
  verify(
    null,
    message,
    createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
      format: 'jwk',
    }),
    signature,
  );

function keyPair(): { privateKey: KeyObject; publicKey: string } {
  const pair = generateKeyPairSync('ed25519');
  const x = pair.publicKey.export({ format: 'jwk' }).x ?? '';
  return { privateKey: pair.privateKey, publicKey: Buffer.from(x, 'base64url').toString('base64') };
}

const alice = keyPair();
const bob = keyPair();
const signatures = approvalSignaturesSchema.parse({ scheme: 'ed25519', keys: { alice: alice.publicKey } });
const decision = { workflowId: 'goal-1', callId: 'toolu_1', approved: true, approver: 'alice' };
const signed = (key: KeyObject, over = decision) =>
  sign(null, Buffer.from(canonicalDecisionText(over)), key).toString('base64');

test('approvers: anyone by default, old inputs parse, and a list limits a tier', () => {
  const defaults = goalInputSchema.parse({ goal: 'g', workspace: '/w' });
  assert.deepEqual(defaults.approvers, { mutating: ['*'], irreversible: ['*'] });
  assert.equal(defaults.approvalSignatures, undefined);
  assert.equal(approverAllowed(defaults.approvers, 'irreversible', 'anyone at all'), true);

  const policy = approversSchema.parse({ irreversible: ['alice', 'bob'] });
  assert.equal(approverAllowed(policy, 'irreversible', 'alice'), true);
  assert.equal(approverAllowed(policy, 'irreversible', 'mallory'), false);
  assert.equal(approverAllowed(policy, 'irreversible', '*'), false, 'a name of "*" is not a wildcard');
  assert.equal(approverAllowed(policy, 'mutating', 'mallory'), true, 'mutating still defaults to anyone');
  assert.throws(() => approversSchema.parse({ irreversible: [] }), /at least one approver/);
  assert.throws(() => approversSchema.parse({ readonly: ['x'] }));
});

test('approval keys must be base64 raw 32-byte public keys', () => {
  assert.throws(
    () => approvalSignaturesSchema.parse({ scheme: 'ed25519', keys: { alice: 'c2hvcnQ=' } }),
    /32 bytes/,
  );
  assert.throws(() => approvalSignaturesSchema.parse({ scheme: 'hmac', keys: { alice: alice.publicKey } }));
  assert.throws(() => approvalSignaturesSchema.parse({ scheme: 'ed25519', keys: {} }), /at least one/);
});

test('the canonical text names version, workflow, call, decision and approver unambiguously', () => {
  assert.equal(canonicalDecisionText(decision), '["keel-approval-v1","goal-1","toolu_1","approve","alice"]');
  assert.equal(
    canonicalDecisionText({ ...decision, approved: false }),
    '["keel-approval-v1","goal-1","toolu_1","deny","alice"]',
  );
  // doNotAskAgain adds a sixth element only when true, so signatures made before it still verify.
  assert.equal(
    canonicalDecisionText({ ...decision, approved: false, doNotAskAgain: true }),
    '["keel-approval-v1","goal-1","toolu_1","deny","alice","do-not-ask-again"]',
  );
  assert.equal(
    canonicalDecisionText({ ...decision, approved: false, doNotAskAgain: false }),
    canonicalDecisionText({ ...decision, approved: false }),
  );
  // A separator inside one field cannot make it look like two.
  assert.notEqual(
    canonicalDecisionText({ ...decision, workflowId: 'a","b' }),
    canonicalDecisionText({ ...decision, workflowId: 'a', callId: 'b' }),
  );
});

test('a good signature by the approver is accepted', () => {
  assert.deepEqual(
    checkSignature({ signatures, decision, signature: signed(alice.privateKey), verify: nodeVerify }),
    { ok: true },
  );
});

test('wrong key, tampered call id, decision, workflow or approver: bad signature', () => {
  const check = (signature: string, over = decision) =>
    checkSignature({ signatures, decision: over, signature, verify: nodeVerify });
  assert.equal(check(signed(bob.privateKey)).ok, false, 'signed by another key');
  const good = signed(alice.privateKey);
  for (const tampered of [
    { ...decision, callId: 'toolu_2' },
    { ...decision, approved: false },
    { ...decision, workflowId: 'goal-2' },
  ]) {
    const result = check(good, tampered);
    assert.equal(result.ok, false);
    assert.equal(result.ok ? '' : result.reason, 'bad-signature');
  }
  assert.deepEqual(check('not base64!'), {
    ok: false,
    reason: 'bad-signature',
    message: 'signature is not base64 of 64 bytes',
  });
  // Claiming another approver: bob has no key here, whatever he signs.
  const asBob = check(signed(bob.privateKey, { ...decision, approver: 'bob' }), {
    ...decision,
    approver: 'bob',
  });
  assert.equal(asBob.ok ? '' : asBob.reason, 'unauthorized-approver');
});

test('approvers named "constructor", "__proto__" or "toString" have no key (own keys only): unauthorized, never a throw', () => {
  for (const approver of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const claimed = { ...decision, approver };
    const result = checkSignature({
      signatures,
      decision: claimed,
      signature: signed(alice.privateKey, claimed),
      verify: nodeVerify,
    });
    assert.deepEqual(
      result,
      {
        ok: false,
        reason: 'unauthorized-approver',
        message: `${approver} has no approval key for this goal`,
      },
      approver,
    );
  }
});

test('a missing signature is refused, and no verifier means nothing is accepted', () => {
  for (const signature of [undefined, '', '  ']) {
    const result = checkSignature({ signatures, decision, signature, verify: nodeVerify });
    assert.equal(result.ok ? '' : result.reason, 'missing-signature');
  }
  const unverifiable = checkSignature({
    signatures,
    decision,
    signature: signed(alice.privateKey),
    verify: undefined,
  });
  assert.equal(unverifiable.ok, false, 'fails closed without a verifier');
  const throwing = checkSignature({
    signatures,
    decision,
    signature: signed(alice.privateKey),
    verify: () => {
      throw new Error('bad point');
    },
  });
  assert.equal(throwing.ok ? '' : throwing.reason, 'bad-signature');
});

test('decodeBase64 matches Buffer on both alphabets and refuses loose input', () => {
  for (let length = 0; length < 70; length++) {
    const bytes = Buffer.from(Array.from({ length }, (_, index) => (index * 37 + length) & 0xff));
    assert.deepEqual(decodeBase64(bytes.toString('base64')), new Uint8Array(bytes));
    assert.deepEqual(decodeBase64(bytes.toString('base64url')), new Uint8Array(bytes));
  }
  for (const bad of ['a', 'ab!c', 'abc=d', 'ab=', 'QQ==QQ', 'QR=='])
    assert.equal(decodeBase64(bad), undefined, bad);
});
