import { EncryptionKeysError } from './encryption-keys-error';

export const ENCRYPTION_KEYS_VARIABLE = 'KEEL_ENCRYPTION_KEYS';
export const KEY_BYTES = 32; // AES-256

/** Every key that may decrypt, and the one new payloads are encrypted with. */
export interface EncryptionKeyring {
  readonly encryptingKeyId: string;
  readonly keys: ReadonlyMap<string, Buffer>;
}

// Ids travel in payload metadata and in error messages: keep them short and printable.
const KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Parses `id1:base64key,id2:base64key`. The LAST entry encrypts; every entry decrypts, so a
 * rotation appends the new key and keeps the old ones for as long as their payloads are kept.
 * Errors name the entry and the id but never echo key material.
 */
export function parseEncryptionKeys(text: string): EncryptionKeyring {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => entry === '')) {
    throw new EncryptionKeysError(
      `${ENCRYPTION_KEYS_VARIABLE} is set but empty: unset it to turn encryption off, or list keys as id:base64key[,id:base64key...]`,
    );
  }
  const keys = new Map<string, Buffer>();
  let encryptingKeyId = '';
  entries.forEach((entry, index) => {
    const where = `${ENCRYPTION_KEYS_VARIABLE} entry ${index + 1}`;
    const separator = entry.indexOf(':');
    if (separator < 0) throw new EncryptionKeysError(`${where} is not id:base64key`);
    const id = entry.slice(0, separator).trim();
    const encoded = entry.slice(separator + 1).trim();
    if (!KEY_ID.test(id)) {
      throw new EncryptionKeysError(
        `${where}: key id must be 1-64 letters, digits, ".", "_" or "-" (starting with a letter or digit)`,
      );
    }
    if (keys.has(id)) throw new EncryptionKeysError(`${where}: key id "${id}" is listed twice`);
    const key = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
    if (key?.length !== KEY_BYTES) {
      const got = key ? `${key.length} bytes` : 'not base64';
      throw new EncryptionKeysError(
        `${where} (id "${id}"): key must be base64 of exactly ${KEY_BYTES} bytes (got ${got}); generate one with: openssl rand -base64 32`,
      );
    }
    keys.set(id, key);
    encryptingKeyId = id;
  });
  return { encryptingKeyId, keys };
}

/** The keyring from the environment; undefined (encryption off) when the variable is unset. */
export function encryptionKeysFromEnv(env: NodeJS.ProcessEnv): EncryptionKeyring | undefined {
  const text = env[ENCRYPTION_KEYS_VARIABLE];
  return text === undefined ? undefined : parseEncryptionKeys(text);
}
