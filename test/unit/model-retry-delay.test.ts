import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RETRY_CAP_MS,
  RETRY_MIN_MS,
  retryAfterMs,
  retryDelayMs,
} from '../../src/activities/model/retry-delay';
import {
  answerTimeoutMs,
  modelActivityOptions,
  modelCallTimeouts,
  streamSilenceMs,
} from '../../src/workflows/goal/model-turn/retry-policy';
import { parseGoalInput } from '../../src/workflows/goal/lifecycle/input';
import { modelInput } from '../../src/cli/model-flags';
import { formatWait } from '../../src/workflows/goal/lifecycle/failures';

const highest = () => 0.999_999;
const lowest = () => 0;

test('full jitter: the wait is drawn from [0, base·2^(attempt-1)], doubling per attempt', () => {
  assert.equal(retryDelayMs({ attempt: 1, random: highest }), 999);
  assert.equal(retryDelayMs({ attempt: 2, random: highest }), 1999);
  assert.equal(retryDelayMs({ attempt: 3, random: highest }), 3999);
  assert.equal(retryDelayMs({ attempt: 4, random: () => 0.5 }), 4000);
  // the least draw is the floor Temporal still reads as a delay, not "none given"
  assert.equal(retryDelayMs({ attempt: 4, random: lowest }), RETRY_MIN_MS);
});

test('the cap: from the fifth attempt on, no wait is longer than 10 s', () => {
  for (const attempt of [5, 6, 10, 100, 10_000]) {
    assert.equal(retryDelayMs({ attempt, random: highest }), RETRY_CAP_MS - 1, `attempt ${attempt}`);
  }
  assert.equal(RETRY_CAP_MS, 10_000);
});

test('jitter bounds: a thousand real draws stay within [0.1 s, window] and spread over it', () => {
  const draws = Array.from({ length: 1000 }, () => retryDelayMs({ attempt: 8 }));
  assert.ok(draws.every((delay) => delay >= RETRY_MIN_MS && delay <= RETRY_CAP_MS));
  assert.ok(Math.min(...draws) < 2000 && Math.max(...draws) > 8000, 'not one lockstep value');
});

test('retry-after is a floor: the jitter comes on top, so no request is early and a fleet spreads', () => {
  assert.equal(retryDelayMs({ attempt: 1, retryAfterMs: 20_000, random: lowest }), 20_000);
  assert.equal(retryDelayMs({ attempt: 9, retryAfterMs: 20_000, random: highest }), 29_999);
  for (let attempt = 1; attempt < 30; attempt++)
    assert.ok(retryDelayMs({ attempt, retryAfterMs: 3000 }) >= 3000);
});

test('retry-after is read as seconds, as an HTTP date, or from retry-after-ms', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs(new Headers({ 'retry-after': '20' }), now), 20_000);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': '1.5' }), now), 1500);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now), 30_000);
  assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now), 250);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': '0' }), now), undefined, '"now": backoff decides');
  assert.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now), undefined);
  assert.equal(retryAfterMs(new Headers(), now), undefined);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': '999999' }), now), 60 * 60_000, 'an hour at most');
});

test('an attempt may stream max_tokens at 128,000 tokens an hour, after the first-event wait', () => {
  assert.equal(answerTimeoutMs(128_000, 0), 60 * 60_000);
  assert.equal(answerTimeoutMs(4096, 300_000), 300_000 + 115_200);
  const config = parseGoalInput({ goal: 'g', workspace: '/w', model: { maxTokens: 64_000 } });
  assert.ok(config.ok);
  const timeouts = modelCallTimeouts(config.config, 64_000);
  assert.equal(timeouts.startToCloseTimeout, 300_000 + 1_800_000);
  // patience bounds the waiting; the answer that begins at its end still gets its whole attempt
  assert.equal(timeouts.scheduleToCloseTimeout, 6 * 60 * 60_000 + 300_000 + 1_800_000);
});

test('the model proxy: no attempt limit, the patience ends it; a silent stream ends an attempt', () => {
  const parsed = parseGoalInput({ goal: 'g', workspace: '/w' });
  assert.ok(parsed.ok);
  const options = modelActivityOptions(parsed.config);
  assert.equal(options.retry?.maximumAttempts, undefined, 'no attempt limit');
  assert.ok(options.scheduleToCloseTimeout !== undefined, 'the patience is the limit');
  assert.equal(options.heartbeatTimeout, 60_000, 'twice the 30 s heartbeat timeout by default');
  assert.equal(streamSilenceMs({ ...parsed.config.timing, streamSilenceMs: 5000 }), 5000);
  assert.ok(options.retry?.nonRetryableErrorTypes?.includes('ModelAuthentication'));
});

test('keel run --model-patience sets model.patienceMs; the goal input checks it', () => {
  assert.deepEqual(modelInput({ cache: true, modelPatience: 90_000 }), { model: { patienceMs: 90_000 } });
  const parsed = parseGoalInput({ goal: 'g', workspace: '/w', model: { patienceMs: 0 } });
  assert.equal(parsed.ok, false);
});

test('a wait reads short: seconds, minutes and seconds, hours and minutes', () => {
  assert.equal(formatWait(4_400), '4s');
  assert.equal(formatWait(90_000), '1m 30s');
  assert.equal(formatWait(6 * 60 * 60_000 + 5 * 60_000 + 7_000), '6h 5m');
  assert.equal(formatWait(2 * 60 * 60_000), '2h');
});
