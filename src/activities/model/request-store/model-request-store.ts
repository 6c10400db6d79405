import { createHash } from 'node:crypto';
import { z } from 'zod';
import { transcriptMessageSchema } from '../../../workflows/common/transcript';

/**
 * A goal's last model requests, kept by the worker so the next turn's activity input can name the
 * earlier part of its request instead of carrying the whole transcript (a claim check; see
 * nextModelRequest in the workflow). It is a cache, not a record: the workflow never reads it,
 * replay never needs it, and a request it no longer has is sent whole once more. So a store keeps
 * only what the next turn may extend — the newest request of each goal and the one it extended
 * (a retried activity extends that one) — and forgets goals idle for a week.
 */
export interface ModelRequestStore {
  /** Stores a request with its answer and returns its key; forgets the goal's older requests. */
  put(request: StoredRequest): Promise<string>;
  /** The request stored under `key`, or undefined when the store does not have it. */
  get(key: string): Promise<StoredRequest | undefined>;
  close(): Promise<void>;
  /** For the worker's start line. */
  readonly description: string;
}

export const STORED_REQUEST_VERSION = 1;

export const storedRequestSchema = z.object({
  version: z.literal(STORED_REQUEST_VERSION),
  goalId: z.string(),
  /** The key of the request this one extended, kept until the next one is stored. */
  base: z.string().optional(),
  system: z.string(),
  tools: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      input_schema: z.looseObject({ type: z.literal('object') }),
    }),
  ),
  /** The request's messages and, last, the model's answer. */
  messages: z.array(transcriptMessageSchema),
});
export type StoredRequest = z.infer<typeof storedRequestSchema>;

/** Requests idle this long are forgotten (a goal waiting longer sends its next request whole). */
export const STORED_REQUEST_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** `<goal part>/<content part>`: a hash of the goal id (any characters) and of the request. */
const KEY_PATTERN = /^([0-9a-f]{32})\/([0-9a-f]{64})$/;

export function goalPartOf(goalId: string): string {
  return createHash('sha256').update(goalId).digest('hex').slice(0, 32);
}

/** The request's key and its serialized form (the key is the content's hash: a retry that stores the same request gets the same key). */
export function keyedRequest(request: StoredRequest): { key: string; text: string } {
  const text = JSON.stringify(request);
  return { key: `${goalPartOf(request.goalId)}/${createHash('sha256').update(text).digest('hex')}`, text };
}

/** The key's two parts, or undefined for anything that is not a key (never a path to follow). */
export function parseKey(key: string): { goalPart: string; contentPart: string } | undefined {
  const match = KEY_PATTERN.exec(key);
  return match ? { goalPart: match[1] as string, contentPart: match[2] as string } : undefined;
}

/** A stored text read back; a text that is not a stored request counts as missing. */
export function parseStoredRequest(text: string): StoredRequest | undefined {
  try {
    const parsed = storedRequestSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
