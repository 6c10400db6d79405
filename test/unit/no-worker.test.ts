import { test } from 'node:test';
import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import { workersMayAnswer, type PollerConnection } from '../../src/client/worker-answer';
import {
  bulkNotSentLine,
  noWorkerCause,
  serverRecordNote,
  signalledDecisionLine,
  type NoWorker,
} from '../../src/client/no-worker';
import type { GoalRecord } from '../../src/client/goal-record';
import { recordPendingLine, recordPlanLines, recordStatusLines } from '../../src/cli/goal-record-lines';

const { WorkerStatus } = temporal.api.enums.v1;
const IDENTITY = 'keel-host=h1 7@m instance=i1 heartbeat=5000';
const seconds = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });

/** A server whose queue `keel` has these pollers and these keel worker beats. */
function server(options: {
  pollers?: Array<{ identity: string; lastAccessMs: number }> | 'unreadable';
  beats?: Array<{ status: number; heartbeatMs: number }> | 'unreadable';
}): PollerConnection {
  const service = {
    describeTaskQueue: () =>
      options.pollers === 'unreadable'
        ? Promise.reject(new Error('unavailable'))
        : Promise.resolve({
            pollers: (options.pollers ?? []).map((poller) => ({
              identity: poller.identity,
              lastAccessTime: seconds(poller.lastAccessMs),
            })),
          }),
    listWorkers: () =>
      options.beats === 'unreadable'
        ? Promise.reject(new Error('unimplemented'))
        : Promise.resolve({
            workersInfo: (options.beats ?? []).map((beat) => ({
              workerHeartbeat: {
                workerIdentity: IDENTITY,
                workerInstanceKey: 'k1',
                taskQueue: 'keel',
                status: beat.status,
                heartbeatTime: seconds(beat.heartbeatMs),
              },
            })),
          }),
  };
  return { workflowService: service as unknown as PollerConnection['workflowService'] };
}

const mayAnswer = (connection: PollerConnection) =>
  workersMayAnswer({ connection, namespace: 'default', taskQueue: 'keel', nowMs: 100_000 });

test('no worker may answer when nothing polls the queue, or its keel workers stopped or stopped beating', async () => {
  assert.equal(await mayAnswer(server({ pollers: [] })), false);
  // The server lists a stopped worker's poll for minutes; its last beat (shutdown) came after it.
  const stopped = server({
    pollers: [{ identity: IDENTITY, lastAccessMs: 90_000 }],
    beats: [{ status: WorkerStatus.WORKER_STATUS_SHUTDOWN, heartbeatMs: 91_000 }],
  });
  assert.equal(await mayAnswer(stopped), false);
  // Killed: still "running", but its last beat is older than its 5 s interval and the grace.
  const killed = server({
    pollers: [{ identity: IDENTITY, lastAccessMs: 80_000 }],
    beats: [{ status: WorkerStatus.WORKER_STATUS_RUNNING, heartbeatMs: 81_000 }],
  });
  assert.equal(await mayAnswer(killed), false);
});

test('a worker may answer when one beats, when it cannot be judged, or when the server cannot say', async () => {
  const beating = server({
    pollers: [{ identity: IDENTITY, lastAccessMs: 60_000 }],
    beats: [{ status: WorkerStatus.WORKER_STATUS_RUNNING, heartbeatMs: 99_000 }],
  });
  assert.equal(await mayAnswer(beating), true);
  // Polling before its first beat reached the server: a worker that just started.
  assert.equal(await mayAnswer(server({ pollers: [{ identity: IDENTITY, lastAccessMs: 99_000 }] })), true);
  // Another program's worker, or no heartbeats to judge by: asked, within the deadline.
  assert.equal(await mayAnswer(server({ pollers: [{ identity: '7@m', lastAccessMs: 1_000 }] })), true);
  const noBeats = server({ pollers: [{ identity: IDENTITY, lastAccessMs: 1_000 }], beats: 'unreadable' });
  assert.equal(await mayAnswer(noBeats), true);
  assert.equal(await mayAnswer(server({ pollers: 'unreadable' })), true);
});

const none: NoWorker = { workflowId: 'goal-1', taskQueue: 'keel', seen: 'no-poller' };
const late: NoWorker = { ...none, seen: 'no-answer' };

test('one wording for a goal no worker answers, whichever command says it', () => {
  assert.equal(noWorkerCause(none), 'no worker polls task queue keel');
  assert.equal(noWorkerCause(late), 'no worker answered within 5 s (task queue keel)');
  assert.equal(
    serverRecordNote(none, '2030-01-01T00:00:00.000Z'),
    "(no worker polls task queue keel: shown from the server's record, as of 2030-01-01T00:00:00.000Z)",
  );
  assert.equal(
    signalledDecisionLine(late, { approved: false, callId: 'call-2' }),
    'no worker answered within 5 s (task queue keel): the denial of call-2 is recorded as a signal and is decided when a worker runs goal goal-1 (keel status goal-1 shows the outcome)',
  );
  assert.match(bulkNotSentLine(none, true), /^no worker polls task queue keel: nothing was decided: /);
  assert.match(bulkNotSentLine(none, true), /keel approve goal-1 <callId> records it as a signal\)$/);
});

const record: GoalRecord = {
  workflowId: 'goal-1',
  taskQueue: 'keel',
  execution: 'running',
  goal: 'fix the build',
  status: 'running',
  phase: 'awaiting-approval',
  toolCalls: 4,
  planAttempt: 2,
  pendingApprovals: 2,
  host: 'h1',
  startedAt: '2030-01-01T00:00:00.000Z',
  lastEventAt: '2030-01-01T00:01:00.000Z',
  pendingActivities: [{ type: 'runTool', attempt: 3, lastFailure: 'host h1 does not answer' }],
};

test("status, plan and pending from the server's record, under the note", () => {
  assert.deepEqual(recordStatusLines(record, none), [
    "(no worker polls task queue keel: shown from the server's record, as of 2030-01-01T00:01:00.000Z)",
    'goal-1: running (awaiting-approval)',
    'goal: fix the build',
    'started 2030-01-01T00:00:00.000Z',
    'tool calls 4 (may lag a few); plan attempt 2',
    'host: h1',
    'awaiting approval: 2 calls (which calls, and what they do, a worker shows: keel status goal-1)',
    'waiting on runTool (attempt 3; last failure: host h1 does not answer)',
  ]);
  const ended = { ...record, execution: 'terminated', pendingApprovals: 0, pendingActivities: [] };
  assert.equal(
    recordStatusLines(ended, none)[1],
    'goal-1: running (awaiting-approval); Temporal: terminated',
  );
  assert.equal(
    recordPlanLines(record, late)[1],
    "goal-1: plan attempt 2; the plan's steps are in the goal's state: a worker shows them",
  );
  assert.equal(
    recordPendingLine(record, none),
    "goal-1 awaits 2 calls, which a worker lists (no worker polls task queue keel: shown from the server's record, as of 2030-01-01T00:01:00.000Z)",
  );
  assert.equal(recordPendingLine({ ...record, pendingApprovals: 0, phase: 'thinking' }, none), undefined);
  assert.match(
    recordPendingLine({ ...record, pendingApprovals: 0, phase: 'reviewing' }, none) ?? '',
    /awaits a review,/,
  );
});
