import { inWorkflowContext, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import { modelTaskQueue } from '../../hosts/host-queues';
import { NON_RETRYABLE_MODEL_FAILURES } from '../../common/failure-types';
import { DEFAULT_MODEL_PATIENCE_MS, type GoalConfig } from '../lifecycle/input';

/**
 * The slowest output speed an answer is allowed: an hour per 128,000 tokens (28.125 ms a token,
 * about 36 tokens a second). It is the Anthropic SDK's own figure for how long a request may
 * take ("the default timeout will be calculated dynamically using the formula
 * `(60 * 60 * maxTokens) / 128_000` [seconds] ... a timeout up to 60 minutes, scaled by the
 * max_tokens parameter": anthropic-sdk-typescript README, "Timeouts"; the API's errors page,
 * "Long requests", names the same 10-minute check for non-streaming requests).
 */
export const SLOWEST_MS_PER_OUTPUT_TOKEN = (60 * 60 * 1000) / 128_000;

/**
 * How long one attempt of a model call may run: the wait for its first event (modelTimeoutMs)
 * plus max_tokens at the slowest speed, so an answer max_tokens allows is never cut while it is
 * still streaming. A stream that stops is ended sooner by its heartbeat timeout.
 */
export function answerTimeoutMs(maxTokens: number, firstEventWithinMs: number): number {
  return firstEventWithinMs + Math.ceil(maxTokens * SLOWEST_MS_PER_OUTPUT_TOKEN);
}

/** The model call's heartbeat timeout: the longest its stream may be silent. */
export function streamSilenceMs(timing: GoalConfig['timing']): number {
  return timing.streamSilenceMs ?? 2 * timing.heartbeatTimeoutMs;
}

/**
 * One model call's timeouts. Schedule-to-close is the goal's patience plus one whole attempt:
 * patience bounds the waiting, and an answer that begins just before it ends may still finish.
 */
export function modelCallTimeouts(
  config: Pick<GoalConfig, 'model' | 'timing'>,
  maxTokens: number,
): Pick<ActivityOptions, 'startToCloseTimeout' | 'scheduleToCloseTimeout'> {
  const attempt = answerTimeoutMs(maxTokens, config.timing.modelTimeoutMs);
  // A state carried from a run older than the setting may lack it.
  const patience = config.model.patienceMs ?? DEFAULT_MODEL_PATIENCE_MS;
  return { startToCloseTimeout: attempt, scheduleToCloseTimeout: patience + attempt };
}

/**
 * Where a goal's model calls go: the fleet's model queue, whose dispatch Temporal's server paces
 * (worker/model-queue-worker.ts), when its workers hold a model request limit (`shared`, as the goal read
 * the worker's defaults at its start); the goal's own queue otherwise, where the SDK runs an
 * activity its workflow task scheduled without another poll (about 45 ms a call less). Replay
 * compares an activity's id and type, never its queue, so running goals move safely.
 */
export function modelQueue(shared: boolean | undefined): Pick<ActivityOptions, 'taskQueue'> {
  return shared && inWorkflowContext() ? { taskQueue: modelTaskQueue(workflowInfo().taskQueue) } : {};
}

/**
 * The model proxy's options. Transient trouble (429, 529, 5xx, lost connections, error events
 * mid-stream, silent streams) is retried without an attempt limit until the patience is used
 * up; the activity sets each wait itself (activities/model/retry-delay.ts: the retry-after plus
 * full jitter, at most 10 s beyond it), so these intervals only apply to timeouts, which fail
 * without a word from the activity. The calls set their own timeouts (modelCallTimeouts).
 */
export function modelActivityOptions(config: Pick<GoalConfig, 'model' | 'timing'>): ActivityOptions {
  return {
    ...modelCallTimeouts(config, config.model.maxTokens),
    heartbeatTimeout: streamSilenceMs(config.timing),
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '10s',
      // No maximumAttempts: unlimited (the SDK refuses 0); the schedule-to-close timeout, the
      // patience, ends the waiting instead, so the policy cannot run out before it does.
      nonRetryableErrorTypes: [...NON_RETRYABLE_MODEL_FAILURES],
    },
  };
}
