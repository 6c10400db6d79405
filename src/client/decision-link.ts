import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Signed one-time decision links (issue 46): a notification carries a link to the inbox that lets
 * one approver decide one waiting call until it expires. The token is
 * `base64url(JSON claims).base64url(HMAC-SHA256(secret, first part))`; the worker that sends the
 * notification and the inbox that takes the decision share the secret (KEEL_INBOX_SECRET). The
 * nonce makes each link unique, so the inbox can refuse one used before (a replay).
 */

export const DECISION_LINK_SECRET_ENV = 'KEEL_INBOX_SECRET';
/** An HMAC-SHA256 key shorter than its 32-byte output is guessable; refuse it. */
export const MIN_SECRET_BYTES = 32;
export const DEFAULT_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

const claimsSchema = z
  .object({
    goalId: z.string().min(1),
    callId: z.string().min(1),
    approver: z.string().min(1),
    /** Milliseconds since the epoch after which the link decides nothing. */
    expiresAt: z.number().int().positive(),
    nonce: z.string().min(16),
  })
  .strict();

export type DecisionLinkClaims = z.infer<typeof claimsSchema>;

export type DecisionLinkCheck =
  { ok: true; claims: DecisionLinkClaims } | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' };

export class DecisionLinkSecretError extends Error {
  override name = 'DecisionLinkSecretError';
}

/** The secret as bytes; a missing or short one is one clear line, not a weak link. */
export function decisionLinkSecret(text: string | undefined): Buffer {
  if (text === undefined || text.trim() === '') {
    throw new DecisionLinkSecretError(`${DECISION_LINK_SECRET_ENV} is not set`);
  }
  const bytes = Buffer.from(text.trim(), 'utf8');
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new DecisionLinkSecretError(
      `${DECISION_LINK_SECRET_ENV} must be at least ${MIN_SECRET_BYTES} bytes, got ${bytes.length}`,
    );
  }
  return bytes;
}

/** A new random secret, printable (base64url of 32 random bytes: 43 characters). */
export function newDecisionLinkSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function signDecisionLink(
  claims: Omit<DecisionLinkClaims, 'nonce'> & { nonce?: string },
  secret: Buffer,
): string {
  const full = claimsSchema.parse({
    ...claims,
    nonce: claims.nonce ?? randomBytes(16).toString('base64url'),
  });
  const body = Buffer.from(JSON.stringify(full), 'utf8').toString('base64url');
  return `${body}.${mac(body, secret)}`;
}

/** Checks signature first (nothing unsigned is parsed as claims), then the expiry. */
export function verifyDecisionLink(token: string, secret: Buffer, nowMs: number): DecisionLinkCheck {
  const parts = token.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return { ok: false, reason: 'malformed' };
  const [body, signature] = parts as [string, string];
  const expected = Buffer.from(mac(body, secret), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { ok: false, reason: 'bad-signature' };
  }
  let claims: DecisionLinkClaims;
  try {
    claims = claimsSchema.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (nowMs >= claims.expiresAt) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

/** The inbox page that opens the call with the link's approver: `<inbox>/decide?link=<token>`. */
export function decisionLinkUrl(inboxUrl: string, token: string): string {
  const url = new URL('decide', inboxUrl.endsWith('/') ? inboxUrl : `${inboxUrl}/`);
  url.searchParams.set('link', token);
  return url.toString();
}

function mac(body: string, secret: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('base64url');
}
