/** KEEL_ENCRYPTION_KEYS cannot be used; the message is one line and never contains key material. */
export class EncryptionKeysError extends Error {
  override readonly name = 'EncryptionKeysError';
}
