/** A payload names a key id that KEEL_ENCRYPTION_KEYS does not list (removed too early, or a typo). */
export class UnknownEncryptionKeyError extends Error {
  override readonly name = 'UnknownEncryptionKeyError';

  constructor(
    readonly keyId: string,
    knownKeyIds: readonly string[],
  ) {
    super(
      `payload is encrypted with key id "${keyId}", which KEEL_ENCRYPTION_KEYS does not list (it lists: ${knownKeyIds.join(', ')}); add that key back to decrypt it`,
    );
  }
}
