import type { ServerResponse } from 'node:http';
import { z } from 'zod';

/**
 * The model API's bad days, scripted per request of a turn: each fault answers a number of
 * requests (`requests`) or every request within a time window from the first one it answered
 * (`forMs`), then the next fault takes over, and after the last one the turn is answered. Each
 * behaves as the Anthropic docs describe:
 *
 * - rate-limited: 429 `rate_limit_error` with `retry-after` ("the number of seconds to wait")
 *   and the `anthropic-ratelimit-*` headers that say which limit ran out and when it resets
 *   (platform.claude.com/docs/en/api/rate-limits, "Response headers"; /en/api/errors, "HTTP
 *   errors": "429 - rate_limit_error: Your account has hit a rate limit").
 * - overloaded: 529 `overloaded_error`, "the API is temporarily overloaded ... high traffic
 *   across all users" (/en/api/errors); server-error: 500 `api_error` or another 5xx.
 * - stream-error: a 200 stream that breaks off with `event: error` ("When receiving a streaming
 *   response via SSE, it's possible that an error can occur after returning a 200 response":
 *   /en/api/errors; "during periods of high usage, you may receive an overloaded_error" as an
 *   error event: /en/build-with-claude/streaming, "Error events").
 * - stall: a 200 stream that stops sending after `afterEvents` events and holds the connection
 *   open (no `message_stop`), for ever or for `forMs`, optionally with `ping` events ("Event
 *   streams may also include any number of ping events": /en/build-with-claude/streaming).
 */
const span = {
  /** How many requests this fault answers (default 1, unless forMs is given). */
  requests: z.number().int().positive().optional(),
  /** Answer every request within this long of the first one this fault answered. */
  forMs: z.number().int().positive().optional(),
  /**
   * Only requests for this model (`model` in the body): the API is overloaded for one model, not
   * for all (what fallback models are for). Requests for others are answered and do not count.
   */
  model: z.string().min(1).optional(),
};

export const scriptedFaultSchema = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('rate-limited'), retryAfterSeconds: z.number().positive().default(1), ...span })
    .strict(),
  z.object({ kind: z.literal('overloaded'), ...span }).strict(),
  z
    .object({
      kind: z.literal('server-error'),
      status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).default(500),
      ...span,
    })
    .strict(),
  z
    .object({
      kind: z.literal('stream-error'),
      afterEvents: z.number().int().nonnegative().default(3),
      type: z.string().default('overloaded_error'),
      ...span,
    })
    .strict(),
  z
    .object({
      kind: z.literal('stall'),
      afterEvents: z.number().int().nonnegative().default(3),
      /** How long the stream stays silent before it goes on; for ever when omitted. */
      stallMs: z.number().int().positive().optional(),
      /** Send a ping this often while stalled (a stream that is slow, not dead). */
      pingEveryMs: z.number().int().positive().optional(),
      ...span,
    })
    .strict(),
]);
export type ScriptedFault = z.output<typeof scriptedFaultSchema>;

const ERROR_TYPE_BY_STATUS: Record<number, string> = {
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Which fault answers each request of a turn, keyed by the turn. */
export class BadDays {
  private readonly progress = new Map<string, { index: number; count: number; since?: number }>();
  /** When each key was last told to retry after; a request before then came too early. */
  private readonly retryNotBefore = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The fault that answers this request of `key` (for `model`), or undefined: answer it. */
  next(key: string, faults: readonly ScriptedFault[], model?: string): ScriptedFault | undefined {
    const state = this.progress.get(key) ?? { index: 0, count: 0 };
    this.progress.set(key, state);
    for (;;) {
      const fault = faults[state.index];
      if (fault === undefined) return undefined;
      if (fault.model !== undefined && fault.model !== model) return undefined;
      if (fault.forMs !== undefined) {
        state.since ??= this.now();
        if (this.now() - state.since < fault.forMs) return fault;
      } else if (state.count < (fault.requests ?? 1)) {
        state.count += 1;
        return fault;
      }
      state.index += 1;
      state.count = 0;
      delete state.since;
    }
  }

  /** True when this request of `key` came before the retry-after it was last given. */
  cameEarly(key: string): boolean {
    const notBefore = this.retryNotBefore.get(key);
    return notBefore !== undefined && this.now() < notBefore;
  }

  /** Answers a status fault (429, 529, 5xx) as the API does; false for stream faults. */
  answer(key: string, fault: ScriptedFault, response: ServerResponse): { status: number } | undefined {
    const status =
      fault.kind === 'rate-limited'
        ? 429
        : fault.kind === 'overloaded'
          ? 529
          : fault.kind === 'server-error'
            ? fault.status
            : undefined;
    if (status === undefined) return undefined;
    const headers: Record<string, string> = {};
    if (fault.kind === 'rate-limited') {
      const resetAt = new Date(this.now() + fault.retryAfterSeconds * 1000).toISOString();
      headers['retry-after'] = String(fault.retryAfterSeconds);
      headers['anthropic-ratelimit-requests-limit'] = '50';
      headers['anthropic-ratelimit-requests-remaining'] = '0';
      headers['anthropic-ratelimit-requests-reset'] = resetAt;
      this.retryNotBefore.set(key, this.now() + fault.retryAfterSeconds * 1000);
    }
    const type = ERROR_TYPE_BY_STATUS[status] ?? 'api_error';
    const text = JSON.stringify({
      type: 'error',
      error: { type, message: status === 529 ? 'Overloaded' : `scripted ${type}` },
    });
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'request-id': `req_scripted_${this.now()}`,
      ...headers,
    });
    response.end(text);
    return { status };
  }
}

/**
 * What a stream fault does before the stream's event number `index` (sse-stream.ts's hook):
 * true to send it, false to stop there (the fault has ended the stream its way).
 */
export function streamFault(fault: ScriptedFault | undefined) {
  if (fault?.kind !== 'stream-error' && fault?.kind !== 'stall') return undefined;
  return async (index: number, response: ServerResponse): Promise<boolean> => {
    if (index !== fault.afterEvents) return true;
    if (fault.kind === 'stream-error') {
      const body = { type: 'error', error: { type: fault.type, message: 'Overloaded' } };
      response.write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
      response.end();
      return false;
    }
    await stall(response, fault.stallMs, fault.pingEveryMs);
    return fault.stallMs !== undefined && !response.destroyed;
  };
}

/** Holds the stream silent (or pinging) until stallMs passes or the client goes away. */
function stall(response: ServerResponse, stallMs: number | undefined, pingEveryMs: number | undefined) {
  return new Promise<void>((resolve) => {
    const ping =
      pingEveryMs === undefined
        ? undefined
        : setInterval(() => {
            if (!response.destroyed) response.write(`event: ping\ndata: {"type": "ping"}\n\n`);
          }, pingEveryMs);
    const done = (): void => {
      if (ping !== undefined) clearInterval(ping);
      if (timer !== undefined) clearTimeout(timer);
      resolve();
    };
    const timer = stallMs === undefined ? undefined : setTimeout(done, stallMs);
    response.once('close', done);
  });
}
