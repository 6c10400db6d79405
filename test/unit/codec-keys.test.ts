import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys';
import { EncryptionKeysError } from '../../src/codec/encryption-keys-error';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');

test('every listed key decrypts and the last one encrypts', () => {
  const keyring = parseEncryptionKeys(` old-1:${keyA} , new.2:${keyB} `);
  assert.equal(keyring.encryptingKeyId, 'new.2');
  assert.deepEqual([...keyring.keys.keys()], ['old-1', 'new.2']);
  assert.deepEqual(keyring.keys.get('old-1'), Buffer.from(keyA, 'base64'));
});

function parseError(text: string): string {
  try {
    parseEncryptionKeys(text);
  } catch (error) {
    assert.ok(error instanceof EncryptionKeysError, `an EncryptionKeysError, got ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error.message;
  }
  assert.fail(`"${text}" was accepted`);
}

test('malformed values fail with one line that names the entry and never the key', () => {
  const short = randomBytes(16).toString('base64');
  assert.match(parseError(''), /KEEL_ENCRYPTION_KEYS is set but empty/);
  assert.match(parseError(' , '), /set but empty/);
  assert.match(parseError(keyA), /entry 1 is not id:base64key/);
  assert.match(
    parseError(`a:${keyA},b:${short}`),
    /entry 2 \(id "b"\): key must be base64 of exactly 32 bytes \(got 16 bytes\)/,
  );
  assert.match(parseError(`a:not*base64`), /entry 1 \(id "a"\).*\(got not base64\)/);
  assert.match(parseError(`a:${keyA},a:${keyB}`), /entry 2: key id "a" is listed twice/);
  assert.match(parseError(`:${keyA}`), /entry 1: key id must be/);
  assert.match(parseError(`bad id:${keyA}`), /entry 1: key id must be/);
  assert.match(parseError(`a:${keyA},`), /entry 2 is not id:base64key/);
  const message = parseError(`a:${short}`);
  assert.ok(!message.includes(short), 'the key material is not echoed');
});

test('the data converter encrypts only when KEEL_ENCRYPTION_KEYS is set', () => {
  assert.deepEqual(dataConverterFromEnv({}), {});
  const codecs = dataConverterFromEnv({ KEEL_ENCRYPTION_KEYS: `k:${keyA}` }).payloadCodecs ?? [];
  assert.equal(codecs.length, 1);
  assert.ok(codecs[0] instanceof EncryptionCodec);
  assert.throws(() => dataConverterFromEnv({ KEEL_ENCRYPTION_KEYS: 'k:short' }), EncryptionKeysError);
});
