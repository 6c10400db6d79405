import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { msToNumber } from '@temporalio/common/lib/time';
import { toModelFailure } from '../../src/activities/model/model-errors';
import { FailureType, RetryableModelFailureType } from '../../src/workflows/common/failure-types';

/** An error event inside a 200 stream, as the SDK throws it: an APIError without a status. */
function streamError(type: string, message = 'Overloaded'): InstanceType<typeof Anthropic.APIError> {
  const body = { type: 'error', error: { type, message } };
  return new Anthropic.APIError(undefined, body, undefined, new Headers(), type as 'api_error');
}

function statusError(status: number, headers: Record<string, string> = {}, body?: object) {
  return Anthropic.APIError.generate(
    status,
    body ?? { type: 'error', error: { type: 'x', message: 'm' } },
    undefined,
    new Headers(headers),
  );
}

const delay = (failure: { nextRetryDelay?: unknown }) =>
  failure.nextRetryDelay === undefined ? undefined : msToNumber(failure.nextRetryDelay as number);

test('an error event mid-stream is the status its type names: overload and rate limits are retried', () => {
  const cases: Array<[string, string]> = [
    ['overloaded_error', RetryableModelFailureType.Overloaded],
    ['rate_limit_error', RetryableModelFailureType.RateLimited],
    ['api_error', RetryableModelFailureType.ServerError],
    ['some_new_error', RetryableModelFailureType.ServerError],
  ];
  for (const [type, expected] of cases) {
    const failure = toModelFailure(streamError(type), { attempt: 3, random: () => 0.5 });
    assert.equal(failure.type, expected, type);
    assert.equal(failure.nonRetryable, false, type);
    assert.match(failure.message, /stream broke off with an error/);
    assert.match(failure.message, new RegExp(type));
    assert.equal(delay(failure), 2000, `${type}: the activity draws its own wait`);
  }
});

test('an error event mid-stream that can never succeed fails at once with its named type', () => {
  const failure = toModelFailure(streamError('invalid_request_error', 'bad tool schema'));
  assert.equal(failure.type, FailureType.ModelBadRequest);
  assert.equal(failure.nonRetryable, true);
  assert.match(failure.message, /bad tool schema/);
});

test('a 429 waits at least its retry-after; 529 and 5xx wait the backoff; 401 never waits', () => {
  const limited = toModelFailure(statusError(429, { 'retry-after': '20' }), { attempt: 1, random: () => 0 });
  assert.equal(limited.type, RetryableModelFailureType.RateLimited);
  assert.equal(delay(limited), 20_000);
  const overloaded = toModelFailure(statusError(529), { attempt: 12, random: () => 0.999 });
  assert.equal(overloaded.type, RetryableModelFailureType.Overloaded);
  assert.ok((delay(overloaded) ?? 0) <= 10_000, 'capped at 10 s');
  for (const status of [500, 502, 503, 504]) {
    const failure = toModelFailure(statusError(status), { attempt: 1 });
    assert.equal(failure.nonRetryable, false, `${status}`);
  }
  const denied = toModelFailure(
    statusError(
      401,
      {},
      { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    ),
  );
  assert.equal(denied.type, FailureType.ModelAuthentication);
  assert.equal(denied.nonRetryable, true);
  assert.match(denied.message, /invalid x-api-key/, "the API's own message");
});

test('a 429 for a spent monthly limit is not waited out: no retry helps before it resets', () => {
  const body = {
    type: 'error',
    error: {
      type: 'rate_limit_error',
      message: 'spend limit reached',
      details: { error_code: 'enforced_spend_limit_reached' },
    },
  };
  const failure = toModelFailure(statusError(429, {}, body));
  assert.equal(failure.type, FailureType.ModelSpendLimitReached);
  assert.equal(failure.nonRetryable, true);
});

test('a 402 billing error is not waited out either: someone must pay first', () => {
  const body = { type: 'error', error: { type: 'billing_error', message: 'payment method declined' } };
  const failure = toModelFailure(statusError(402, {}, body));
  assert.equal(failure.type, FailureType.ModelSpendLimitReached);
  assert.equal(failure.nonRetryable, true);
  assert.match(failure.message, /payment method declined/);
});

test('a lost connection is retried with the backoff', () => {
  const failure = toModelFailure(new Anthropic.APIConnectionError({ message: 'socket hang up' }), {
    attempt: 2,
    random: () => 0.5,
  });
  assert.equal(failure.type, RetryableModelFailureType.Connection);
  assert.equal(delay(failure), 1000);
});
