import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec';
import { encryptionKeysFromEnv } from './encryption-keys';

/** The module whose `failureConverter` moves failure messages into encrypted payloads. */
export const ENCRYPTING_FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');
/** The module whose `payloadConverter` marks what arrived encrypted (payload-converter.ts). */
export const ARRIVAL_MARKING_PAYLOAD_CONVERTER_PATH = require.resolve('./payload-converter');

/**
 * The one data converter every keel worker, client and replay uses, so none of them can be left
 * writing plain text (or unable to read) while the others encrypt. With KEEL_ENCRYPTION_KEYS unset
 * it is the SDK default; a malformed value throws EncryptionKeysError (one line) at start-up.
 * A workflow bundle built ahead must be built with the same `failureConverterPath` and
 * `payloadConverterPath`.
 */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter {
  const keyring = encryptionKeysFromEnv(env);
  return keyring
    ? {
        payloadCodecs: [new EncryptionCodec(keyring)],
        failureConverterPath: ENCRYPTING_FAILURE_CONVERTER_PATH,
        payloadConverterPath: ARRIVAL_MARKING_PAYLOAD_CONVERTER_PATH,
      }
    : {};
}
