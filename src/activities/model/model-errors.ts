import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, RetryableModelFailureType } from '../../workflows/common/failure-types';
import { retryAfterMs, retryDelayMs } from './retry-delay';

const NON_RETRYABLE_BY_STATUS: Record<number, string> = {
  400: FailureType.ModelBadRequest,
  401: FailureType.ModelAuthentication,
  // platform.claude.com/docs/en/api/errors: billing_error, "an issue with your billing or payment
  // information": a person must pay before any retry can succeed.
  402: FailureType.ModelSpendLimitReached,
  403: FailureType.ModelPermissionDenied,
  404: FailureType.ModelNotFound,
  422: FailureType.ModelUnprocessable,
};

/**
 * The HTTP status an error event inside a stream stands for. After a 200 the API reports trouble
 * as an SSE `error` event with the usual error body ("during periods of high usage, you may
 * receive an overloaded_error, which would normally correspond to an HTTP 529 in a non-streaming
 * context": platform.claude.com/docs/en/build-with-claude/streaming, "Error events"); its `type`
 * names the status (platform.claude.com/docs/en/api/errors, "HTTP errors").
 */
const STATUS_BY_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export interface ModelFailureOptions {
  /** Temporal's number of the attempt that failed (1 for the first), for the backoff. */
  readonly attempt?: number;
  /** The jitter's source; Math.random unless a test fixes it. */
  readonly random?: () => number;
  /** The widest backoff window (timing.modelRetryCapMs); retry-delay.ts's 10 s otherwise. */
  readonly capMs?: number;
}

/**
 * Turns an SDK error into a Temporal failure. The SDK's own retries are off, so this is the one
 * place that decides: requests that can never succeed fail at once with a named type; overload,
 * rate limits, server errors, lost connections and errors inside a stream are retried by Temporal
 * after the wait retry-delay.ts draws (the retry-after the endpoint asked for, plus jitter).
 */
export function toModelFailure(error: unknown, options: ModelFailureOptions = {}): ApplicationFailure {
  const retryable = (message: string, type: string, retryAfter?: number): ApplicationFailure =>
    ApplicationFailure.create({
      message,
      type,
      nonRetryable: false,
      nextRetryDelay: retryDelayMs({
        attempt: options.attempt ?? 1,
        retryAfterMs: retryAfter,
        ...(options.random ? { random: options.random } : {}),
        ...(options.capMs === undefined ? {} : { capMs: options.capMs }),
      }),
    });
  if (error instanceof Anthropic.APIConnectionTimeoutError) {
    return retryable('model request timed out', RetryableModelFailureType.Timeout);
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return retryable(
      `could not reach the model endpoint: ${error.message}`,
      RetryableModelFailureType.Connection,
    );
  }
  if (error instanceof Anthropic.APIError) {
    const details = error as { error?: unknown; message: string; headers?: Headers };
    const inStream = typeof error.status !== 'number';
    const status = inStream ? STATUS_BY_ERROR_TYPE[error.type ?? ''] : error.status;
    if (status === undefined) {
      return retryable(
        `the model's stream broke off with an error: ${apiErrorMessage(details)}`,
        RetryableModelFailureType.ServerError,
      );
    }
    const message = inStream
      ? `the model's stream broke off with an error (as ${status}): ${apiErrorMessage(details)}`
      : `model endpoint answered ${status}: ${apiErrorMessage(details)}`;
    if (isContextTooLong(status, details)) {
      return ApplicationFailure.nonRetryable(message, FailureType.ModelContextTooLong);
    }
    // platform.claude.com/docs/en/api/errors: a 429 whose error_code is
    // enforced_spend_limit_reached lasts until the month's end or a higher tier; waiting it out
    // for hours would only hold the goal.
    if (error.errorCode === 'enforced_spend_limit_reached') {
      return ApplicationFailure.nonRetryable(message, FailureType.ModelSpendLimitReached);
    }
    const permanent = NON_RETRYABLE_BY_STATUS[status];
    if (permanent) return ApplicationFailure.nonRetryable(message, permanent);
    return retryable(message, retryableType(status), retryAfterMs(details.headers));
  }
  // Anything else (a socket reset mid-stream surfaces as a plain error): retried like a 5xx.
  const text = error instanceof Error ? error.message : String(error);
  return retryable(`model call failed: ${text}`, RetryableModelFailureType.ServerError);
}

/**
 * A request over the model's context window: 400 "prompt is too long: N tokens > M maximum"
 * (platform.claude.com/docs/en/build-with-claude/context-windows), or 413 request_too_large
 * for a body over the API's size limit. Retrying the same request can never succeed.
 */
function isContextTooLong(status: number, error: { error?: unknown; message: string }): boolean {
  if (status === 413) return true;
  return status === 400 && /prompt is too long/i.test(apiErrorMessage(error));
}

function retryableType(status: number): string {
  if (status === 429) return RetryableModelFailureType.RateLimited;
  if (status === 529) return RetryableModelFailureType.Overloaded;
  if (status === 408) return RetryableModelFailureType.Timeout;
  if (status === 409) return RetryableModelFailureType.Conflict;
  return RetryableModelFailureType.ServerError;
}

/** Anthropic's error body is {"type":"error","error":{"type":"...","message":"..."}}. */
function apiErrorMessage(error: { error?: unknown; message: string }): string {
  const body = error.error as { error?: { type?: unknown; message?: unknown } } | undefined;
  const type = typeof body?.error?.type === 'string' ? body.error.type : undefined;
  const message = typeof body?.error?.message === 'string' ? body.error.message : error.message;
  return type ? `${type}: ${message}` : message;
}
