import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { WORKFLOWS_PATH } from '../../src/worker';
import { REPRESENTATIVE_WORKFLOW_ID } from '../fixtures/representative-goal';
import { TOOL_TURNS_WORKFLOW_ID } from '../fixtures/tool-turns-goal';
import { ESCALATION_WORKFLOW_ID } from '../fixtures/escalation-goal';

Runtime.install({ logger: new DefaultLogger('WARN') });

// A recorded goal (planning, backtracking, a checkpoint, an approval, a budget warning) replayed
// against today's workflow code: a change that breaks determinism fails here, before it ships and
// strands running goals. Re-record with scripts/record-history.ts only for a versioned change.
test('the recorded representative goal replays without nondeterminism', async () => {
  const file = path.resolve(__dirname, '../fixtures/histories/representative-goal.json');
  const history: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const events = (history as { events: Array<{ eventType: string }> }).events;
  assert.ok(events.length > 50, 'a substantial history');
  assert.equal(events.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  // Decoded with the proto classes themselves (the SDK's JSON path trips over duplicate protobufjs copies).
  const decoded = temporal.api.history.v1.History.fromObject(history as Record<string, unknown>);
  await Worker.runReplayHistory(
    { workflowsPath: WORKFLOWS_PATH, dataConverter: dataConverterFromEnv() },
    decoded,
    REPRESENTATIVE_WORKFLOW_ID,
  );
});

// The tool-turns goal (test/fixtures/tool-turns-goal.ts): the start's lookups as local
// activities, reads as local activities, no check before the reads and the write (only before the
// command, which waits for a human), and KeelToolCalls written with other changes instead of at
// every call.
test('the recorded tool-turns goal replays without nondeterminism', async () => {
  const file = path.resolve(__dirname, '../fixtures/histories/tool-turns.json');
  const history: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const events = (history as { events: RecordedEvent[] }).events;
  assert.equal(events.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  assert.equal(localActivities(events, 'prepareToolCalls'), 1, 'only the command was checked');
  for (const lookup of ['listHosts', 'describeTools', 'workerDefaults'])
    assert.equal(localActivities(events, lookup), 1, `${lookup} as a local activity`);
  assert.ok(localActivities(events, 'executeTool') >= 10, 'the reads as local activities');
  const toolCallWrites = events.filter(
    (event) =>
      event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.KeelToolCalls,
  );
  assert.ok(toolCallWrites.length < 13 / 2, `${toolCallWrites.length} writes of KeelToolCalls for 13 calls`);
  await Worker.runReplayHistory(
    { workflowsPath: WORKFLOWS_PATH, dataConverter: dataConverterFromEnv() },
    temporal.api.history.v1.History.fromObject(history as Record<string, unknown>),
    TOOL_TURNS_WORKFLOW_ID,
  );
});

interface RecordedEvent {
  eventType: string;
  markerRecordedEventAttributes?: {
    markerName?: string;
    details?: Record<string, { payloads?: Array<{ data?: string }> }>;
  };
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
  upsertWorkflowSearchAttributesEventAttributes?: {
    searchAttributes?: { indexedFields?: Record<string, unknown> };
  };
}

/** How many local activities of this type the history's markers record. */
function localActivities(events: readonly RecordedEvent[], activityType: string): number {
  return events.filter((event) => {
    const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    if (data === undefined) return false;
    const marker = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { activity_type?: string };
    return marker.activity_type === activityType;
  }).length;
}

function scheduledActivities(events: readonly RecordedEvent[]): string[] {
  return events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
}

// Keel's call naming (src/workflows/goal/tool-calls/call-ids.ts): a tool_use id sent twice in one turn, and
// a command whose deletion was held on its layer, approved, then applied by settleHeldChanges.
// Guards the determinism of keel's call naming and of escalations.
test('a goal recorded with a repeated tool_use id and a held escalation replays without nondeterminism', async () => {
  const file = path.resolve(__dirname, '../fixtures/histories/escalation-call-ids.json');
  const history: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const events = (history as { events: RecordedEvent[] }).events;
  assert.equal(events.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  assert.ok(scheduledActivities(events).includes('settleHeldChanges'), 'the held changes were applied');
  await Worker.runReplayHistory(
    { workflowsPath: WORKFLOWS_PATH, dataConverter: dataConverterFromEnv() },
    temporal.api.history.v1.History.fromObject(history as Record<string, unknown>),
    ESCALATION_WORKFLOW_ID,
  );
});

// No history holds a patch marker: keel has none before its first release (README, upgrades).
test('no recorded history carries a patch marker', () => {
  for (const name of readdirSync(path.resolve(__dirname, '../fixtures/histories'))) {
    const file = path.resolve(__dirname, '../fixtures/histories', name);
    const events = (JSON.parse(readFileSync(file, 'utf8')) as { events: RecordedEvent[] }).events;
    const markers = events.flatMap((event) => event.markerRecordedEventAttributes?.markerName ?? []);
    assert.ok(!markers.includes('core_patch'), name);
  }
});
