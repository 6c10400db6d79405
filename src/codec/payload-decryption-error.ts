/**
 * An encrypted payload failed authentication: the key listed under its id is not the one it was
 * encrypted with, or the stored bytes were altered. GCM refuses both; nothing is returned.
 */
export class PayloadDecryptionError extends Error {
  override readonly name = 'PayloadDecryptionError';

  constructor(
    readonly keyId: string,
    detail: string,
  ) {
    super(`payload encrypted with key id "${keyId}" could not be decrypted: ${detail}`);
  }
}
