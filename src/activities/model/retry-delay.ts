/**
 * How long a model call waits before its next attempt after a transient failure (429, 529, 5xx,
 * a lost connection, an error event mid-stream). Temporal runs the wait durably: the activity
 * returns it as the failure's nextRetryDelay, and the retry policy has no attempt limit, so only
 * the goal's patience (the activity's schedule-to-close timeout) ends the waiting.
 */

/** The first attempt's window; each attempt doubles it up to the cap. */
export const RETRY_BASE_MS = 1000;
/**
 * The widest window. Full jitter draws the wait from [0, window], so once the window is at the
 * cap a goal asks again at most 10 s after its last try: the first request after an outage ends
 * comes within 10 s of its end (5 s on average), and a fleet of goals spreads its requests over
 * those 10 s instead of arriving together.
 */
export const RETRY_CAP_MS = 10_000;
/**
 * The least wait. Temporal reads a zero next-retry delay as "none given" and falls back to the
 * policy's own interval; a tenth of a second keeps the draw ours.
 */
export const RETRY_MIN_MS = 100;
/** A retry-after beyond this is taken as this: the goal's patience is the longer bound anyway. */
export const RETRY_AFTER_MAX_MS = 60 * 60_000;

export interface RetryDelayOptions {
  /** Temporal's attempt number of the attempt that failed (1 for the first). */
  readonly attempt: number;
  /** What the endpoint asked for (retry-after), if anything. */
  readonly retryAfterMs?: number | undefined;
  /** A number in [0, 1); Math.random unless a test fixes it. */
  readonly random?: () => number;
  readonly baseMs?: number;
  readonly capMs?: number;
}

/**
 * Exponential backoff with full jitter (a random wait in [0, min(cap, base·2^(attempt-1))]),
 * added to the endpoint's retry-after when it sent one: never earlier than it asked, and goals
 * told the same retry-after do not all come back in the same instant.
 */
export function retryDelayMs(options: RetryDelayOptions): number {
  const base = options.baseMs ?? RETRY_BASE_MS;
  const cap = options.capMs ?? RETRY_CAP_MS;
  const attempt = Math.max(1, Math.floor(options.attempt));
  // 2^(attempt-1) overflows to Infinity long after it passed the cap; min() keeps it finite.
  const window = Math.min(cap, base * 2 ** Math.min(attempt - 1, 30));
  const jitter = Math.floor((options.random ?? Math.random)() * window);
  const floor = options.retryAfterMs ?? 0;
  return Math.max(RETRY_MIN_MS, floor + jitter);
}

/**
 * The endpoint's retry-after in milliseconds: `retry-after-ms`, or `retry-after` as seconds or
 * an HTTP date (the forms the SDK reads too); undefined when absent, unreadable or not positive.
 */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const millis = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(millis) && millis > 0) return Math.min(millis, RETRY_AFTER_MAX_MS);
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  // "0" (or a date already past) means "now": the backoff's own draw is the better guide.
  if (!Number.isFinite(ms) || ms <= 0) return undefined;
  return Math.min(Math.ceil(ms), RETRY_AFTER_MAX_MS);
}
