import type { Client, WorkflowExecutionDescription, WorkflowExecutionInfo } from '@temporalio/client';
import { searchAttributeValuesFrom } from '../workflows/goal/views/search-attribute-values';
import { millisecondsOf } from './worker-heartbeats';
import { goalPatienceMs, pendingModelCall } from './model-progress';
import { modelWaitOf, type ModelWait } from './model-wait';

/** `keel status` asks the pending model call too when a worker answers (status-commands.ts). */
export { modelActivity } from './model-progress';

/**
 * What the server holds of a goal without asking its worker: Temporal's own status and times, the
 * search attributes the goal upserts as it goes (goal/views/search-attribute-values.ts: status, phase, tool
 * calls, plan attempt, pending approvals, priority, host), its summary and the activities Temporal
 * waits on. What the status query adds (the calls' ids, messages, the plan's steps) lives in the
 * goal's state, which only a worker replaying it can read.
 */
export interface GoalRecord {
  workflowId: string;
  taskQueue: string;
  /** Temporal's status, lower case: running, completed, failed, canceled, terminated, … */
  execution: string;
  /** The goal as its start summarised it (keel run's staticSummary). */
  goal?: string;
  status?: string;
  phase?: string;
  /** May lag the exact count by a few calls (TOOL_CALLS_REFRESH_STEP). */
  toolCalls?: number;
  planAttempt?: number;
  pendingApprovals?: number;
  host?: string;
  startedAt: string;
  closedAt?: string;
  /** When the goal's history last changed: what the record is as of. */
  lastEventAt?: string;
  /** Activities Temporal has scheduled and not seen finish (e.g. a tool call waiting for its host). */
  pendingActivities: PendingActivityRecord[];
}

export interface PendingActivityRecord {
  type: string;
  attempt: number;
  lastFailure?: string;
  /** A model call that failed and is retried: what it waits on (model-wait.ts). */
  modelWait?: ModelWait;
}

/** The record of one goal from its description (keel status, keel plan). */
export async function goalRecordOf(
  client: Client,
  description: WorkflowExecutionDescription,
  /** When the description was taken: the waits' countdowns are as of then. */
  describedAt: number = Date.now(),
): Promise<GoalRecord> {
  const [goal, lastEventAt, pendingActivities] = await Promise.all([
    description.staticSummary().catch(() => undefined),
    lastEventTime(client, description.workflowId, description.runId),
    pendingActivitiesOf(client, description, describedAt),
  ]);
  return {
    ...recordOfInfo(description),
    ...(goal === undefined ? {} : { goal }),
    ...(lastEventAt === undefined ? {} : { lastEventAt }),
    pendingActivities,
  };
}

/** Each pending activity, its failure decoded (it may be encrypted); a model call's wait read. */
async function pendingActivitiesOf(
  client: Client,
  description: WorkflowExecutionDescription,
  describedAt: number,
): Promise<PendingActivityRecord[]> {
  let patience: Promise<number | undefined> | undefined;
  return Promise.all(
    (description.raw.pendingActivities ?? []).map(async (activity) => {
      const call = await pendingModelCall(client, activity);
      const isModel = call.activity === 'callModel' || call.activity === 'callStructured';
      // The patience costs a history read: only a model call that waits asks for it.
      if (isModel && call.lastFailure !== undefined) patience ??= goalPatienceMs(client, description);
      const modelWait =
        isModel && call.lastFailure !== undefined
          ? modelWaitOf({ ...call, patienceMs: await patience }, describedAt)
          : undefined;
      return {
        type: call.activity,
        attempt: call.attempt,
        ...(call.lastFailure === undefined ? {} : { lastFailure: call.lastFailure.message }),
        ...(modelWait === undefined ? {} : { modelWait }),
      };
    }),
  );
}

/** The record of a goal as a visibility listing gives it (keel pending): no summary, no activities. */
export async function goalRecordOfListing(client: Client, info: WorkflowExecutionInfo): Promise<GoalRecord> {
  const lastEventAt = await lastEventTime(client, info.workflowId, info.runId);
  return {
    ...recordOfInfo(info),
    ...(lastEventAt === undefined ? {} : { lastEventAt }),
    pendingActivities: [],
  };
}

function recordOfInfo(info: WorkflowExecutionInfo | WorkflowExecutionDescription) {
  const values = searchAttributeValuesFrom(info.typedSearchAttributes);
  return {
    workflowId: info.workflowId,
    taskQueue: info.taskQueue,
    execution: info.status.name.toLowerCase().replace(/_/g, ' '),
    ...(values.status === undefined ? {} : { status: values.status }),
    ...(values.phase === undefined ? {} : { phase: values.phase }),
    ...(values.toolCalls === undefined ? {} : { toolCalls: values.toolCalls }),
    ...(values.planAttempt === undefined ? {} : { planAttempt: values.planAttempt }),
    ...(values.pendingApprovals === undefined ? {} : { pendingApprovals: values.pendingApprovals }),
    ...(values.host === undefined || values.host === '' ? {} : { host: values.host }),
    startedAt: info.startTime.toISOString(),
    ...(info.closeTime === undefined ? {} : { closedAt: info.closeTime.toISOString() }),
  };
}

/** The time of the newest event in a run's history (one event read, newest first); undefined if unreadable. */
async function lastEventTime(client: Client, workflowId: string, runId: string): Promise<string | undefined> {
  try {
    const response = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution: { workflowId, runId },
      maximumPageSize: 1,
    });
    const at = millisecondsOf(response.history?.events?.[0]?.eventTime);
    return at === undefined ? undefined : new Date(at).toISOString();
  } catch {
    return undefined;
  }
}
