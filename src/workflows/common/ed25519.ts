import { ed25519 } from '@noble/curves/ed25519.js';

/**
 * The Ed25519 verifier workflow code uses for signed approvals: @noble/curves, audited and pure
 * JavaScript, so it runs in the workflow sandbox (no Node crypto there) and is deterministic.
 */
export type Ed25519Verify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

export const workflowEd25519Verify: Ed25519Verify | undefined = (signature, message, publicKey) => {
  try {
    return ed25519.verify(signature, message, publicKey);
  } catch {
    return false; // a malformed key or signature is a bad signature, not a workflow task failure
  }
};
