import * as wf from '@temporalio/workflow';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { RetryState, TimeoutType } from '@temporalio/common';
import type { ToolCallRecord } from './state';
import type { NamedCall } from '../tool-calls/call-ids';
import { recordBase } from '../tool-calls/turn';
import { FailureType, RetryableModelFailureType } from '../../common/failure-types';
import type { ModelTrouble } from '../model-turn/fallback';
import { outcomeUnknownDetailsSchema, type OutcomeUnknownDetails } from '../../tools/outcome-unknown';
import { unexecutedToolCallNote } from '../../reflection/reflection-response';
import { cutCallResult } from '../model-turn/stop-reasons';
import { earlierAttemptOf, type EarlierAttempt } from '../../tools/earlier-attempts';

/** A call held back under hard enforcement: returned unexecuted with a request for the answer. */
export function heldBack(call: NamedCall): ToolCallRecord {
  return {
    ...recordBase(call),
    reversibility: 'read-only',
    summary: `${call.toolUse.name} (held back)`,
    status: 'done',
    result: { content: unexecutedToolCallNote(), isError: true },
  };
}

/** A call whose input the max_tokens limit cut off: answered unrun (goal/model-turn/stop-reasons.ts). */
export function cutOff(call: NamedCall, maxTokens: number): ToolCallRecord {
  return {
    ...recordBase(call),
    reversibility: 'read-only',
    summary: `${call.toolUse.name} (cut off at max_tokens, not run)`,
    status: 'done',
    result: { content: cutCallResult(maxTokens), isError: true },
  };
}

export function describeFailure(error: unknown): string {
  if (error instanceof ActivityFailure) {
    const cause = error.cause;
    if (cause instanceof TimeoutFailure)
      return `the call timed out (${cause.timeoutType}) — the worker may have stopped mid-call`;
    if (cause) return cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * An activity failed with keel's failure `type` (ApplicationFailure.type): wrapped in an
 * ActivityFailure, or as it is (how a local activity's failure can reach the workflow).
 */
export function isFailureOfType(error: unknown, type: string): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type === type;
}

/** What the tool activity's journal said of an irreversible call whose outcome is unknown. */
export function outcomeUnknownDetailsOf(error: unknown): OutcomeUnknownDetails | undefined {
  if (!(error instanceof ActivityFailure) || !(error.cause instanceof ApplicationFailure)) return undefined;
  if (error.cause.type !== FailureType.OutcomeUnknown) return undefined;
  const parsed = outcomeUnknownDetailsSchema.safeParse(error.cause.details?.[0]);
  return parsed.success ? parsed.data : undefined;
}

/**
 * What the failure of a call on a host that went away says of its attempts there (see
 * earlierAttemptOf): the cause Temporal attaches is an earlier attempt's failure, and the
 * heartbeat details an irreversible attempt sends before it begins name its journal.
 */
export function earlierAttemptOnAwayHost(host: string, error: unknown): EarlierAttempt {
  const timeout = error instanceof ActivityFailure ? error.cause : undefined;
  const scheduleToStart = timeout instanceof TimeoutFailure && timeout.timeoutType === 'SCHEDULE_TO_START';
  const details: unknown = timeout instanceof TimeoutFailure ? timeout.lastHeartbeatDetails : undefined;
  const journalId =
    typeof details === 'object' &&
    details !== null &&
    'journalId' in details &&
    typeof details.journalId === 'string'
      ? details.journalId
      : undefined;
  return earlierAttemptOf({
    host,
    scheduleToStart,
    earlierFailure: timeout?.cause !== undefined,
    heartbeatJournalId: journalId,
  });
}

/**
 * A model call that failed for good fails the goal: with the same, non-retryable type, or with
 * ModelUnavailable when the goal's patience ran out on trouble that retries could have outlasted
 * (its schedule-to-close timeout fired, or the next retry would have come after it).
 */
export function modelFailure(
  error: unknown,
  waited?: { waitedMs: number; patienceMs: number | undefined },
): unknown {
  if (wf.isCancellation(error)) return error;
  if (waited !== undefined && patienceRanOut(error)) {
    const patience = waited.patienceMs === undefined ? '' : ` (patience ${formatWait(waited.patienceMs)})`;
    return ApplicationFailure.nonRetryable(
      `the model API stayed unavailable for ${formatWait(waited.waitedMs)}${patience}; last error: ${lastError(error)}`,
      FailureType.ModelUnavailable,
    );
  }
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
    const cause = error.cause;
    return ApplicationFailure.nonRetryable(
      `model call failed: ${cause.message}`,
      cause.type ?? 'ModelCallFailed',
    );
  }
  return ApplicationFailure.nonRetryable(`model call failed: ${describeFailure(error)}`, 'ModelCallFailed');
}

/**
 * A model call whose window (schedule-to-close) ended while the API kept refusing: what it last
 * said, for the fallback decision (goal/model-turn/fallback.ts); undefined for any other failure. The type
 * of the last attempt's failure when the server attached it (a retry that would come too late),
 * else the last error the activity put in its heartbeat ("model endpoint answered 529: ...",
 * "... (as 429): ...": activities/model/model-errors.ts).
 */
export function modelTroubleAtDeadline(error: unknown): ModelTrouble | undefined {
  if (!patienceRanOut(error)) return undefined;
  let failure: unknown = error instanceof ActivityFailure ? error.cause : error;
  while (failure instanceof TimeoutFailure) {
    const beat = failure.lastHeartbeatDetails as { lastError?: unknown } | undefined;
    // No error in the last beat: the model was working on an answer when the window ended.
    if (failure.cause === undefined)
      return typeof beat?.lastError === 'string' ? troubleInMessage(beat.lastError) : 'answering';
    failure = failure.cause;
  }
  if (failure instanceof ApplicationFailure) {
    if (failure.type === RetryableModelFailureType.Overloaded) return 'overloaded';
    if (failure.type === RetryableModelFailureType.RateLimited) return 'rate-limited';
    return troubleInMessage(failure.message);
  }
  return 'other';
}

function troubleInMessage(message: string): ModelTrouble {
  const status = /\b(?:answered|as) (429|529)\b/.exec(message)?.[1];
  return status === '529' ? 'overloaded' : status === '429' ? 'rate-limited' : 'other';
}

function patienceRanOut(error: unknown): boolean {
  if (!(error instanceof ActivityFailure)) return false;
  const cause = error.cause;
  if (cause instanceof TimeoutFailure && cause.timeoutType === TimeoutType.SCHEDULE_TO_CLOSE) return true;
  return error.retryState === RetryState.TIMEOUT;
}

/** The last attempt's own failure: what the API last said, or which timeout ended it. */
function lastError(error: unknown): string {
  let failure: unknown = error instanceof ActivityFailure ? error.cause : error;
  const timeouts: string[] = [];
  while (failure instanceof TimeoutFailure) {
    const beat = failure.lastHeartbeatDetails as { lastError?: unknown } | undefined;
    // The server attaches no cause to a schedule-to-close timeout that fires between attempts;
    // the model activity's last heartbeat names the error it last retried (model-activity.ts).
    if (typeof beat?.lastError === 'string' && failure.cause === undefined) return beat.lastError;
    if (failure.timeoutType !== TimeoutType.SCHEDULE_TO_CLOSE)
      timeouts.push(
        `no data within the ${String(failure.timeoutType).toLowerCase().replace(/_/g, '-')} timeout`,
      );
    failure = failure.cause;
  }
  if (failure instanceof Error) return failure.message;
  return timeouts[0] ?? 'none recorded (the patience ran out during the first attempt)';
}

/** 90000 → "1m 30s"; 7200000 → "2h"; short and exact enough for a failure message. */
export function formatWait(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  const parts = [
    hours > 0 ? `${hours}h` : '',
    minutes > 0 ? `${minutes}m` : '',
    rest > 0 && hours === 0 ? `${rest}s` : '',
  ];
  return parts.filter((part) => part !== '').join(' ');
}

/**
 * The host's answer claimed the workspace for this goal, or refused it because it nests with a
 * running goal's: a start, a rebind and a carry are held to the same rule.
 */
export function refuseNested(probe: { refusal?: string } | undefined): void {
  if (probe?.refusal !== undefined)
    throw ApplicationFailure.nonRetryable(probe.refusal, FailureType.WorkspaceNested);
}
