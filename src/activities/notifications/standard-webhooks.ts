import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures as the Standard Webhooks spec defines them
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md,
 * https://www.standardwebhooks.com/verify): three headers, `webhook-id` (the message's id, the
 * same on every retry, so a receiver can drop duplicates), `webhook-timestamp` (seconds since the
 * epoch, so it can refuse old messages) and `webhook-signature`, `v1,` and the base64
 * HMAC-SHA256 of `id.timestamp.body` under the shared secret. A secret is `whsec_` and the base64
 * of its bytes (the spec's form); keel also takes any other text as its UTF-8 bytes.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The spec asks for secrets of 24 to 64 random bytes. */
export const MIN_WEBHOOK_SECRET_BYTES = 24;
/** How old a timestamp a receiver takes by default (the spec's suggestion: five minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The key bytes of a secret; a short one is refused with one line that never repeats it. */
export function webhookSecretBytes(secret: string): Buffer {
  const text = secret.trim();
  const bytes = text.startsWith(WEBHOOK_SECRET_PREFIX)
    ? Buffer.from(text.slice(WEBHOOK_SECRET_PREFIX.length), 'base64')
    : Buffer.from(text, 'utf8');
  if (bytes.length < MIN_WEBHOOK_SECRET_BYTES) {
    throw new RangeError(`must be at least ${MIN_WEBHOOK_SECRET_BYTES} bytes, got ${bytes.length}`);
  }
  return bytes;
}

export function webhookSignature(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export function signedWebhookHeaders(
  key: Buffer,
  message: { id: string; timestampSeconds: number; body: string },
): WebhookHeaders {
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestampSeconds),
    'webhook-signature': webhookSignature(key, message.id, message.timestampSeconds, message.body),
  };
}

export type WebhookCheck =
  | { ok: true; id: string; timestampSeconds: number }
  | { ok: false; reason: 'missing-headers' | 'bad-timestamp' | 'too-old' | 'too-new' | 'bad-signature' };

/**
 * A receiver's check, for keel's tests and for anyone receiving keel's webhooks in TypeScript:
 * the timestamp within `toleranceSeconds` of now (either way), then any of the space-separated
 * `v1,` signatures matching, compared in constant time. The id is returned so the receiver can
 * refuse one it has seen.
 */
export function verifyWebhook(
  key: Buffer,
  headers: Partial<Record<keyof WebhookHeaders, string | undefined>>,
  body: string,
  options: { nowSeconds: number; toleranceSeconds?: number },
): WebhookCheck {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return { ok: false, reason: 'missing-headers' };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'bad-timestamp' };
  const timestampSeconds = Number(timestamp);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (timestampSeconds < options.nowSeconds - tolerance) return { ok: false, reason: 'too-old' };
  if (timestampSeconds > options.nowSeconds + tolerance) return { ok: false, reason: 'too-new' };
  const expected = Buffer.from(webhookSignature(key, id, timestampSeconds, body), 'utf8');
  const matches = signatures.split(' ').some((given) => {
    const bytes = Buffer.from(given, 'utf8');
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  });
  return matches ? { ok: true, id, timestampSeconds } : { ok: false, reason: 'bad-signature' };
}
