import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  METADATA_ENCRYPTION_KEY_ID,
} from '../../src/codec/encryption-codec';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys';
import { PayloadDecryptionError } from '../../src/codec/payload-decryption-error';
import { UnknownEncryptionKeyError } from '../../src/codec/unknown-encryption-key-error';

const oldKey = randomBytes(32).toString('base64');
const newKey = randomBytes(32).toString('base64');
const SECRET = { goal: 'SECRET-MARKER-7f3a: read the payroll file', output: 'salary 123' };

const codecWith = (keys: string) => new EncryptionCodec(parseEncryptionKeys(keys));
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
const plain = (): Payload => defaultPayloadConverter.toPayload(SECRET);

test('a payload round-trips, and what is stored shows neither the data nor its encoding', async () => {
  const codec = codecWith(`k1:${oldKey}`);
  const [encrypted] = await codec.encode([plain()]);
  assert.ok(encrypted);
  assert.equal(text(encrypted.metadata?.encoding), ENCRYPTED_ENCODING);
  assert.equal(text(encrypted.metadata?.[METADATA_ENCRYPTION_KEY_ID]), 'k1');
  const stored =
    JSON.stringify(encrypted) + text(encrypted.data) + Buffer.from(encrypted.data ?? []).toString('base64');
  assert.ok(!stored.includes('SECRET-MARKER'), 'no plain text');
  assert.ok(!stored.includes('json/plain'), 'the inner encoding is encrypted too');
  const [decoded] = await codec.decode([encrypted]);
  assert.ok(decoded);
  assert.deepEqual(defaultPayloadConverter.fromPayload(decoded), SECRET);
  assert.equal(text(decoded.metadata?.encoding), 'json/plain');
});

test('two encryptions of the same payload differ (a fresh nonce each time)', async () => {
  const codec = codecWith(`k1:${oldKey}`);
  const [first, second] = await codec.encode([plain(), plain()]);
  assert.notDeepEqual(first?.data, second?.data);
});

test('rotation: old payloads still decrypt after a new key is added, and new ones use the new key', async () => {
  const [fromBefore] = await codecWith(`old:${oldKey}`).encode([plain()]);
  assert.ok(fromBefore);
  const rotated = codecWith(`old:${oldKey},new:${newKey}`);
  const [decoded] = await rotated.decode([fromBefore]);
  assert.ok(decoded);
  assert.deepEqual(defaultPayloadConverter.fromPayload(decoded), SECRET);
  const [fromAfter] = await rotated.encode([plain()]);
  assert.equal(text(fromAfter?.metadata?.[METADATA_ENCRYPTION_KEY_ID]), 'new');
  // Proof the new payload really needs the new key: the old keyring alone cannot read it.
  await assert.rejects(codecWith(`old:${oldKey}`).decode([fromAfter as Payload]), UnknownEncryptionKeyError);
});

test('a payload under a key id that is no longer listed fails with one error naming that id', async () => {
  const [encrypted] = await codecWith(`gone:${oldKey}`).encode([plain()]);
  await assert.rejects(codecWith(`kept:${newKey}`).decode([encrypted as Payload]), (error: unknown) => {
    assert.ok(error instanceof UnknownEncryptionKeyError);
    assert.equal(error.keyId, 'gone');
    assert.match(error.message, /key id "gone", which KEEL_ENCRYPTION_KEYS does not list \(it lists: kept\)/);
    return true;
  });
});

test('altered ciphertext, or other key material under the same id, fails authentication', async () => {
  const codec = codecWith(`k1:${oldKey}`);
  const [encrypted] = await codec.encode([plain()]);
  assert.ok(encrypted?.data);
  const tampered = Buffer.from(encrypted.data);
  tampered[20] = (tampered[20] ?? 0) ^ 0x01;
  const expected = (error: unknown) =>
    error instanceof PayloadDecryptionError && /key id "k1" could not be decrypted/.test(error.message);
  await assert.rejects(codec.decode([{ ...encrypted, data: tampered }]), expected);
  await assert.rejects(codecWith(`k1:${newKey}`).decode([encrypted]), expected);
  await assert.rejects(codec.decode([{ ...encrypted, data: tampered.subarray(0, 10) }]), expected);
});

test('payloads that were never encrypted pass through decode unchanged', async () => {
  const payload = plain();
  const [decoded] = await codecWith(`k1:${oldKey}`).decode([payload]);
  assert.equal(decoded, payload);
});
