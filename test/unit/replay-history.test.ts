import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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

// A goal recorded while keel decided LOCAL_READS_PATCH at each read (its marker sits after the
// first read's check, not at the run's start): goals started then must still replay, reads local.
test('a goal recorded with the local-reads marker at its first read replays', async () => {
  const file = path.resolve(__dirname, '../fixtures/histories/local-reads-before-start-decision.json');
  const history: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const events = (
    history as { events: Array<{ eventType: string; markerRecordedEventAttributes?: unknown }> }
  ).events;
  const markers = events.map((event) => JSON.stringify(event.markerRecordedEventAttributes ?? ''));
  assert.ok(markers.findIndex((marker) => marker.includes('core_patch')) > 20, 'the marker mid-run');
  await Worker.runReplayHistory(
    { workflowsPath: WORKFLOWS_PATH, dataConverter: dataConverterFromEnv() },
    temporal.api.history.v1.History.fromObject(history as Record<string, unknown>),
    'local-reads-marker-mid-run',
  );
});

// Recorded before search attributes were written once per workflow task (COALESCED_UPSERTS_PATCH):
// local reads, a parallel pair of them, a write and an approved command, with two or three keel
// upserts in some tasks. Without the patch's marker, replay must write them as they were written.
test('a goal recorded before coalesced search attribute upserts replays without nondeterminism', async () => {
  const file = path.resolve(__dirname, '../fixtures/histories/search-attributes-before-coalescing.json');
  const history: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const events = (history as { events: Array<{ eventType: string }> }).events;
  assert.equal(events.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  await Worker.runReplayHistory(
    { workflowsPath: WORKFLOWS_PATH, dataConverter: dataConverterFromEnv() },
    temporal.api.history.v1.History.fromObject(history as Record<string, unknown>),
    'search-attributes-before-coalescing',
  );
});

// Recorded just before the lean-history patch (src/workflows/goal/lean-history.ts), with the
// tool-turns goal (test/fixtures/tool-turns-goal.ts): the start's lookups as activities, a
// prepareToolCalls check before every turn's calls, reads included, and KeelToolCalls written at
// every call. Without the patch's marker, replay must do all of that as it was recorded.
test('a goal recorded before the lean-history patch replays without nondeterminism', async () => {
  const file = path.resolve(__dirname, '../fixtures/histories/tool-turns-before-lean-history.json');
  const history: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const events = (history as { events: RecordedEvent[] }).events;
  assert.equal(events.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  assert.equal(localActivities(events, 'prepareToolCalls'), 12, 'every turn with tool calls was checked');
  assert.ok(scheduledActivities(events).includes('describeTools'), 'the tools were learnt by an activity');
  await Worker.runReplayHistory(
    { workflowsPath: WORKFLOWS_PATH, dataConverter: dataConverterFromEnv() },
    temporal.api.history.v1.History.fromObject(history as Record<string, unknown>),
    TOOL_TURNS_WORKFLOW_ID,
  );
});

// The same goal recorded with the lean-history patch: the start's lookups as local activities, no
// check before the reads and the write (only before the command, which waits for a human), and
// KeelToolCalls written with other changes instead of at every call. Guards the new behaviour's
// determinism as the first fixture guards the old one's.
test('a goal recorded with the lean-history patch replays without nondeterminism', async () => {
  const file = path.resolve(__dirname, '../fixtures/histories/tool-turns-lean-history.json');
  const history: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const events = (history as { events: RecordedEvent[] }).events;
  assert.equal(events.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  assert.equal(localActivities(events, 'prepareToolCalls'), 1, 'only the command was checked');
  for (const lookup of ['listHosts', 'describeTools', 'workerDefaults'])
    assert.equal(localActivities(events, lookup), 1, `${lookup} as a local activity`);
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
  markerRecordedEventAttributes?: { details?: Record<string, { payloads?: Array<{ data?: string }> }> };
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

// Recorded with the keel-assigned-call-ids patch (src/workflows/goal/call-ids.ts): a tool_use id
// sent twice in one turn, and a command whose deletion was held on its layer, approved, then
// applied by settleHeldChanges. Guards the determinism of keel's call naming and of escalations.
test('a goal recorded with keel-assigned call ids and a held escalation replays without nondeterminism', async () => {
  const file = path.resolve(__dirname, '../fixtures/histories/escalation-call-ids.json');
  const history: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const events = (history as { events: RecordedEvent[] }).events;
  assert.equal(events.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  assert.ok(scheduledActivities(events).includes('settleHeldChanges'), 'the held changes were applied');
  const patches = events.flatMap((event) => {
    const data = event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    return data === undefined ? [] : [Buffer.from(data, 'base64').toString('utf8')];
  });
  assert.ok(
    patches.some((patch) => patch.includes('"keel-assigned-call-ids"')),
    patches.join('\n'),
  );
  await Worker.runReplayHistory(
    { workflowsPath: WORKFLOWS_PATH, dataConverter: dataConverterFromEnv() },
    temporal.api.history.v1.History.fromObject(history as Record<string, unknown>),
    ESCALATION_WORKFLOW_ID,
  );
});
