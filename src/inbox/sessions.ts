import { randomBytes } from 'node:crypto';
import type { DecisionLinkClaims } from '../client/decision-link';

/**
 * The inbox's sessions, in memory: a restart logs everyone out, which costs a token paste and
 * keeps no session secret on disk. The cookie carries only the session's random id; it is
 * HttpOnly (no script reads it) and SameSite=Strict (no other site's page sends it).
 */

export const SESSION_COOKIE = 'keel_inbox_session';
export const SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;

export interface Session {
  id: string;
  /** The token every form of this session carries (cross-site.ts). */
  csrf: string;
  /** Who is signed in; absent before logging in (the login form has a session too). */
  approver?: string;
  /** How they proved it: their token, or a decision link (which decides its one call only). */
  via?: 'token' | 'link';
  link?: DecisionLinkClaims;
  expiresAt: number;
}

export class Sessions {
  private readonly byId = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  create(fields: Pick<Session, 'approver' | 'via' | 'link'> = {}, lifetimeMs = SESSION_LIFETIME_MS): Session {
    this.prune();
    const session: Session = {
      id: randomBytes(32).toString('base64url'),
      csrf: randomBytes(32).toString('base64url'),
      ...fields,
      // A link's session ends with the link.
      expiresAt: Math.min(this.now() + lifetimeMs, fields.link?.expiresAt ?? Infinity),
    };
    this.byId.set(session.id, session);
    return session;
  }

  get(id: string | undefined): Session | undefined {
    if (id === undefined) return undefined;
    const session = this.byId.get(id);
    if (session === undefined) return undefined;
    if (this.now() >= session.expiresAt) {
      this.byId.delete(id);
      return undefined;
    }
    return session;
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  private prune(): void {
    const now = this.now();
    for (const [id, session] of this.byId) if (now >= session.expiresAt) this.byId.delete(id);
  }
}

export function sessionCookie(session: Session, nowMs: number = Date.now()): string {
  const maxAge = Math.max(0, Math.floor((session.expiresAt - nowMs) / 1000));
  return `${SESSION_COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}`;
}

export const CLEARED_SESSION_COOKIE = `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
