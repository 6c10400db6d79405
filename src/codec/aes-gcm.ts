import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const NONCE_BYTES = 12; // GCM's standard nonce size; random per payload, never reused with a key
const TAG_BYTES = 16;

/**
 * AES-256-GCM as nonce ‖ ciphertext ‖ tag: the layout the Temporal encryption samples use (WebCrypto
 * appends the tag), so their codec servers and keel's can read each other's payloads.
 */
export function encrypt(plaintext: Uint8Array, key: Buffer): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, nonce, { authTagLength: TAG_BYTES });
  return Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/** Throws when the data is too short or fails authentication (wrong key, altered bytes). */
export function decrypt(sealed: Uint8Array, key: Buffer): Buffer {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) {
    throw new Error(`ciphertext is ${sealed.length} bytes, shorter than a nonce and a tag`);
  }
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.length);
  const nonce = bytes.subarray(0, NONCE_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  const decipher = createDecipheriv(ALGORITHM, key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  return Buffer.concat([
    decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
    decipher.final(),
  ]);
}
