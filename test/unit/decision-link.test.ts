import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decisionLinkSecret,
  decisionLinkUrl,
  newDecisionLinkSecret,
  signDecisionLink,
  verifyDecisionLink,
} from '../../src/client/decision-link';

const secret = decisionLinkSecret(newDecisionLinkSecret());
const claims = { goalId: 'goal-1', callId: 'call-7', approver: 'alice', expiresAt: 2_000 };

test('a signed link verifies with its claims until it expires', () => {
  const token = signDecisionLink(claims, secret);
  const check = verifyDecisionLink(token, secret, 1_999);
  assert.ok(check.ok);
  assert.equal(check.claims.callId, 'call-7');
  assert.equal(check.claims.approver, 'alice');
  assert.deepEqual(verifyDecisionLink(token, secret, 2_000), { ok: false, reason: 'expired' });
});

test('each link is unique: two links for one call differ in their nonce', () => {
  const first = verifyDecisionLink(signDecisionLink(claims, secret), secret, 0);
  const second = verifyDecisionLink(signDecisionLink(claims, secret), secret, 0);
  assert.ok(first.ok && second.ok);
  assert.notEqual(first.claims.nonce, second.claims.nonce);
});

test('a link signed with another secret, or with its claims changed, is refused', () => {
  const token = signDecisionLink(claims, secret);
  const other = decisionLinkSecret(newDecisionLinkSecret());
  assert.deepEqual(verifyDecisionLink(token, other, 0), { ok: false, reason: 'bad-signature' });
  const [body, signature] = token.split('.') as [string, string];
  const forged = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  forged.approver = 'mallory';
  const forgedBody = Buffer.from(JSON.stringify(forged)).toString('base64url');
  assert.deepEqual(verifyDecisionLink(`${forgedBody}.${signature}`, secret, 0), {
    ok: false,
    reason: 'bad-signature',
  });
  assert.deepEqual(verifyDecisionLink('not-a-token', secret, 0), { ok: false, reason: 'malformed' });
  assert.deepEqual(verifyDecisionLink(`${body}.`, secret, 0), { ok: false, reason: 'malformed' });
});

test('a missing or short secret is one clear line', () => {
  assert.throws(() => decisionLinkSecret(undefined), /KEEL_INBOX_SECRET is not set/);
  assert.throws(() => decisionLinkSecret('short'), /at least 32 bytes, got 5/);
});

test('the link opens the inbox decide page, under a path prefix too', () => {
  assert.equal(decisionLinkUrl('http://127.0.0.1:7300', 'a.b'), 'http://127.0.0.1:7300/decide?link=a.b');
  assert.equal(decisionLinkUrl('https://x.example/keel/', 'a.b'), 'https://x.example/keel/decide?link=a.b');
});
