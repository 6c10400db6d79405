import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { WORKFLOWS_PATH } from '../../src/worker';
import { NOTIFIED_WORKFLOW_ID } from '../fixtures/notified-goal';

Runtime.install({ logger: new DefaultLogger('WARN') });

interface RecordedEvent {
  eventType: string;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
}

// A goal recorded before goals could name channels of their own (test/fixtures/notified-goal.ts):
// the worker's webhook, Slack and email were told when its call started waiting and reminded
// before the deadline. Per-goal channels must leave such a goal's notices as they were.
test('a goal notified through its worker’s own channels replays without nondeterminism', async () => {
  const file = path.resolve(__dirname, '../fixtures/histories/notified-goal.json');
  const history: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const events = (history as { events: RecordedEvent[] }).events;
  assert.equal(events.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  const notices = events.filter(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverApprovalNotice',
  );
  assert.equal(notices.length, 6, 'a notice and a reminder on each of three channels');
  await Worker.runReplayHistory(
    { workflowsPath: WORKFLOWS_PATH, dataConverter: dataConverterFromEnv() },
    temporal.api.history.v1.History.fromObject(history as Record<string, unknown>),
    NOTIFIED_WORKFLOW_ID,
  );
});
