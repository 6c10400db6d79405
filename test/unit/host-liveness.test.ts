import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FORGET_MISSING_AFTER_MS,
  hostServingStates,
  hostsLiveness,
  withStartingWorkers,
  hostTransitions,
  rememberedStates,
  watcherLeader,
} from '../../src/client/host-liveness';
import { hostsExitCode, HostsExitCode } from '../../src/client/hosts-exit-code';
import { HEARTBEAT_GRACE_MS, type KeelWorkerBeat } from '../../src/client/worker-heartbeats';
import { hostLines, neededLine } from '../../src/cli/hosts-command';

const NOW = 1_000_000;
const INTERVAL = 1_000;

function beat(hostId: string, overrides: Partial<KeelWorkerBeat> = {}): KeelWorkerBeat {
  const instanceId = overrides.instanceId ?? `${hostId}-i1`;
  return {
    hostId,
    instanceId,
    pid: 42,
    machine: 'vm',
    heartbeatIntervalMs: INTERVAL,
    identity: `keel-host=${hostId} 42@vm instance=${instanceId} heartbeat=${INTERVAL}`,
    taskQueue: 'keel',
    workerInstanceKey: `key-${instanceId}`,
    status: 'running',
    heartbeatAtMs: NOW - 500,
    ...overrides,
  };
}

const judge = (beats: KeelWorkerBeat[], runningGoalsByHost?: Record<string, number>) =>
  hostsLiveness({
    beats,
    sharedTaskQueue: 'keel',
    nowMs: NOW,
    fallbackIntervalMs: 60_000,
    ...(runningGoalsByHost ? { runningGoalsByHost } : {}),
  });

test('a host is missing once its newest beat is older than its interval and the grace', () => {
  const justLive = NOW - INTERVAL - HEARTBEAT_GRACE_MS;
  const [live] = judge([beat('h1', { heartbeatAtMs: justLive })]);
  assert.equal(live?.state, 'live');
  const [missing] = judge([beat('h1', { heartbeatAtMs: justLive - 1 })]);
  assert.equal(missing?.state, 'missing');
  assert.equal(missing?.missingSince, new Date(justLive - 1).toISOString());
  assert.equal(missing?.secondsSinceBeat, 3);
});

test('a host with one live instance is live; its dead instance is shown beside it', () => {
  const hosts = judge([
    beat('h1', { instanceId: 'a', heartbeatAtMs: NOW - 30_000 }),
    beat('h1', { instanceId: 'b' }),
  ]);
  assert.equal(hosts.length, 1);
  assert.equal(hosts[0]?.state, 'live');
  assert.deepEqual(
    hosts[0]?.instances.map((instance) => [instance.instanceId, instance.state]),
    [
      ['a', 'missing'],
      ['b', 'live'],
    ],
  );
});

test('stopped hosts and hosts dead long ago drop off unless a running goal needs them', () => {
  const stopped = beat('h-stopped', { status: 'shutting-down' });
  const longDead = beat('h-dead', { heartbeatAtMs: NOW - FORGET_MISSING_AFTER_MS - 1 });
  const lately = beat('h-lately', { heartbeatAtMs: NOW - FORGET_MISSING_AFTER_MS });
  assert.deepEqual(
    judge([stopped, longDead, lately, beat('h-live')]).map((host) => [host.hostId, host.state]),
    [
      ['h-lately', 'missing'],
      ['h-live', 'live'],
    ],
  );
  const needed = judge([stopped, longDead, beat('h-live')], { 'h-stopped': 1, 'h-dead': 2, 'h-gone': 1 });
  assert.deepEqual(
    needed.map((host) => [host.hostId, host.state, host.runningGoals]),
    [
      ['h-dead', 'missing', 2],
      ['h-gone', 'missing', 1],
      ['h-live', 'live', 0],
      ['h-stopped', 'stopped', 1],
    ],
  );
  assert.deepEqual(needed.find((host) => host.hostId === 'h-gone')?.instances, [], 'no worker at all');
});

test('only the shared queue counts: a process also beats for its host queue', () => {
  const hosts = judge([beat('h1'), beat('h1', { taskQueue: 'keel@h1' }), beat('h2', { taskQueue: 'other' })]);
  assert.deepEqual(
    hosts.map((host) => [host.hostId, host.instances.length, host.hostTaskQueue]),
    [['h1', 1, 'keel@h1']],
  );
});

test('exit code: 3 when a host a running goal needs is not live, 1 with no live host, else 0', () => {
  const live = beat('h1');
  const dead = beat('h2', { heartbeatAtMs: NOW - 10_000 });
  assert.equal(
    hostsExitCode(judge([live, dead], { h1: 1 })),
    HostsExitCode.Fine,
    'a missing host no goal needs',
  );
  assert.equal(hostsExitCode(judge([live, dead], { h2: 1 })), HostsExitCode.NeededHostMissing);
  assert.equal(hostsExitCode(judge([live], { h9: 1 })), HostsExitCode.NeededHostMissing, 'no worker at all');
  assert.equal(hostsExitCode(judge([])), HostsExitCode.NoHosts);
  assert.equal(HostsExitCode.NeededHostMissing, 3);
});

test('keel hosts prints a line per host and per instance, and says why it exits 3', () => {
  const hosts = judge([beat('h1'), beat('host-b', { heartbeatAtMs: NOW - 14_000 })], { 'host-b': 1 });
  assert.deepEqual(hostLines(hosts), [
    'h1      live     last beat 0s ago  0 running goals  queue "keel@h1"',
    '  instance h1-i1  42@vm  live  last beat 0s ago',
    `host-b  missing  no beat for 14s (since ${new Date(NOW - 14_000).toISOString()})  1 running goal  queue "keel@host-b"`,
    '  instance host-b-i1  42@vm  missing  last beat 14s ago',
  ]);
  const starting = withStartingWorkers({
    hosts,
    starting: [
      { hostId: 'host-b', instanceId: 'new', pid: 7, machine: 'vm2' },
      { hostId: 'h3', pid: 8 },
    ],
    sharedTaskQueue: 'keel',
    goalsCounted: true,
  });
  assert.deepEqual(hostLines(starting).slice(2), [
    'h3      live     polling, first beat to come  0 running goals  queue "keel@h3"',
    '  instance ?  8@?  live  polling, first beat to come',
    'host-b  live     last beat 14s ago  1 running goal  queue "keel@host-b"',
    '  instance new  7@vm2  live  polling, first beat to come',
    '  instance host-b-i1  42@vm  missing  last beat 14s ago',
  ]);
  assert.equal(hostsExitCode(starting), HostsExitCode.Fine, 'a starting host a goal needs is no loss');
  const madeAgain = withStartingWorkers({
    hosts,
    starting: [{ hostId: 'host-b', instanceId: 'host-b-i1', pid: 42, machine: 'vm' }],
    sharedTaskQueue: 'keel',
    goalsCounted: true,
  });
  assert.deepEqual(
    madeAgain[1]?.instances,
    [{ instanceId: 'host-b-i1', machine: 'vm', pid: 42, state: 'live' }],
    'a worker made again in the same process keeps its instance id, and is listed once',
  );
  assert.equal(
    neededLine(hosts[1]!),
    'host host-b is missing and 1 running goal is bound to it: their calls wait for it (keel status <goal> says what you can do)',
  );
});

const watched = (beats: KeelWorkerBeat[], nowMs = NOW) => ({
  beats,
  sharedTaskQueue: 'keel',
  nowMs,
  fallbackIntervalMs: 60_000,
});

test('the watcher: a host turns missing (stopped too: its goals wait) and back, each said once', () => {
  const alive = [beat('h1'), beat('h2')];
  const first = hostServingStates(watched(alive));
  assert.deepEqual(hostTransitions(undefined, first, NOW), [], 'a fresh watcher tells live hosts nothing');
  const deadAt = NOW - 5_000;
  const dead = hostServingStates(watched([beat('h1'), beat('h2', { heartbeatAtMs: deadAt })]));
  assert.deepEqual(hostTransitions(first, dead, NOW), [
    { host: 'h2', state: 'missing', since: new Date(deadAt).toISOString() },
  ]);
  assert.deepEqual(hostTransitions(dead, dead, NOW), [], 'not again while it stays missing');
  const stopped = hostServingStates(watched([beat('h1', { status: 'shutdown' }), beat('h2')]));
  assert.deepEqual(
    hostTransitions(dead, stopped, NOW).map((transition) => [transition.host, transition.state]),
    [
      ['h1', 'missing'],
      ['h2', 'live'],
    ],
  );
  assert.deepEqual(
    hostTransitions(undefined, dead, NOW).map((transition) => transition.host),
    ['h2'],
    'a fresh watcher tells the missing',
  );
  // The host came back as a new instance, whose fresh watcher may lead at once.
  const returned = hostServingStates(
    watched([beat('h1'), beat('h2', { heartbeatAtMs: deadAt }), beat('h2', { instanceId: 'new' })]),
  );
  assert.deepEqual(hostTransitions(undefined, returned, NOW), [
    { host: 'h2', state: 'live', since: new Date(NOW).toISOString() },
  ]);
});

test('the watcher remembers a missing host the server forgot, so its return is still told', () => {
  const deadAt = NOW - 5_000;
  const missing = rememberedStates(
    undefined,
    hostServingStates(watched([beat('h2', { heartbeatAtMs: deadAt })])),
  );
  const forgotten = rememberedStates(missing, hostServingStates(watched([])));
  assert.equal(forgotten.get('h2')?.state, 'missing');
  const back = hostServingStates(watched([beat('h2', { instanceId: 'new' })]));
  assert.deepEqual(
    hostTransitions(forgotten, back, NOW).map((transition) => transition.state),
    ['live'],
  );
});

test('the first live worker by instance id leads; a dead or stopped one does not', () => {
  const beats = [
    beat('h1', { instanceId: 'b' }),
    beat('h2', { instanceId: 'a', heartbeatAtMs: NOW - 10_000 }),
    beat('h3', { instanceId: 'aa', status: 'shutting-down' }),
    beat('h4', { instanceId: '0', taskQueue: 'keel@h4' }),
    beat('h5', { instanceId: 'c' }),
  ];
  assert.equal(watcherLeader(watched(beats)), 'b');
  assert.equal(watcherLeader(watched([])), undefined);
});
