import { test } from 'node:test';
import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import {
  HEARTBEAT_GRACE_MS,
  listKeelWorkers,
  workerLiveness,
  type KeelWorkerBeat,
  type WorkerListingConnection,
} from '../../src/client/worker-heartbeats';

const { WorkerStatus } = temporal.api.enums.v1;

function beat(overrides: Partial<KeelWorkerBeat> = {}): KeelWorkerBeat {
  return {
    hostId: 'h1',
    identity: 'keel-host=h1 1@m instance=i1 heartbeat=5000',
    taskQueue: 'keel@h1',
    workerInstanceKey: 'k1',
    status: 'running',
    heartbeatIntervalMs: 5_000,
    heartbeatAtMs: 100_000,
    ...overrides,
  };
}

test('a running worker is live until its own interval and the grace have passed since its last beat', () => {
  const last = 100_000;
  assert.equal(workerLiveness(beat(), last + 5_000 + HEARTBEAT_GRACE_MS, 60_000), 'live');
  assert.equal(workerLiveness(beat(), last + 5_000 + HEARTBEAT_GRACE_MS + 1, 60_000), 'missing');
  // Without an interval in its identity, the fallback decides.
  const old = beat({ heartbeatIntervalMs: undefined });
  assert.equal(workerLiveness(old, last + 30_000, 60_000), 'live');
  assert.equal(workerLiveness(old, last + 30_000, 20_000), 'missing');
});

test('a worker that said it stops is stopped, one that never beat is missing', () => {
  assert.equal(workerLiveness(beat({ status: 'shutting-down' }), 100_000, 5_000), 'stopped');
  assert.equal(workerLiveness(beat({ status: 'shutdown' }), 100_000, 5_000), 'stopped');
  assert.equal(workerLiveness(beat({ heartbeatAtMs: undefined }), 100_000, 5_000), 'missing');
});

test('ListWorkers answers become keel workers: others left out, pages followed, the queue queried', async () => {
  const queries: string[] = [];
  const pages = [
    {
      workersInfo: [
        {
          workerHeartbeat: {
            workerIdentity: 'keel-host=h1 7@m instance=i1 heartbeat=5000',
            workerInstanceKey: 'k1',
            taskQueue: 'keel@h1',
            status: WorkerStatus.WORKER_STATUS_RUNNING,
            heartbeatTime: { seconds: 100, nanos: 5_000_000 },
            startTime: { seconds: 90 },
          },
        },
        { workerHeartbeat: { workerIdentity: '7@other', taskQueue: 'keel@h1' } },
      ],
      nextPageToken: new Uint8Array([1]),
    },
    {
      workersInfo: [
        {
          workerHeartbeat: {
            workerIdentity: 'keel-host=h1 8@n instance=i2 heartbeat=5000',
            workerInstanceKey: 'k2',
            taskQueue: 'keel@h1',
            status: WorkerStatus.WORKER_STATUS_SHUTDOWN,
          },
        },
      ],
      nextPageToken: new Uint8Array(),
    },
  ];
  const connection = {
    workflowService: {
      listWorkers: (request: temporal.api.workflowservice.v1.IListWorkersRequest) => {
        queries.push(`${request.query ?? ''}|${request.nextPageToken?.length ?? 0}`);
        return Promise.resolve(pages.shift());
      },
    },
  } as unknown as WorkerListingConnection;
  const workers = await listKeelWorkers({ connection, namespace: 'default', taskQueue: 'keel@h1' });
  assert.deepEqual(queries, ['TaskQueue = "keel@h1"|0', 'TaskQueue = "keel@h1"|1']);
  assert.deepEqual(workers, [
    {
      hostId: 'h1',
      pid: 7,
      machine: 'm',
      instanceId: 'i1',
      heartbeatIntervalMs: 5_000,
      identity: 'keel-host=h1 7@m instance=i1 heartbeat=5000',
      taskQueue: 'keel@h1',
      workerInstanceKey: 'k1',
      status: 'running',
      heartbeatAtMs: 100_005,
      startedAtMs: 90_000,
    },
    {
      hostId: 'h1',
      pid: 8,
      machine: 'n',
      instanceId: 'i2',
      heartbeatIntervalMs: 5_000,
      identity: 'keel-host=h1 8@n instance=i2 heartbeat=5000',
      taskQueue: 'keel@h1',
      workerInstanceKey: 'k2',
      status: 'shutdown',
    },
  ]);
});
