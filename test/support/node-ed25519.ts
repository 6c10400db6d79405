import { createPublicKey, verify } from 'node:crypto';
import type { Ed25519Verify } from '../../src/workflows/common/ed25519';

/** Node's own Ed25519 check, for tests of signed decisions beside the workflow's verifier. */
export const nodeEd25519Verify: Ed25519Verify = (signature, message, key) =>
  verify(
    null,
    message,
    createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key).toString('base64url') },
      format: 'jwk',
    }),
    signature,
  );
