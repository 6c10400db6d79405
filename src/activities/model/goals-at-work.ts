/**
 * Goals at work (issue 41, "goals progress independently"): a worker lets a bounded number of
 * goals make model calls at once and admits the others first come, first served.
 *
 * Why: goals started together otherwise take turns on the workflow thread, every goal's next
 * task queuing behind everyone else's, so 200 goals all finish near the batch's end (the median
 * at 87–96% of it, docs/performance.md). A goal that waits here for a place sends no workflow
 * task (its model call is still running), so the goals at work have the worker to themselves and
 * finish in the order they came; Temporal's priority could not do this, since it reorders only a
 * task queue's backlog and the backlog was the worker's own.
 *
 * A goal holds its place from a model call through the tool calls its answer asks for to its next
 * call; it gives it up when an answer asks for no tool (its turn chain ends) or when no call of it
 * has come for `idleMs` (it waits for a human, a long tool call, or it ended or moved elsewhere).
 * Waiters go in by the goal's Temporal priority (1 first), then by when this worker first saw the
 * goal, so a goal that lost its place in a long tool call is the next one in. The gate never
 * fails a goal: a call that has waited `giveUpAfterMs` goes ahead without a place.
 */

/** How long a place stays with a goal none of whose calls came (a human, a long tool call). */
export const DEFAULT_IDLE_MS = 10_000;
/** Calls that may wait at once unless the worker says otherwise (GoalsAtWork's waitingRoom). */
export const DEFAULT_WAITING_ROOM = 64;
/** How long this worker remembers when it first saw a goal that stopped calling. */
const FORGET_AFTER_MS = 60 * 60_000;
/** A goal one of whose calls came within this long counts as one the worker is busy with. */
export const RECENT_MS = 30_000;

export interface EnterOptions {
  /** The goal's Temporal priority key: 1 is served first; unset is Temporal's default, 3. */
  priorityKey?: number | undefined;
  /** Ends the wait (the activity was cancelled); the promise then rejects with its reason. */
  signal?: AbortSignal | undefined;
  /** Goes ahead without a place after this long, so a long queue never costs a goal its patience. */
  giveUpAfterMs?: number | undefined;
  /** Told how many goals are ahead whenever that changes, while the call waits. */
  waiting?: ((ahead: number) => void) | undefined;
}

/**
 * How a call got through: it held or took a place, waited for one, or went ahead without one (it
 * waited its limit, found the waiting room full, or the worker was busy with more goals than it
 * keeps).
 */
export type Entry = 'at-work' | 'admitted' | 'went-ahead';

interface Waiter {
  goalId: string;
  priorityKey: number;
  firstSeen: number;
  admit: (entry: Entry) => void;
  waiting: EnterOptions['waiting'];
}

export class GoalsAtWork {
  /** The goals holding a place, with when one of their calls last came or answered. */
  private readonly held = new Map<string, number>();
  private readonly firstSeen = new Map<string, number>();
  /** When each goal's latest call came, for the goals the worker is busy with (RECENT_MS). */
  private readonly lastCall = new Map<string, number>();
  private waiters: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Whether the worker's workflow cache is full (keel-worker.ts reads the worker's status): more
   * goals are about than it keeps, so a goal that waited would be evicted and rebuilt from its
   * history when let in. Then no goal waits. The busy rule alone missed it: while goals wait,
   * fewer call, so a worker with 1,000 goals rarely counted more than its cache (1,000 goals of 3
   * calls, cache 246: 392 s without this rule, 178 s with it, 92–102 s with no bound).
   */
  crowded: () => boolean = () => false;

  /**
   * `waitingRoom`: how many calls may wait at once. A waiting goal stays in the worker's workflow
   * cache, so the worker makes its places and room its cache: with more goals than that, waiting
   * goals would be evicted and rebuilt from their history when let in, which costs more than
   * taking turns (measured: 1,000 goals of 3 calls with a cache of 246 took 148 s with every goal
   * waiting against 127 s with no bound, at twice the memory). So while the worker is busy with more
   * goals than places and room (goals that called within RECENT_MS), no goal waits: the line goes
   * ahead and goals take turns as with no bound. A waiting call also holds an activity slot; the
   * worker adds places and room to the model queues' slots, so a goal at work never waits for a
   * slot its waiters hold.
   */
  constructor(
    readonly places: number,
    readonly waitingRoom: number = DEFAULT_WAITING_ROOM,
    private readonly idleMs: number = DEFAULT_IDLE_MS,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isSafeInteger(places) || places < 1)
      throw new RangeError(`places must be 1 or more, got ${places}`);
    if (!Number.isSafeInteger(waitingRoom) || waitingRoom < 0)
      throw new RangeError(`the waiting room must be 0 or more, got ${waitingRoom}`);
  }

  /** Resolves when the goal may call the model. */
  async enter(goalId: string, options: EnterOptions = {}): Promise<Entry> {
    const now = this.now();
    if (!this.firstSeen.has(goalId)) this.firstSeen.set(goalId, now);
    this.lastCall.delete(goalId); // kept in the order calls came: the oldest first
    this.lastCall.set(goalId, now);
    if (this.held.has(goalId)) {
      this.held.set(goalId, now);
      return 'at-work';
    }
    if (this.busyWith(now) > this.places + this.waitingRoom || this.crowded()) {
      // More goals than the worker can keep: waiting would cost each a rebuild, so none waits.
      this.openTheLine();
      return 'went-ahead';
    }
    this.fill(now); // places fallen idle go to those already waiting first
    if (this.held.size < this.places && this.waiters.length === 0) {
      this.held.set(goalId, now);
      return 'at-work';
    }
    return this.wait(goalId, options);
  }

  /** How many goals made a call within RECENT_MS; older ones are forgotten here. */
  private busyWith(now: number): number {
    for (const [goalId, at] of this.lastCall) {
      if (now - at < RECENT_MS) break;
      this.lastCall.delete(goalId);
    }
    return this.lastCall.size;
  }

  /** Everyone waiting goes ahead without a place. */
  private openTheLine(): void {
    for (const waiter of [...this.waiters]) waiter.admit('went-ahead');
  }

  /** The goal's answer asked for tools: it keeps its place through them. */
  keep(goalId: string): void {
    if (this.held.has(goalId)) this.held.set(goalId, this.now());
  }

  /** The goal's answer asked for no tool, or it stopped: its place goes to the next goal. */
  leave(goalId: string): void {
    if (this.held.delete(goalId)) this.fill(this.now());
  }

  /** Goals holding a place and goals waiting for one, for the start log and tests. */
  get counts(): { atWork: number; waiting: number } {
    return { atWork: this.held.size, waiting: this.waiters.length };
  }

  private wait(goalId: string, options: EnterOptions): Promise<Entry> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<Entry>((resolve, reject) => {
      let giveUp: ReturnType<typeof setTimeout> | undefined;
      const settle = () => {
        if (giveUp !== undefined) clearTimeout(giveUp);
        signal?.removeEventListener('abort', onAbort);
        this.waiters = this.waiters.filter((other) => other !== waiter);
        this.armIdleTimer(); // none is left running for a line that emptied
      };
      const waiter: Waiter = {
        goalId,
        priorityKey: validPriority(options.priorityKey),
        firstSeen: this.firstSeen.get(goalId) ?? this.now(),
        waiting: options.waiting,
        admit: (entry) => {
          settle();
          resolve(entry);
        },
      };
      const onAbort = () => {
        settle();
        this.tellAhead();
        reject(signal?.reason as Error);
      };
      if (this.waiters.length >= this.waitingRoom) {
        // A full room: the call that would be served last goes ahead, this one or the last waiter.
        const last = this.waiters.at(-1);
        if (last === undefined || servedFirst(waiter, last) > 0) return resolve('went-ahead');
        last.admit('went-ahead');
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      if (options.giveUpAfterMs !== undefined) {
        giveUp = setTimeout(() => {
          waiter.admit('went-ahead');
          this.tellAhead();
        }, options.giveUpAfterMs);
      }
      this.waiters.push(waiter);
      this.waiters.sort(servedFirst);
      this.tellAhead();
      this.armIdleTimer();
    });
  }

  /** Each waiter hears how many goals are ahead of it. */
  private tellAhead(): void {
    this.waiters.forEach((waiter, ahead) => waiter.waiting?.(ahead));
  }

  /** Gives free places to the waiters first in line, and every call of an admitted goal with it. */
  private fill(now: number): void {
    this.releaseIdle(now);
    let admitted = false;
    while (this.held.size < this.places && this.waiters.length > 0) {
      const next = this.waiters[0] as Waiter;
      this.held.set(next.goalId, now);
      for (const waiter of this.waiters.filter((other) => other.goalId === next.goalId))
        waiter.admit('admitted');
      admitted = true;
    }
    if (admitted) this.tellAhead();
    this.armIdleTimer();
  }

  /** Places whose goal has not called for idleMs are free again; long-gone goals are forgotten. */
  private releaseIdle(now: number): void {
    for (const [goalId, lastSeen] of this.held) if (now - lastSeen >= this.idleMs) this.held.delete(goalId);
    if (this.firstSeen.size > 4 * this.places + this.waiters.length + 1000) {
      for (const [goalId, seen] of this.firstSeen)
        if (now - seen >= FORGET_AFTER_MS && !this.held.has(goalId) && !this.isWaiting(goalId))
          this.firstSeen.delete(goalId);
    }
  }

  private isWaiting(goalId: string): boolean {
    return this.waiters.some((waiter) => waiter.goalId === goalId);
  }

  /** While goals wait and every place is held, wakes when the stalest place falls idle. */
  private armIdleTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiters.length === 0 || this.held.size === 0) return;
    const stalest = Math.min(...this.held.values());
    const delay = Math.max(0, stalest + this.idleMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fill(this.now());
    }, delay);
  }
}

/** Lower priority keys first; among equals, the goal this worker saw first; then by id. */
function servedFirst(a: Waiter, b: Waiter): number {
  return a.priorityKey - b.priorityKey || a.firstSeen - b.firstSeen || (a.goalId < b.goalId ? -1 : 1);
}

function validPriority(key: number | undefined): number {
  return key !== undefined && Number.isSafeInteger(key) && key > 0 ? key : 3;
}
