/**
 * The Ed25519 verifier workflow code uses for signed approvals. It must be pure JavaScript and
 * deterministic (the workflow sandbox has no Node crypto), e.g. `ed25519.verify` from
 * `@noble/curves`. That package is not a dependency yet, so there is no verifier: goals that
 * require signatures refuse every decision (fail closed) until it is wired in here:
 *
 *   import { ed25519 } from '@noble/curves/ed25519.js';
 *   export const workflowEd25519Verify: Ed25519Verify | undefined = (signature, message, publicKey) =>
 *     ed25519.verify(signature, message, publicKey);
 */
export type Ed25519Verify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

export const workflowEd25519Verify: Ed25519Verify | undefined = undefined;
