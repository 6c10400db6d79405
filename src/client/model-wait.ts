import { RetryableModelFailureType } from '../workflows/common/failure-types';

/**
 * What a goal waits on while the model API has a bad day (issue 42): one line from the pending
 * model activity as the server describes it. Temporal retries the call inside one activity (the
 * activity picks each wait: activities/model/retry-delay.ts), so the workflow, its status query
 * and its ledger never see the retries; the pending activity's attempt, last failure and next
 * attempt time do. Pure: the caller reads the description and passes the clock.
 */

/** A model call Temporal holds as pending, in the terms this module needs. */
export interface PendingModelCall {
  /** callModel or callStructured. */
  readonly activity: string;
  /** Temporal's pending state: scheduled (waiting for a worker or its next try), started, paused, … */
  readonly state: 'scheduled' | 'started' | 'paused' | 'cancel-requested';
  /** The attempt running now, or the next one while it waits (Temporal counts from 1). */
  readonly attempt: number;
  /** The last attempt's failure, decoded (it stays until the call ends). */
  readonly lastFailure?: { readonly type?: string; readonly message: string } | undefined;
  /** The error the activity put in its heartbeat as it failed (model-activity.ts), if any. */
  readonly lastError?: string | undefined;
  /** When Temporal runs the next attempt (absent while an attempt runs). */
  readonly nextAttemptAtMs?: number | undefined;
  /** When the call was first scheduled: its schedule-to-close deadline less that timeout. */
  readonly waitingSinceMs?: number | undefined;
  /** The goal's model.patienceMs, when readable; the line leaves out "of …" otherwise. */
  readonly patienceMs?: number | undefined;
}

/** Why the call waits, as a kind a script can match (the line says it in words). */
export const ModelWaitReason = {
  RateLimited: 'rate-limited',
  Overloaded: 'overloaded',
  ServerError: 'server-error',
  StreamSilent: 'stream-silent',
  NoFirstEvent: 'no-first-event',
  StreamError: 'stream-error',
  Timeout: 'timeout',
  Connection: 'connection',
  Other: 'other',
} as const;
export type ModelWaitReason = (typeof ModelWaitReason)[keyof typeof ModelWaitReason];

/** The structured wait (`keel status --json`'s `modelWait`), with its line. */
export interface ModelWait {
  activity: string;
  reason: ModelWaitReason;
  /** The HTTP status the API answered (or the one an error event inside a stream stands for). */
  httpStatus?: number;
  /** The attempt running now, or the next one. */
  attempt: number;
  /** waiting: the next try is scheduled; asking: an attempt after a failure runs; paused: in Temporal. */
  state: 'waiting' | 'asking' | 'paused';
  nextAttemptAt?: string;
  /** Negative when the try is overdue (no worker has taken it). */
  nextAttemptInMs?: number;
  waitingSince?: string;
  waitingMs?: number;
  patienceMs?: number;
  lastFailure: { type?: string; message: string };
  line: string;
}

/**
 * The wait of a model call that failed at least once; undefined for a first attempt that has
 * not failed (the goal is thinking, not waiting).
 */
export function modelWaitOf(call: PendingModelCall, nowMs: number): ModelWait | undefined {
  const failure =
    call.lastFailure ?? (call.lastError === undefined ? undefined : { message: call.lastError });
  if (failure === undefined) return undefined;
  const { reason, httpStatus, what } = troubleOf(failure);
  const state = call.state === 'paused' ? 'paused' : call.state === 'started' ? 'asking' : 'waiting';
  const next = state === 'waiting' ? call.nextAttemptAtMs : undefined;
  const waitingMs = call.waitingSinceMs === undefined ? undefined : Math.max(0, nowMs - call.waitingSinceMs);
  const wait: Omit<ModelWait, 'line'> = {
    activity: call.activity,
    reason,
    ...(httpStatus === undefined ? {} : { httpStatus }),
    attempt: call.attempt,
    state,
    ...(next === undefined
      ? {}
      : { nextAttemptAt: new Date(next).toISOString(), nextAttemptInMs: next - nowMs }),
    ...(call.waitingSinceMs === undefined
      ? {}
      : { waitingSince: new Date(call.waitingSinceMs).toISOString() }),
    ...(waitingMs === undefined ? {} : { waitingMs }),
    ...(call.patienceMs === undefined ? {} : { patienceMs: call.patienceMs }),
    lastFailure: { ...(failure.type === undefined ? {} : { type: failure.type }), message: failure.message },
  };
  return { ...wait, line: waitLine(what, wait) };
}

/**
 * The line without countdowns, for a log that prints only lines it has not shown (keel watch
 * into a pipe): it changes once per attempt, not once per second.
 */
export function modelWaitLogLine(wait: ModelWait): string {
  const { what } = troubleOf(wait.lastFailure);
  const patience = wait.patienceMs === undefined ? '' : `, patience ${duration(wait.patienceMs)}`;
  const next =
    wait.state === 'asking'
      ? ': asked again'
      : wait.state === 'paused'
        ? ': paused in Temporal'
        : wait.nextAttemptAt === undefined
          ? ''
          : `, next try at ${wait.nextAttemptAt.slice(11, 19)} UTC`;
  return `${what}${next} (attempt ${wait.attempt}${patience})`;
}

/**
 * How late a scheduled try may be before the line says no worker took it: a worker polling the
 * queue takes a due task within a second or two.
 */
const OVERDUE_MS = 5000;

function waitLine(what: string, wait: Omit<ModelWait, 'line'>): string {
  const waiting =
    wait.waitingMs === undefined
      ? ''
      : `, waiting ${duration(wait.waitingMs)}${wait.patienceMs === undefined ? '' : ` of ${duration(wait.patienceMs)}`}`;
  const next =
    wait.state === 'asking'
      ? ': asked again'
      : wait.state === 'paused'
        ? ': paused in Temporal (temporal activity unpause resumes it)'
        : wait.nextAttemptInMs === undefined
          ? ', next try when a worker takes it'
          : wait.nextAttemptInMs < -OVERDUE_MS
            ? `, next try due ${duration(-wait.nextAttemptInMs)} ago: no worker has taken it`
            : wait.nextAttemptInMs < 500
              ? ', next try now'
              : `, next try in ${duration(wait.nextAttemptInMs, 'up')}`;
  return `${what}${next} (attempt ${wait.attempt}${waiting})`;
}

/** The failure's kind and its few words, from keel's failure types and messages (model-errors.ts). */
function troubleOf(failure: { type?: string | undefined; message: string }): {
  reason: ModelWaitReason;
  httpStatus?: number;
  what: string;
} {
  const { type, message } = failure;
  // "model endpoint answered 529: …" or, for an error event inside a stream, "… (as 529): …"
  const status = Number(/\b(?:answered|as) (\d{3})\b/.exec(message)?.[1] ?? Number.NaN);
  const httpStatus = Number.isFinite(status) ? { httpStatus: status } : {};
  const inStream = /stream broke off/.test(message) ? ' (inside the stream)' : '';
  if (type === RetryableModelFailureType.RateLimited || status === 429)
    return { reason: ModelWaitReason.RateLimited, ...httpStatus, what: `rate limited by the API${inStream}` };
  if (type === RetryableModelFailureType.Overloaded || status === 529)
    return { reason: ModelWaitReason.Overloaded, ...httpStatus, what: `overloaded by the API${inStream}` };
  const silent = /went silent for ([\d.]+) s/.exec(message)?.[1];
  if (silent !== undefined)
    return { reason: ModelWaitReason.StreamSilent, what: `stream silent ${silent} s` };
  const nothing = /sent nothing for ([\d.]+) s/.exec(message)?.[1];
  if (nothing !== undefined)
    return { reason: ModelWaitReason.NoFirstEvent, what: `no answer begun within ${nothing} s` };
  if (Number.isFinite(status))
    return { reason: ModelWaitReason.ServerError, ...httpStatus, what: `API error ${status}${inStream}` };
  if (inStream !== '')
    return { reason: ModelWaitReason.StreamError, what: 'the stream broke off with an error' };
  if (type === RetryableModelFailureType.Connection)
    return { reason: ModelWaitReason.Connection, what: 'could not reach the API' };
  if (type === RetryableModelFailureType.Timeout || type === 'timeout')
    return { reason: ModelWaitReason.Timeout, what: `timed out (${oneLine(message)})` };
  return { reason: ModelWaitReason.Other, what: `failed: ${oneLine(message)}` };
}

/** 18 s, 3 m 10 s, 6 h, 2 h 5 m: what a glance needs; `up` rounds a countdown up, never to 0. */
export function duration(ms: number, round: 'down' | 'up' = 'down'): string {
  const seconds = Math.max(0, round === 'up' ? Math.ceil(ms / 1000) : Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 ? `${minutes} m` : `${minutes} m ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} m`;
}

const MESSAGE_CHARS = 160;

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS - 1)}…` : line;
}
