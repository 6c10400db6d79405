import { test } from 'node:test';
import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import { hostsServing, hostsToAsk, type TaskQueueConnection } from '../../src/client/hosts';

const { WorkerStatus } = temporal.api.enums.v1;
const NOW_SECONDS = 1_000;

/** A worker heartbeat as ListWorkers returns it. */
function workerInfo(
  hostId: string,
  instanceId: string,
  secondsAgo: number,
  status = WorkerStatus.WORKER_STATUS_RUNNING,
) {
  return {
    workerHeartbeat: {
      workerIdentity: `keel-host=${hostId} 1@m instance=${instanceId} heartbeat=1000`,
      workerInstanceKey: `key-${instanceId}`,
      taskQueue: 'keel',
      status,
      heartbeatTime: { seconds: NOW_SECONDS - secondsAgo },
    },
  };
}

/** A server with these beats (or none: ListWorkers refused), these pollers and these goals' hosts. */
function server(options: {
  workersInfo?: ReturnType<typeof workerInfo>[];
  pollers?: Array<string | { identity: string; secondsAgo: number }>;
  goalHosts?: string[];
}): TaskQueueConnection {
  const keyword = (text: string) => ({ data: Buffer.from(JSON.stringify(text)) });
  return {
    workflowService: {
      listWorkers: () =>
        options.workersInfo === undefined
          ? Promise.reject(new Error('12 UNIMPLEMENTED: ListWorkers is not enabled\nmore'))
          : Promise.resolve({ workersInfo: options.workersInfo }),
      describeTaskQueue: () =>
        Promise.resolve({
          pollers: (options.pollers ?? []).map((poller) =>
            typeof poller === 'string'
              ? { identity: poller }
              : { identity: poller.identity, lastAccessTime: { seconds: NOW_SECONDS - poller.secondsAgo } },
          ),
        }),
      listWorkflowExecutions: (request: { query?: string | null }) => {
        assert.match(
          request.query ?? '',
          /ExecutionStatus = 'Running' AND TaskQueue = 'keel' AND KeelHost IS NOT NULL/,
        );
        return Promise.resolve({
          executions: (options.goalHosts ?? []).map((host, index) => ({
            execution: { workflowId: `goal-${index}` },
            searchAttributes: { indexedFields: { KeelHost: keyword(host) } },
          })),
        });
      },
    },
  } as unknown as TaskQueueConnection;
}

test('keel hosts counts the running goals per host, a host with goals but no worker included', async () => {
  const listing = await hostsServing({
    connection: server({ workersInfo: [workerInfo('h1', 'a', 0)], goalHosts: ['h1', 'h2', 'h1'] }),
    namespace: 'default',
    taskQueue: 'keel',
    countGoals: true,
    nowMs: NOW_SECONDS * 1000,
  });
  assert.equal(listing.source, 'heartbeats');
  assert.deepEqual(
    listing.hosts.map((host) => [host.hostId, host.state, 'runningGoals' in host ? host.runningGoals : '-']),
    [
      ['h1', 'live', 2],
      ['h2', 'missing', 1],
    ],
  );
});

test('keel hosts lists a worker that polls before its first beat as live, and a dead one still missing', async () => {
  const listing = await hostsServing({
    connection: server({
      workersInfo: [workerInfo('h-a', 'a', 0), workerInfo('h-dead', 'd', 30)],
      pollers: [
        'keel-host=h-a 1@m instance=a heartbeat=1000',
        // Just started: a goal is already bound to it; its workflow and activity polls are one worker.
        'keel-host=h-b 7@m2 instance=b heartbeat=1000',
        'keel-host=h-b 7@m2 instance=b heartbeat=1000',
        // Just started, no goal yet.
        'keel-host=h-new 8@m3 instance=n heartbeat=1000',
        // The server keeps a dead worker's polls for minutes: they began before it died.
        { identity: 'keel-host=h-dead 1@m instance=d heartbeat=1000', secondsAgo: 30 },
      ],
      goalHosts: ['h-b', 'h-dead'],
    }),
    namespace: 'default',
    taskQueue: 'keel',
    countGoals: true,
    nowMs: NOW_SECONDS * 1000,
  });
  assert.equal(listing.source, 'heartbeats');
  const hosts = listing.source === 'heartbeats' ? listing.hosts : [];
  assert.deepEqual(
    hosts.map((host) => [host.hostId, host.state, host.runningGoals, host.missingSince !== undefined]),
    [
      ['h-a', 'live', 0, false],
      ['h-b', 'live', 1, false],
      ['h-dead', 'missing', 1, true],
      ['h-new', 'live', 0, false],
    ],
  );
  assert.deepEqual(
    hosts.find((host) => host.hostId === 'h-b'),
    {
      hostId: 'h-b',
      hostTaskQueue: 'keel@h-b',
      state: 'live',
      instances: [{ instanceId: 'b', machine: 'm2', pid: 7, state: 'live' }],
      runningGoals: 1,
    },
  );
});

test('without ListWorkers, keel hosts lists the pollers and says why in a note', async () => {
  const listing = await hostsServing({
    connection: server({ pollers: ['keel-host=h1 1@m instance=a heartbeat=1000', 'someone-else'] }),
    namespace: 'default',
    taskQueue: 'keel',
  });
  assert.equal(listing.source, 'pollers');
  assert.deepEqual(
    listing.hosts.map((host) => host.hostId),
    ['h1'],
  );
  assert.equal(
    listing.source === 'pollers' ? listing.note : '',
    "the server cannot list workers: 12 UNIMPLEMENTED: ListWorkers is not enabled: hosts read off the task queue's pollers, where a host that went away stays listed for about five minutes",
  );
});

test("no worker beats: the goals' hosts are missing, unless pollers show heartbeats are off", async () => {
  const list = (pollers: string[]) =>
    hostsServing({
      connection: server({ workersInfo: [], pollers, goalHosts: ['h1'] }),
      namespace: 'default',
      taskQueue: 'keel',
      countGoals: true,
    });
  const nobody = await list([]);
  assert.deepEqual(
    nobody.source === 'heartbeats' ? nobody.hosts.map((host) => [host.hostId, host.state]) : nobody,
    [['h1', 'missing']],
  );
  const heartbeatsOff = await list(['keel-host=h1 1@m instance=a heartbeat=1000']);
  assert.equal(heartbeatsOff.source, 'pollers');
  assert.match(
    heartbeatsOff.source === 'pollers' ? heartbeatsOff.note : '',
    /^the server lists no worker heartbeats: /,
  );
});

test('a goal asks live hosts and workers polling before their first beat, not hosts whose workers are dead', async () => {
  const hosts = await hostsToAsk({
    connection: server({
      workersInfo: [
        workerInfo('h-live', 'a', 0),
        workerInfo('h-dead', 'b', 30),
        workerInfo('h-back', 'c', 30),
        workerInfo('h-again', 'f', 20, WorkerStatus.WORKER_STATUS_SHUTDOWN),
        workerInfo('h-quit', 'g', 20, WorkerStatus.WORKER_STATUS_SHUTDOWN),
      ],
      pollers: [
        'keel-host=h-live 1@m instance=a heartbeat=1000',
        // The server keeps a dead or stopped worker's polls for minutes: they began before it died.
        { identity: 'keel-host=h-dead 1@m instance=b heartbeat=1000', secondsAgo: 30 },
        { identity: 'keel-host=h-quit 1@m instance=g heartbeat=1000', secondsAgo: 25 },
        // A worker made again in the same process (same instance id) polls after its predecessor stopped.
        { identity: 'keel-host=h-again 1@m instance=f heartbeat=1000', secondsAgo: 1 },
        'keel-host=h-back 1@m instance=d heartbeat=1000', // a new instance, not beating yet
        'keel-host=h-new 1@m instance=e heartbeat=1000',
      ],
    }),
    namespace: 'default',
    taskQueue: 'keel',
    nowMs: NOW_SECONDS * 1000,
  });
  assert.deepEqual(hosts, ['h-again', 'h-back', 'h-live', 'h-new']);
  const withoutHeartbeats = await hostsToAsk({
    connection: server({ pollers: ['keel-host=h-dead 1@m instance=b heartbeat=1000'] }),
    namespace: 'default',
    taskQueue: 'keel',
  });
  assert.deepEqual(withoutHeartbeats, ['h-dead'], 'no heartbeats to judge by: every poller');
});
