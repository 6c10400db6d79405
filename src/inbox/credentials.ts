import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Approvers' inbox tokens. The inbox keeps only each token's SHA-256 (the approvers file maps a
 * name to `sha256:<hex>`), so the file can be read by the inbox's operator without letting them
 * decide as anyone. A token is 32 random bytes, so a plain hash is enough: there is nothing to
 * guess that a slow hash would protect.
 */

export const INBOX_TOKEN_PREFIX = 'keel-inbox-';
const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

export class InboxSetupError extends Error {
  override name = 'InboxSetupError';
}

/** A new token: printed once to its approver, never stored in clear. */
export function newInboxToken(): string {
  return `${INBOX_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function tokenHash(token: string): string {
  return `sha256:${createHash('sha256').update(token.trim(), 'utf8').digest('hex')}`;
}

const approverTokensSchema = z.record(
  z.string().trim().min(1).max(100),
  z.string().regex(HASH_PATTERN, 'must be sha256:<64 hex digits> (keel keygen --inbox-token NAME writes it)'),
);

/** Approver name → token hash. */
export type ApproverTokens = ReadonlyMap<string, string>;

/**
 * The approvers file's text (`{"alice": "sha256:…"}`) as a map; a mistake is one line naming the
 * file and the entry, never echoing a value (someone may paste a token where its hash belongs).
 */
export function parseApproverTokens(text: string, file: string): ApproverTokens {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InboxSetupError(`${file} is not JSON: it maps approver names to token hashes`);
  }
  const parsed = approverTokensSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `"${String(issue.path[0])}"` : 'the file';
    throw new InboxSetupError(`${file}: ${where} ${issue?.message ?? 'is not valid'}`);
  }
  if (Object.keys(parsed.data).length === 0)
    throw new InboxSetupError(`${file} names no approver (keel keygen --inbox-token NAME adds one)`);
  return new Map(Object.entries(parsed.data));
}

/**
 * The approver a token belongs to, or undefined. Every hash is compared, in constant time, so
 * neither the time taken nor an early return tells how close a guess was or which name matched.
 */
export function approverOfToken(tokens: ApproverTokens, token: string): string | undefined {
  if (token.trim() === '') return undefined;
  const given = Buffer.from(tokenHash(token), 'utf8');
  let found: string | undefined;
  for (const [name, hash] of tokens) {
    const expected = Buffer.from(hash, 'utf8');
    if (expected.length === given.length && timingSafeEqual(expected, given) && found === undefined)
      found = name;
  }
  return found;
}

/** The approvers file's text with this approver's hash added or replaced (keel keygen --inbox-token). */
export function withApproverToken(existing: string | undefined, name: string, hash: string): string {
  const current = existing === undefined ? {} : Object.fromEntries(parseApproverTokens(existing, 'the file'));
  return `${JSON.stringify({ ...current, [name]: hash }, null, 2)}\n`;
}
