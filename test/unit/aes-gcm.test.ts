import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decrypt, encrypt } from '../../src/codec/aes-gcm';

const key = randomBytes(32);

test('sealed data shorter than a 12-byte nonce and a 16-byte tag (27 bytes) is refused, saying so; 28 bytes is an empty plaintext', () => {
  assert.throws(() => decrypt(new Uint8Array(27), key), {
    message: 'ciphertext is 27 bytes, shorter than a nonce and a tag',
  });
  const empty = encrypt(new Uint8Array(0), key);
  assert.equal(empty.length, 28);
  assert.deepEqual(decrypt(empty, key), Buffer.alloc(0));
});

test('sealed bytes are read where they are: a view into a larger buffer (offset 5) decrypts', () => {
  const sealed = encrypt(Buffer.from('payload'), key);
  const larger = new Uint8Array(sealed.length + 10);
  larger.set(sealed, 5);
  assert.equal(decrypt(larger.subarray(5, 5 + sealed.length), key).toString(), 'payload');
});
