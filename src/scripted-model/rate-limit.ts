import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The API's per-key request limit in front of a Messages endpoint (the scripted one, in tests
 * and benches): a loopback proxy that answers 429 when a key asks faster than its requests per
 * minute, as the Anthropic API does (platform.claude.com/docs/en/api/rate-limits: limits are
 * enforced with "the token bucket algorithm", capacity "continuously replenished up to your
 * maximum limit, rather than being reset at fixed intervals"; "a rate of 60 requests per minute
 * may be enforced as 1 request per second"; a 429 carries `retry-after`, and every answer the
 * `anthropic-ratelimit-requests-limit/-remaining/-reset` headers). A separate process in front,
 * rather than a fault inside the scripted server: it limits what a whole fleet sends, across
 * scenarios and turns, which is what the API sees.
 */

export interface RateLimitOptions {
  /** The endpoint requests that pass go to (e.g. a scripted server's url). */
  target: string;
  requestsPerMinute: number;
  /** Requests a key may send at once after a quiet spell; default one second's worth (at least 1). */
  burst?: number;
  port?: number;
  now?: () => number;
}

/** One request the limiter saw: passed on, or refused with 429. */
export interface LimitedRequest {
  key: string;
  at: number;
  limited: boolean;
}

export interface RateLimitedEndpoint {
  readonly url: string;
  readonly requests: readonly LimitedRequest[];
  close(): Promise<void>;
}

/** A key's bucket: `tokens` requests may go now; it refills at the limit's rate up to `burst`. */
export class RequestBucket {
  private tokens: number;
  private updatedAt: number;
  private readonly perMs: number;

  constructor(
    readonly requestsPerMinute: number,
    readonly burst: number,
    private readonly now: () => number,
  ) {
    this.tokens = burst;
    this.updatedAt = now();
    this.perMs = requestsPerMinute / 60_000;
  }

  /** Takes one request's token: the headers to answer with, and whether it may go. */
  take(): { allowed: boolean; remaining: number; retryAfterSeconds: number; resetAt: number } {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.updatedAt) * this.perMs);
    this.updatedAt = now;
    const allowed = this.tokens >= 1;
    if (allowed) this.tokens -= 1;
    // The API's retry-after is whole seconds: never 0, or a client would ask again at once.
    const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil((1 - this.tokens) / this.perMs / 1000));
    const resetAt = now + (this.burst - this.tokens) / this.perMs;
    return { allowed, remaining: Math.floor(this.tokens), retryAfterSeconds, resetAt };
  }
}

export async function startRateLimitedEndpoint(options: RateLimitOptions): Promise<RateLimitedEndpoint> {
  const now = options.now ?? Date.now;
  const burst = options.burst ?? Math.max(1, Math.floor(options.requestsPerMinute / 60));
  const buckets = new Map<string, RequestBucket>();
  const requests: LimitedRequest[] = [];
  const target = new URL(options.target);
  const sockets = new Set<Socket>();

  const server: Server = createServer((incoming, response) => {
    const key = keyOf(incoming);
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = new RequestBucket(options.requestsPerMinute, burst, now);
      buckets.set(key, bucket);
    }
    const taken = bucket.take();
    requests.push({ key, at: now(), limited: !taken.allowed });
    const limitHeaders = {
      'anthropic-ratelimit-requests-limit': String(options.requestsPerMinute),
      'anthropic-ratelimit-requests-remaining': String(taken.remaining),
      'anthropic-ratelimit-requests-reset': new Date(taken.resetAt).toISOString(),
    };
    if (!taken.allowed) {
      // The request's body is not needed: drain it so the connection can be reused.
      incoming.resume();
      const text = JSON.stringify({
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: 'Number of request tokens has exceeded your per-minute rate limit',
        },
      });
      response.writeHead(429, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        'retry-after': String(taken.retryAfterSeconds),
        ...limitHeaders,
      });
      response.end(text);
      return;
    }
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...limitHeaders });
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    // A client that gives up (a stream's heartbeat timeout) must end the upstream stream too.
    response.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Which key a request was made with (the API limits per organization; one key stands for it). */
function keyOf(request: IncomingMessage): string {
  const key = request.headers['x-api-key'] ?? request.headers.authorization;
  return typeof key === 'string' ? key : 'no-key';
}
