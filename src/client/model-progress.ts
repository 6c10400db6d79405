import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import {
  decodeArrayFromPayloads,
  decodeFromPayloadsAtIndex,
  decodeOptionalFailureToOptionalError,
} from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import type { StreamProgress } from '../workflows/goal/model-turn/call-settings';
import { DEFAULT_MODEL_PATIENCE_MS } from '../workflows/goal/lifecycle/input';
import type { GoalHandle } from './goal-client';
import { modelWaitOf, type ModelWait, type PendingModelCall } from './model-wait';
import { millisecondsOf } from './worker-heartbeats';

/** The model activities (activities/model/model-activity.ts) whose pending state keel reads. */
const MODEL_ACTIVITIES = new Set(['callModel', 'callStructured']);

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;
const State = temporal.api.enums.v1.PendingActivityState;

/**
 * The answer a goal's model is writing now, from the heartbeat details of its pending callModel
 * activity (decoded with the client's data converter, so encrypted payloads are read too);
 * undefined when no model call is streaming. An attempt that failed leaves its last stream in the
 * details with the error (model-activity.ts): that is a wait, not an answer forming.
 */
export async function modelProgress(client: Client, handle: GoalHandle): Promise<StreamProgress | undefined> {
  return (await modelActivity(client, await handle.describe())).progress;
}

/** What the goal's model call shows now: its stream while it answers, its wait after a failure. */
export interface ModelActivityNow {
  progress?: StreamProgress;
  wait?: ModelWait;
}

/**
 * The goal's pending model call as the server holds it. The goal's patience is read only when
 * the call waits (one history event; see goalPatienceMs).
 */
export async function modelActivity(
  client: Client,
  description: WorkflowExecutionDescription,
  now: () => number = Date.now,
  patience: (description: WorkflowExecutionDescription) => Promise<number | undefined> = (of) =>
    goalPatienceMs(client, of),
): Promise<ModelActivityNow> {
  for (const activity of description.raw.pendingActivities ?? []) {
    if (!MODEL_ACTIVITIES.has(activity.activityType?.name ?? '')) continue;
    const details = await heartbeatOf(client, activity);
    const lastError = typeof details?.lastError === 'string' ? details.lastError : undefined;
    const call = await pendingModelCall(client, activity, lastError);
    const failed = call.lastFailure !== undefined || lastError !== undefined;
    const wait = failed
      ? modelWaitOf({ ...call, patienceMs: await patience(description) }, now())
      : undefined;
    const progress =
      isStreamProgress(details) && lastError === undefined && call.state === 'started' ? details : undefined;
    return { ...(progress ? { progress } : {}), ...(wait ? { wait } : {}) };
  }
  return {};
}

/** One pending model activity in model-wait.ts's terms, its failure decoded (it may be encrypted). */
export async function pendingModelCall(
  client: Client,
  activity: PendingActivity,
  lastError?: string,
): Promise<PendingModelCall> {
  const expiration = millisecondsOf(activity.expirationTime);
  const window = millisecondsOf(activity.activityOptions?.scheduleToCloseTimeout);
  const lastFailure = await failureOf(client, activity);
  return {
    activity: activity.activityType?.name ?? 'activity',
    state: stateOf(activity.state),
    attempt: activity.attempt ?? 1,
    ...(lastFailure === undefined ? {} : { lastFailure }),
    ...(lastError === undefined ? {} : { lastError }),
    ...(activity.nextAttemptScheduleTime
      ? { nextAttemptAtMs: millisecondsOf(activity.nextAttemptScheduleTime) }
      : {}),
    // The server moves scheduledTime to each retry; the deadline stays where the first schedule
    // put it (first scheduled + schedule-to-close), so the wait began that long before it.
    ...(expiration === undefined || window === undefined ? {} : { waitingSinceMs: expiration - window }),
  };
}

/**
 * The goal's model.patienceMs, from this run's start (each run starts with the goal's config:
 * goal/workflow.ts continues as new with it): the status query does not carry it, and the call's
 * own timeouts mix it with the time of one attempt. Undefined when the start cannot be read.
 */
export async function goalPatienceMs(
  client: Client,
  description: Pick<WorkflowExecutionDescription, 'workflowId' | 'runId'>,
): Promise<number | undefined> {
  try {
    const response = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: description.workflowId, runId: description.runId },
      maximumPageSize: 1,
    });
    const payloads = response.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
    if (!payloads?.length) return undefined;
    const config = await decodeFromPayloadsAtIndex<{ model?: { patienceMs?: unknown } }>(
      client.workflow.options.loadedDataConverter,
      0,
      payloads,
    );
    const patience = config?.model?.patienceMs;
    // Absent in a config from before the setting: the default applies (modelCallTimeouts).
    return typeof patience === 'number' ? patience : DEFAULT_MODEL_PATIENCE_MS;
  } catch {
    return undefined;
  }
}

async function heartbeatOf(
  client: Client,
  activity: PendingActivity,
): Promise<Record<string, unknown> | undefined> {
  const payloads = activity.heartbeatDetails?.payloads;
  if (!payloads || payloads.length === 0) return undefined;
  const [details] = await decodeArrayFromPayloads(
    client.workflow.options.loadedDataConverter,
    payloads,
  ).catch(() => []);
  return typeof details === 'object' && details !== null ? (details as Record<string, unknown>) : undefined;
}

async function failureOf(
  client: Client,
  activity: PendingActivity,
): Promise<PendingModelCall['lastFailure']> {
  if (!activity.lastFailure) return undefined;
  const error = await decodeOptionalFailureToOptionalError(
    client.workflow.options.loadedDataConverter,
    activity.lastFailure,
  ).catch(() => undefined);
  if (error instanceof ApplicationFailure)
    return { ...(error.type ? { type: error.type } : {}), message: error.message };
  // A heartbeat or start-to-close timeout: the worker stopped mid-call, or the stream went quiet.
  if (error instanceof TimeoutFailure)
    return { type: 'timeout', message: `${String(error.timeoutType)} timeout` };
  return { message: error?.message ?? activity.lastFailure.message ?? 'unknown failure' };
}

function stateOf(state: PendingActivity['state']): PendingModelCall['state'] {
  if (state === State.PENDING_ACTIVITY_STATE_STARTED) return 'started';
  if (state === State.PENDING_ACTIVITY_STATE_PAUSED || state === State.PENDING_ACTIVITY_STATE_PAUSE_REQUESTED)
    return 'paused';
  if (state === State.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED) return 'cancel-requested';
  return 'scheduled';
}

function isStreamProgress(value: unknown): value is StreamProgress {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'model-stream' &&
    typeof (value as { outputTokens?: unknown }).outputTokens === 'number' &&
    typeof (value as { latest?: unknown }).latest === 'string'
  );
}
