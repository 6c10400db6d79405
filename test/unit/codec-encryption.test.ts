import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecipheriv, randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { decrypt, encrypt } from '../../src/codec/aes-gcm';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  METADATA_ENCRYPTION_CIPHER,
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

/**
 * Test Case 15 of the GCM specification (McGrew and Viega, "The Galois/Counter Mode of
 * Operation"): AES-256, a 96-bit IV, no additional data. Any AES-GCM implementation gives these
 * bytes, so a payload laid out as nonce ‖ ciphertext ‖ tag is readable by the other SDKs' codecs.
 */
const gcm15 = {
  key: Buffer.from('feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308', 'hex'),
  nonce: Buffer.from('cafebabefacedbaddecaf888', 'hex'),
  plaintext: Buffer.from(
    'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72' +
      '1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255',
    'hex',
  ),
  ciphertext: Buffer.from(
    '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa' +
      '8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad',
    'hex',
  ),
  tag: Buffer.from('b094dac5d93471bdec1a502270e3cc6c', 'hex'),
};

test('AES-256-GCM known answer (GCM spec test case 15): 12-byte nonce, then the ciphertext, then the 16-byte tag', () => {
  const sealed = Buffer.concat([gcm15.nonce, gcm15.ciphertext, gcm15.tag]);
  assert.deepEqual(decrypt(sealed, gcm15.key), gcm15.plaintext);
  // keel's own output splits the same way, read here with node's AES-GCM directly.
  const own = encrypt(gcm15.plaintext, gcm15.key);
  assert.equal(own.length, 12 + gcm15.plaintext.length + 16);
  const decipher = createDecipheriv('aes-256-gcm', gcm15.key, own.subarray(0, 12));
  decipher.setAuthTag(own.subarray(own.length - 16));
  const opened = Buffer.concat([decipher.update(own.subarray(12, own.length - 16)), decipher.final()]);
  assert.deepEqual(opened, gcm15.plaintext);
});

test("a payload sealed as Temporal's encryption samples seal it (binary/encrypted, key id, nonce ‖ AES-GCM(Payload proto) ‖ tag) decodes: a fixed vector", async () => {
  // The Payload {encoding: json/plain, data: "hello"}, its protobuf bytes sealed under gcm15's
  // key and nonce; the bytes are fixed, so a layout changed on both sides fails here.
  const sealed = Buffer.from(
    'cafebabefacedbaddecaf888810af9dd04bc188d354f5001977b0e948df30affc6b05e7d49d3b0e8' +
      'ca0837b7b25192136f58eb84618d1bcce8fc51aaab',
    'hex',
  );
  const codec = codecWith(`sample-key:${gcm15.key.toString('base64')}`);
  const [decoded] = await codec.decode([
    {
      metadata: {
        encoding: Buffer.from(ENCRYPTED_ENCODING),
        [METADATA_ENCRYPTION_KEY_ID]: Buffer.from('sample-key'),
      },
      data: sealed,
    },
  ]);
  assert.ok(decoded);
  assert.equal(text(decoded.metadata?.encoding), 'json/plain');
  assert.equal(defaultPayloadConverter.fromPayload(decoded), 'hello');
  // And what keel writes names the cipher as the samples do.
  const [encoded] = await codec.encode([decoded]);
  assert.equal(text(encoded?.metadata?.[METADATA_ENCRYPTION_CIPHER]), 'AES/GCM/NoPadding');
});
