import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import {
  approverAllowed,
  approversSchema,
  approvalSignaturesSchema,
  canonicalDecisionText,
  checkSignature,
} from '../../src/workflows/approvals/approval-authority';

function keyPair(): { privateKey: KeyObject; publicKey: string } {
  const pair = generateKeyPairSync('ed25519');
  const x = pair.publicKey.export({ format: 'jwk' }).x ?? '';
  return { privateKey: pair.privateKey, publicKey: Buffer.from(x, 'base64url').toString('base64') };
}

const alice = keyPair();
const signatures = approvalSignaturesSchema.parse({ scheme: 'ed25519', keys: { alice: alice.publicKey } });
const decision = { workflowId: 'goal-1', callId: 'toolu_1', approved: true, approver: 'alice' };
const signature = sign(null, Buffer.from(canonicalDecisionText(decision)), alice.privateKey).toString(
  'base64',
);

test('approver names are trimmed, and a blank name (in a tier list or as a key) is refused', () => {
  assert.deepEqual(approversSchema.parse({ irreversible: ['  alice '] }).irreversible, ['alice']);
  assert.throws(() => approversSchema.parse({ irreversible: ['  '] }));
  assert.throws(() => approvalSignaturesSchema.parse({ scheme: 'ed25519', keys: { ' ': alice.publicKey } }));
});

test('each tier has its own list: bob may decide irreversible calls only, alice mutating ones only', () => {
  const policy = approversSchema.parse({ mutating: ['alice'], irreversible: ['bob'] });
  assert.equal(approverAllowed(policy, 'mutating', 'alice'), true);
  assert.equal(approverAllowed(policy, 'mutating', 'bob'), false);
  assert.equal(approverAllowed(policy, 'irreversible', 'bob'), true);
  assert.equal(approverAllowed(policy, 'irreversible', 'alice'), false);
});

test('refusals say exactly why: no signature, no verifier, a signature of 63 or 65 bytes', () => {
  assert.deepEqual(checkSignature({ signatures, decision, signature: undefined, verify: () => true }), {
    ok: false,
    reason: 'missing-signature',
    message: 'this goal requires a signed decision',
  });
  assert.deepEqual(checkSignature({ signatures, decision, signature, verify: undefined }), {
    ok: false,
    reason: 'bad-signature',
    message: 'signature cannot be checked: this worker has no Ed25519 verifier',
  });
  for (const length of [63, 65]) {
    const wrong = Buffer.alloc(length, 1).toString('base64');
    assert.deepEqual(
      checkSignature({ signatures, decision, signature: wrong, verify: () => true }),
      { ok: false, reason: 'bad-signature', message: 'signature is not base64 of 64 bytes' },
      `${length} bytes`,
    );
  }
  assert.deepEqual(checkSignature({ signatures, decision, signature, verify: () => false }), {
    ok: false,
    reason: 'bad-signature',
    message: "signature does not match alice's key for this decision",
  });
});
