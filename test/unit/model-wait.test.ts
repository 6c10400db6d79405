import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duration, modelWaitLogLine, modelWaitOf, type PendingModelCall } from '../../src/client/model-wait';
import { renderWatchView, type WatchableView } from '../../src/cli/watch-view';
import { emptyCounters, emptyUsage } from '../../src/workflows/goal/lifecycle/state';

/** The model wait's line (issue 42 item 6): fixed times, the failures keel's model activity throws. */

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const SIX_HOURS = 6 * 60 * 60_000;

const call = (overrides: Partial<PendingModelCall>): PendingModelCall => ({
  activity: 'callModel',
  state: 'scheduled',
  attempt: 4,
  waitingSinceMs: NOW - (3 * 60_000 + 10_000),
  patienceMs: SIX_HOURS,
  ...overrides,
});

test('a run of 429s: rate limited, the next try counted down, the attempt and the patience', () => {
  const wait = modelWaitOf(
    call({
      lastFailure: {
        type: 'ModelRateLimited',
        message: 'model endpoint answered 429: rate_limit_error: Number of requests exceeded',
      },
      nextAttemptAtMs: NOW + 17_400,
    }),
    NOW,
  );
  assert.equal(wait?.line, 'rate limited by the API, next try in 18 s (attempt 4, waiting 3 m 10 s of 6 h)');
  assert.deepEqual(
    { ...wait, line: undefined },
    {
      activity: 'callModel',
      reason: 'rate-limited',
      httpStatus: 429,
      attempt: 4,
      state: 'waiting',
      nextAttemptAt: '2026-03-01T12:00:17.400Z',
      nextAttemptInMs: 17_400,
      waitingSince: '2026-03-01T11:56:50.000Z',
      waitingMs: 190_000,
      patienceMs: SIX_HOURS,
      lastFailure: {
        type: 'ModelRateLimited',
        message: 'model endpoint answered 429: rate_limit_error: Number of requests exceeded',
      },
      line: undefined,
    },
  );
});

test('529s: overloaded, and a 529 as an error event inside a stream says so', () => {
  const overloaded = modelWaitOf(
    call({
      attempt: 7,
      waitingSinceMs: NOW - 62_000,
      lastFailure: {
        type: 'ModelOverloaded',
        message: 'model endpoint answered 529: overloaded_error: Overloaded',
      },
      nextAttemptAtMs: NOW + 3_100,
    }),
    NOW,
  );
  assert.equal(
    overloaded?.line,
    'overloaded by the API, next try in 4 s (attempt 7, waiting 1 m 2 s of 6 h)',
  );
  const inStream = modelWaitOf(
    call({
      attempt: 2,
      lastFailure: {
        type: 'ModelOverloaded',
        message: "the model's stream broke off with an error (as 529): overloaded_error: Overloaded",
      },
      nextAttemptAtMs: NOW + 900,
    }),
    NOW,
  );
  assert.match(
    inStream?.line ?? '',
    /^overloaded by the API \(inside the stream\), next try in 1 s \(attempt 2,/,
  );
});

test('a silent stream asked again: the attempt runs, so no countdown', () => {
  const wait = modelWaitOf(
    call({
      state: 'started',
      attempt: 2,
      waitingSinceMs: undefined,
      lastFailure: {
        type: 'ModelTimeout',
        message: "the model's stream went silent for 60 s (timing.streamSilenceMs)",
      },
    }),
    NOW,
  );
  assert.equal(wait?.line, 'stream silent 60 s: asked again (attempt 2)');
  assert.equal(wait?.reason, 'stream-silent');
  assert.equal(wait?.state, 'asking');
});

test('a 500, a first event that never came, a lost connection and a dead worker', () => {
  const line = (lastFailure: PendingModelCall['lastFailure']) =>
    modelWaitOf(call({ lastFailure, nextAttemptAtMs: NOW + 61_000, patienceMs: undefined }), NOW)?.line;
  assert.equal(
    line({
      type: 'ModelServerError',
      message: 'model endpoint answered 500: api_error: Internal server error',
    }),
    'API error 500, next try in 1 m 1 s (attempt 4, waiting 3 m 10 s)',
  );
  assert.match(
    line({
      type: 'ModelTimeout',
      message: 'the model endpoint sent nothing for 300 s after the request (timing.modelTimeoutMs)',
    }) ?? '',
    /^no answer begun within 300 s, next try/,
  );
  assert.match(
    line({ type: 'ModelConnectionError', message: 'could not reach the model endpoint: ECONNRESET' }) ?? '',
    /^could not reach the API, next try/,
  );
  assert.match(
    line({ type: 'timeout', message: 'HEARTBEAT timeout' }) ?? '',
    /^timed out \(HEARTBEAT timeout\)/,
  );
});

test('the heartbeat error stands in when the server has no failure yet; a first attempt is no wait', () => {
  assert.equal(modelWaitOf(call({ attempt: 1, state: 'started' }), NOW), undefined);
  const wait = modelWaitOf(
    call({ lastError: 'model endpoint answered 429: rate_limit_error: slow down', nextAttemptAtMs: NOW }),
    NOW,
  );
  assert.equal(wait?.reason, 'rate-limited');
  assert.match(wait?.line ?? '', /next try now/);
});

test('a try long overdue says no worker has taken it', () => {
  const wait = modelWaitOf(
    call({
      lastFailure: { type: 'ModelOverloaded', message: 'model endpoint answered 529: overloaded_error: x' },
      nextAttemptAtMs: NOW - 42_000,
    }),
    NOW,
  );
  assert.equal(
    wait?.line,
    'overloaded by the API, next try due 42 s ago: no worker has taken it (attempt 4, waiting 3 m 10 s of 6 h)',
  );
  assert.equal(wait?.nextAttemptInMs, -42_000);
});

test('the log line has no countdown: it changes once per attempt', () => {
  const wait = modelWaitOf(
    call({
      lastFailure: { type: 'ModelRateLimited', message: 'model endpoint answered 429: rate_limit_error: x' },
      nextAttemptAtMs: NOW + 17_400,
    }),
    NOW,
  );
  assert.ok(wait !== undefined);
  assert.equal(
    modelWaitLogLine(wait),
    'rate limited by the API, next try at 12:00:17 UTC (attempt 4, patience 6 h)',
  );
});

test('durations read at a glance', () => {
  assert.equal(duration(0), '0 s');
  assert.equal(duration(59_999), '59 s');
  assert.equal(duration(60_000), '1 m');
  assert.equal(duration(3_599_000), '59 m 59 s');
  assert.equal(duration(2 * 3_600_000 + 5 * 60_000 + 30_000), '2 h 5 m');
  assert.equal(duration(100, 'up'), '1 s');
});

test('keel watch shows the wait under the phase: with a countdown on a terminal, once per attempt in a log', () => {
  const wait = modelWaitOf(
    call({
      lastFailure: { type: 'ModelRateLimited', message: 'model endpoint answered 429: rate_limit_error: x' },
      nextAttemptAtMs: NOW + 17_400,
    }),
    NOW,
  );
  assert.ok(wait !== undefined);
  const view = watchableView();
  const terminal = renderWatchView(view, { workflowId: 'g', waiting: wait, now: new Date(NOW) });
  assert.equal(
    terminal[3],
    'waiting on the model: rate limited by the API, next try in 18 s (attempt 4, waiting 3 m 10 s of 6 h)',
  );
  const log = renderWatchView(view, { workflowId: 'g', waiting: wait });
  assert.equal(
    log[3],
    'waiting on the model: rate limited by the API, next try at 12:00:17 UTC (attempt 4, patience 6 h)',
  );
  const ended = renderWatchView({ ...view, status: 'completed' }, { workflowId: 'g', waiting: wait });
  assert.ok(!ended.some((line) => line.startsWith('waiting on the model')));
});

/** The fields keel watch's renderer reads; the rest of the status view plays no part here. */
function watchableView(): WatchableView {
  return {
    goal: 'Tidy the build directory',
    status: 'running',
    phase: 'thinking',
    task: { index: 0, text: 'Tidy the build directory' },
    counters: emptyCounters(),
    usage: emptyUsage(),
    pendingApprovals: [],
    latestMessages: [],
  } as Partial<WatchableView> as WatchableView;
}
