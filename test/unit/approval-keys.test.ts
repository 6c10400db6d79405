import { test } from 'node:test';
import { nodeEd25519Verify } from '../support/node-ed25519';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateApprovalKeyPair, loadSigningKey, signDecision } from '../../src/client/approval-keys';
import { approvalSignaturesSchema, checkSignature } from '../../src/workflows/approvals/approval-authority';
import { makeWorkspace } from './tools-test-helpers';

test('a key pair from keygen signs decisions the workflow check accepts, from a file or PEM text', () => {
  const pair = generateApprovalKeyPair();
  const signatures = approvalSignaturesSchema.parse({ scheme: 'ed25519', keys: { alice: pair.publicKey } });
  const directory = makeWorkspace('keel-key-');
  const file = path.join(directory, 'alice.pem');
  writeFileSync(file, pair.privateKeyPem);
  const decision = { workflowId: 'goal-1', callId: 'toolu_1', approved: false, approver: 'alice' };
  for (const source of [file, pair.privateKeyPem]) {
    const signature = signDecision(loadSigningKey(source), decision);
    const result = checkSignature({
      signatures,
      decision,
      signature,
      verify: nodeEd25519Verify,
    });
    assert.deepEqual(result, { ok: true });
  }
  rmSync(directory, { recursive: true, force: true });
});

test('loadSigningKey refuses what is not an Ed25519 private key, in one line', () => {
  assert.throws(
    () => loadSigningKey('/no/such/key.pem'),
    /cannot read signing key file \/no\/such\/key\.pem \(ENOENT\)/,
  );
  assert.throws(
    () => loadSigningKey('-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----'),
    /not a PEM private key/,
  );
});
