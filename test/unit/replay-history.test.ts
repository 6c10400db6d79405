import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { WORKFLOWS_PATH } from '../../src/worker';
import { REPRESENTATIVE_WORKFLOW_ID } from '../fixtures/representative-goal';

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
