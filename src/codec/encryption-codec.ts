import { METADATA_DECRYPTED } from './encryption-codec-metadata';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { decrypt, encrypt } from './aes-gcm';
import type { EncryptionKeyring } from './encryption-keys';
import { PayloadDecryptionError } from './payload-decryption-error';
import { UnknownEncryptionKeyError } from './unknown-encryption-key-error';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';
export const METADATA_ENCRYPTION_CIPHER = 'encryption-cipher';
export const CIPHER_NAME = 'AES/GCM/NoPadding'; // the name the other SDKs' samples record

const text = new TextEncoder();
const untext = new TextDecoder();

/**
 * Encrypts each whole payload (its metadata too, so not even the inner encoding shows) with the
 * keyring's encrypting key. The outer metadata says only that it is encrypted and with which key
 * id, so rotation needs no re-encryption: old payloads name their old key.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keyring: EncryptionKeyring) {}

  // Both run inside a promise executor so a failure is a rejection, never a synchronous throw.
  encode(payloads: Payload[]): Promise<Payload[]> {
    return new Promise((resolve) => resolve(payloads.map((payload) => this.encodeOne(payload))));
  }

  /** Payloads that are not ours (e.g. written before encryption was turned on) pass through. */
  decode(payloads: Payload[]): Promise<Payload[]> {
    return new Promise((resolve) => resolve(payloads.map((payload) => this.decodeOne(payload))));
  }

  private encodeOne(payload: Payload): Payload {
    const keyId = this.keyring.encryptingKeyId;
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: text.encode(ENCRYPTED_ENCODING),
        [METADATA_ENCRYPTION_KEY_ID]: text.encode(keyId),
        [METADATA_ENCRYPTION_CIPHER]: text.encode(CIPHER_NAME),
      },
      data: encrypt(temporal.api.common.v1.Payload.encode(payload).finish(), this.keyFor(keyId)),
    };
  }

  private decodeOne(payload: Payload): Payload {
    const metadata = payload.metadata ?? {};
    const encoding = metadata[METADATA_ENCODING_KEY];
    if (!encoding || untext.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const keyIdBytes = metadata[METADATA_ENCRYPTION_KEY_ID];
    if (!keyIdBytes)
      throw new PayloadDecryptionError('(none)', `no ${METADATA_ENCRYPTION_KEY_ID} in its metadata`);
    const keyId = untext.decode(keyIdBytes);
    const key = this.keyFor(keyId);
    let plaintext: Buffer;
    try {
      plaintext = decrypt(payload.data ?? new Uint8Array(), key);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new PayloadDecryptionError(
        keyId,
        `${reason} (the key listed under this id is not the one it was encrypted with, or the stored bytes were altered)`,
      );
    }
    const inner = temporal.api.common.v1.Payload.decode(plaintext);
    // Marked, so the workflow can tell what arrived encrypted (payload-converter.ts).
    return { ...inner, metadata: { ...inner.metadata, [METADATA_DECRYPTED]: text.encode('1') } };
  }

  private keyFor(keyId: string): Buffer {
    const key = this.keyring.keys.get(keyId);
    if (!key) throw new UnknownEncryptionKeyError(keyId, [...this.keyring.keys.keys()]);
    return key;
  }
}
