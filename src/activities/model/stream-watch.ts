import type { Middleware } from '@anthropic-ai/sdk/core/middleware';

/**
 * Watches one streaming model call so its heartbeats mean "the answer is still coming".
 *
 * After the first event, a heartbeat goes out only when stream data arrives (throttled, with a
 * trailing beat so the last arrival is always reported): a stream that falls silent stops the
 * heartbeats, and the activity's heartbeat timeout (timing.streamSilenceMs) ends the attempt,
 * which Temporal retries. `ping` events count: the API sends them to keep a live stream open
 * (platform.claude.com/docs/en/build-with-claude/streaming, "Ping events"), and a long thinking
 * phase may send little else; calling such a stream silent would cut a paid answer and ask for
 * it again, forever. A stream that only pings is still bounded by the call's start-to-close.
 *
 * Before the first event the API may be reading a long prompt, so the watch beats on a timer
 * (the worker is alive and the request open) for at most `firstEventWithinMs`; then it gives up
 * and the call fails as a retryable timeout. A silence after the first event ends the attempt
 * the same way, in the activity itself; the heartbeat timeout stays the bound for a worker that
 * died.
 */
export interface StreamWatchOptions {
  /** Sends the stream's progress as heartbeat details. */
  readonly beat: () => void;
  /** How long the first event may take (timing.modelTimeoutMs). */
  readonly firstEventWithinMs: number;
  /**
   * How long the stream may be silent once it began (the heartbeat timeout): the watch ends the
   * attempt itself, so a stalled request does not hold its worker slot until start-to-close.
   */
  readonly silenceMs?: number | undefined;
  /** How often to beat while waiting for the first event (a third of the heartbeat timeout). */
  readonly waitingBeatMs: number;
  /** The least time between two heartbeats once data flows. */
  readonly throttleMs: number;
  /** Called once when the watch gives up (abort the request there). */
  readonly onGiveUp: () => void;
  readonly now?: () => number;
}

/** Why the watch ended the attempt, and after how long. */
export type GaveUp = { reason: 'no-first-event' | 'silence'; afterMs: number };

export class StreamWatch {
  private readonly now: () => number;
  private started = false;
  private begun = 0;
  private lastArrival = 0;
  private lastBeat = 0;
  private trailing: ReturnType<typeof setTimeout> | undefined;
  private ticking: ReturnType<typeof setInterval> | undefined;
  private gaveUpWith: GaveUp | undefined;

  constructor(private readonly options: StreamWatchOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Starts the wait for the first event. */
  start(): void {
    this.begun = this.now();
    const { waitingBeatMs, firstEventWithinMs, silenceMs } = this.options;
    const every = Math.min(
      waitingBeatMs,
      firstEventWithinMs,
      silenceMs === undefined ? waitingBeatMs : silenceMs / 4,
    );
    this.ticking = setInterval(() => this.tick(), Math.max(10, every));
  }

  /** Data of the stream arrived. */
  arrived(): void {
    if (this.gaveUpWith !== undefined) return;
    this.started = true;
    this.lastArrival = this.now();
    const since = this.lastArrival - this.lastBeat;
    if (since >= this.options.throttleMs) {
      this.send();
    } else if (this.trailing === undefined) {
      this.trailing = setTimeout(() => this.send(), this.options.throttleMs - since);
    }
  }

  /** Why and when it gave up; undefined when it did not. */
  get gaveUp(): GaveUp | undefined {
    return this.gaveUpWith;
  }

  stop(): void {
    if (this.ticking !== undefined) clearInterval(this.ticking);
    this.ticking = undefined;
    if (this.trailing !== undefined) clearTimeout(this.trailing);
    this.trailing = undefined;
  }

  private tick(): void {
    const now = this.now();
    if (!this.started) {
      // Before the first byte: the request is open and this worker alive, so beat on the timer.
      if (now - this.begun < this.options.firstEventWithinMs) return this.options.beat();
      return this.giveUp({ reason: 'no-first-event', afterMs: now - this.begun });
    }
    const silence = this.options.silenceMs;
    if (silence !== undefined && now - this.lastArrival >= silence)
      this.giveUp({ reason: 'silence', afterMs: now - this.lastArrival });
  }

  private giveUp(why: GaveUp): void {
    this.gaveUpWith = why;
    this.stop();
    this.options.onGiveUp();
  }

  private send(): void {
    if (this.trailing !== undefined) clearTimeout(this.trailing);
    this.trailing = undefined;
    this.lastBeat = this.now();
    this.options.beat();
  }
}

/**
 * A per-request SDK middleware that reports each chunk of the response body as it arrives, so
 * the watch sees the stream's bytes (pings included, which the SDK's parser drops before any
 * event handler runs) rather than only the events it parses.
 */
export function arrivalMiddleware(onBytes: (bytes: number) => void): Middleware {
  return async (request, next) => {
    const response = await next(request);
    if (response.body === null) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          onBytes(chunk.byteLength);
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
