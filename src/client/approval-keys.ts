import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  canonicalDecisionText,
  canonicalRuleChangeText,
  type SignedDecision,
  type SignedRuleChange,
} from '../workflows/approvals/approval-authority';

/**
 * Client side of signed approvals: Ed25519 key pairs, and signatures over the canonical decision
 * text the workflow verifies. The private key stays with the approver (a PEM file, or the
 * KEEL_APPROVAL_KEY environment variable); only the public key goes into goal input.
 */

export interface ApprovalKeyPair {
  /** PKCS#8 PEM: keep it private (`keel keygen` writes it with mode 0600). */
  privateKeyPem: string;
  /** Base64 raw 32-byte public key, as goal input `approvalSignatures.keys` wants it. */
  publicKey: string;
}

export function generateApprovalKeyPair(): ApprovalKeyPair {
  const pair = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey: rawPublicKey(pair.publicKey),
  };
}

/** The base64 raw public key of an Ed25519 key (private or public). */
export function rawPublicKey(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const x = publicKey.export({ format: 'jwk' }).x;
  if (!x) throw new Error('not an Ed25519 key');
  return Buffer.from(x, 'base64url').toString('base64');
}

/**
 * Reads a private signing key: PEM text itself (e.g. the value of KEEL_APPROVAL_KEY) or the path
 * of a PEM file. Anything but an Ed25519 private key is refused with one clear line.
 */
export function loadSigningKey(pemOrPath: string): KeyObject {
  const pem = pemOrPath.trimStart().startsWith('-----BEGIN') ? pemOrPath : readKeyFile(pemOrPath);
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error('the signing key is not a PEM private key (make one with `keel keygen`)');
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`the signing key is ${key.asymmetricKeyType ?? 'unknown'}, not Ed25519`);
  }
  return key;
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(`cannot read signing key file ${file} (${code})`, { cause: error });
  }
}

/** The base64 signature a decision payload carries as `signature`. */
export function signDecision(key: KeyObject, decision: SignedDecision): string {
  return sign(null, Buffer.from(canonicalDecisionText(decision), 'utf8'), key).toString('base64');
}

/** The base64 signature of a rule added or revoked on its own (`keel rules … --sign-key`). */
export function signRuleChange(key: KeyObject, change: SignedRuleChange): string {
  return sign(null, Buffer.from(canonicalRuleChangeText(change), 'utf8'), key).toString('base64');
}
