/**
 * Metadata the encryption codec adds to a payload it decrypted, so keel's payload converter can
 * mark what arrived encrypted (payload-converter.ts). Its own file: the converter runs in the
 * workflow bundle, which must not load the codec's node:crypto.
 */
export const METADATA_DECRYPTED = 'keel-decrypted';
