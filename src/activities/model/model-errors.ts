import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, RetryableModelFailureType } from '../../workflows/common/failure-types';

const NON_RETRYABLE_BY_STATUS: Record<number, string> = {
  400: FailureType.ModelBadRequest,
  401: FailureType.ModelAuthentication,
  403: FailureType.ModelPermissionDenied,
  404: FailureType.ModelNotFound,
  422: FailureType.ModelUnprocessable,
};

/**
 * Turns an SDK error into a Temporal failure. The SDK's own retries are off, so this is the one
 * place that decides: requests that can never succeed fail at once with a named type; overload,
 * rate limits, server errors and lost connections are retried by Temporal with backoff.
 */
export function toModelFailure(error: unknown): ApplicationFailure {
  if (error instanceof Anthropic.APIConnectionTimeoutError) {
    return ApplicationFailure.retryable(`model request timed out`, RetryableModelFailureType.Timeout);
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return ApplicationFailure.retryable(
      `could not reach the model endpoint: ${error.message}`,
      RetryableModelFailureType.Connection,
    );
  }
  if (error instanceof Anthropic.APIError && typeof error.status === 'number') {
    const status = error.status;
    const details = error as { error?: unknown; message: string; headers?: Headers };
    const message = `model endpoint answered ${status}: ${apiErrorMessage(details)}`;
    if (isContextTooLong(status, details)) {
      return ApplicationFailure.nonRetryable(message, FailureType.ModelContextTooLong);
    }
    const permanent = NON_RETRYABLE_BY_STATUS[status];
    if (permanent) return ApplicationFailure.nonRetryable(message, permanent);
    return ApplicationFailure.create({
      message,
      type: retryableType(status),
      nonRetryable: false,
      nextRetryDelay: retryAfterMs(details.headers),
    });
  }
  // Unknown statuses and anything else: let Temporal retry within the policy's limit.
  const text = error instanceof Error ? error.message : String(error);
  return ApplicationFailure.retryable(`model call failed: ${text}`, RetryableModelFailureType.ServerError);
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

/** Honour the endpoint's retry-after (seconds) when it gives one, within reason. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  // "0" means "now": the retry policy's own backoff is the better guide (and Temporal treats a
  // zero next-retry delay as no retry at all).
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  return Math.min(seconds, 300) * 1000;
}
