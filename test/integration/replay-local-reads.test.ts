import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createMemoryReflectionStore } from '../../src/activities/reflection-store/memory-reflection-store';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { ensureKeelSearchAttributes } from '../../src/dev-server/search-attributes';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { createToolRegistry } from '../../src/worker';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { GoalStatus } from '../../src/workflows/goal/lifecycle/state';
import { goalStatusQuery } from '../../src/workflows/goal/messages';
import { hostTaskQueue, modelTaskQueue } from '../../src/workflows/hosts/host-queues';
import {
  createHarness,
  stopOwnServer,
  tempDirectory,
  temporalAddress,
  workflowBundle,
  type Harness,
} from '../support/temporal';

// Quick reads run as local activities (goal/lifecycle/activity-proxies.ts, localReads). A local activity's result
// can reach the workflow one workflow task after its marker was recorded: a query that arrives
// while it runs makes the task complete early. Replay hands the result over in the marker's own
// task, so whatever the workflow decides on receiving it must not depend on which task it is in.

const GOAL = 'GOAL-LOCAL-READS-REPLAY';
const HOST = 'replay-host';
const readTurn = (path: string) => ({ toolCalls: [{ name: 'read_file', input: { path } }] });

let harness: Harness;

before(async () => {
  const scenario: ScenarioInput = {
    name: 'local-reads-replay',
    match: GOAL,
    turns: [readTurn('one.txt'), readTurn('two.txt'), { text: 'read both' }],
  };
  harness = await createHarness({ scenarios: [scenario] });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test(
  'with no workflow cache and status queries all along, a goal of local reads completes and replays',
  { timeout: 60_000 },
  async () => {
    const history = await runGoalWithoutCache();
    const events = history.events;
    const failures = events.filter((event) => event.eventType === 'EVENT_TYPE_WORKFLOW_TASK_FAILED');
    for (const failure of failures) {
      const message = failure.workflowTaskFailedEventAttributes?.failure?.message ?? '';
      assert.doesNotMatch(message, /Nondeterminism|TMPRL1100/, message);
    }
    assert.ok(
      localActivityMarkers(events).some((marker) => marker.activityType === 'executeTool'),
      'the reads ran as local activities',
    );
    await assert.doesNotReject(replay(history), 'the history as recorded');
    // The same goal as Temporal records it when the task that ran a turn's first local activity
    // completed before the workflow saw its answer, as in the bench's failed replay: its marker,
    // then a task of its own for what followed. Reads are not checked by a local activity
    // (goal/tool-calls/prepared-calls.ts), so that activity is the read itself.
    await assert.doesNotReject(
      replay({ events: withLocalAnswerInNextTask(events) }),
      'the history with the local activity answered in the next workflow task',
    );
  },
);

/** A goal on a worker that keeps no workflow in cache: every task and query replays the history. */
async function runGoalWithoutCache(): Promise<JsonHistory> {
  const address = await temporalAddress();
  const connection = await NativeConnection.connect({ address });
  try {
    await ensureKeelSearchAttributes({ connection, namespace: 'default' });
    const directory = tempDirectory('keel-local-reads-');
    // The goal names its host, whose queue a second worker polls (createKeelWorker does both,
    // but takes no maxCachedWorkflows): the binding question and the tool calls go there.
    const activities = createActivities({
      anthropic: new Anthropic({ apiKey: 'test-key', baseURL: harness.scripted.url, maxRetries: 0 }),
      toolRegistry: createToolRegistry({}),
      journalDirectory: directory,
      backupDirectory: directory,
      reflectionStore: createMemoryReflectionStore({ warn: () => undefined }),
      ledgerSinks: [],
      hostId: HOST,
      workspaceRoots: [],
    });
    const hostWorker = await Worker.create({
      connection,
      namespace: 'default',
      taskQueue: hostTaskQueue(harness.taskQueue, HOST),
      dataConverter: dataConverterFromEnv(),
      activities,
    });
    // Model calls go to the model queue when the fleet holds a request limit (worker/model-queue-worker.ts).
    const modelWorker = await Worker.create({
      connection,
      namespace: 'default',
      taskQueue: modelTaskQueue(harness.taskQueue),
      dataConverter: dataConverterFromEnv(),
      activities,
    });
    const worker = await Worker.create({
      connection,
      namespace: 'default',
      taskQueue: harness.taskQueue,
      workflowBundle: await workflowBundle(),
      dataConverter: dataConverterFromEnv(),
      maxCachedWorkflows: 0,
      activities,
    });
    return await modelWorker.runUntil(() =>
      hostWorker.runUntil(() =>
        worker.runUntil(async () => {
          const workspace = tempDirectory('keel-ws-');
          const handle = await harness.client.workflow.start(goalWorkflow, {
            taskQueue: harness.taskQueue,
            workflowId: `local-reads-replay-${Date.now()}`,
            // Without a cache, a task that crosses a query now and then waits out its timeout (10 s).
            workflowTaskTimeout: '3s',
            args: [{ goal: `${GOAL}: read two files`, workspace, host: HOST }],
          });
          let done = false;
          const result = handle.result().finally(() => (done = true));
          // Polled as the bench's approver does: queries that land while a local activity runs.
          const poller = (async () => {
            while (!done) {
              await handle.query(goalStatusQuery).catch(() => undefined);
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          })();
          try {
            assert.equal((await result).status, GoalStatus.Completed);
          } finally {
            done = true;
            await poller;
          }
          return JSON.parse(JSON.stringify(await handle.fetchHistory())) as JsonHistory;
        }),
      ),
    );
  } finally {
    await connection.close();
  }
}

async function replay(history: JsonHistory): Promise<void> {
  await Worker.runReplayHistory(
    { workflowBundle: await workflowBundle(), dataConverter: dataConverterFromEnv() },
    // Decoded with the proto classes themselves, as in test/unit/replay-history.test.ts.
    temporal.api.history.v1.History.fromObject(history),
  );
}

/** A history in the JSON form the proto classes write (event ids as strings). */
interface JsonEvent {
  eventId: string;
  eventType: string;
  markerRecordedEventAttributes?: {
    markerName?: string;
    details?: Record<string, { payloads?: Array<{ data?: string }> }>;
    workflowTaskCompletedEventId?: string;
  };
  workflowTaskFailedEventAttributes?: { failure?: { message?: string } };
  [key: string]: unknown;
}
interface JsonHistory {
  events: JsonEvent[];
}

function localActivityMarkers(events: readonly JsonEvent[]) {
  return events.flatMap((event, index) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = marker.details?.data?.payloads?.[0]?.data ?? '';
    const { activity_type: activityType } = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as {
      activity_type: string;
    };
    return [{ index, activityType }];
  });
}

/**
 * Moves everything the workflow did after the first marker of a turn's local activity (the call
 * check, or a read) into a workflow task of its own (scheduled, started, completed), as recorded
 * live when that task completed early.
 */
function withLocalAnswerInNextTask(events: readonly JsonEvent[]): JsonEvent[] {
  const answered = localActivityMarkers(events).find(
    ({ index, activityType }) =>
      (activityType === 'prepareToolCalls' || activityType === 'executeTool') &&
      events[index + 1]?.eventType !== 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED',
  );
  assert.ok(answered, "a turn's local activity followed by more commands in the same workflow task");
  const markerId = Number(events[answered.index]!.eventId);
  const completedId = events[answered.index]!.markerRecordedEventAttributes?.workflowTaskCompletedEventId;
  const byId = (id: unknown) => events.find((event) => event.eventId === String(id))!;
  const completed = byId(completedId);
  const completedAttributes = completed.workflowTaskCompletedEventAttributes as Record<string, unknown>;
  const started = byId(completedAttributes.startedEventId);
  const scheduled = byId(completedAttributes.scheduledEventId);
  const id = (offset: number) => String(markerId + offset);
  const inserted: JsonEvent[] = [
    { ...scheduled, eventId: id(1) },
    {
      ...started,
      eventId: id(2),
      workflowTaskStartedEventAttributes: {
        ...(started.workflowTaskStartedEventAttributes as object),
        scheduledEventId: id(1),
      },
    },
    {
      ...completed,
      eventId: id(3),
      workflowTaskCompletedEventAttributes: {
        ...completedAttributes,
        scheduledEventId: id(1),
        startedEventId: id(2),
      },
    },
  ];
  const shifted = events.slice(answered.index + 1).map((event) => shiftIds(event, markerId, inserted.length));
  // The commands that followed the marker now belong to the inserted task.
  for (const event of shifted) {
    if (event.eventType === 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED') break;
    for (const value of Object.values(event)) {
      if (value !== null && typeof value === 'object' && 'workflowTaskCompletedEventId' in value) {
        (value as Record<string, unknown>).workflowTaskCompletedEventId = id(3);
      }
    }
  }
  return [...events.slice(0, answered.index + 1), ...inserted, ...shifted];
}

/** A copy of the event with every reference to an event after `after` moved by `by`. */
function shiftIds(event: JsonEvent, after: number, by: number): JsonEvent {
  const shift = (value: unknown, key: string): unknown => {
    if (
      typeof value === 'string' &&
      (key === 'eventId' || key.endsWith('EventId')) &&
      Number(value) > after
    ) {
      return String(Number(value) + by);
    }
    if (Array.isArray(value)) return value.map((item) => shift(item, ''));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, shift(inner, name)]));
    }
    return value;
  };
  return shift(event, '') as JsonEvent;
}
