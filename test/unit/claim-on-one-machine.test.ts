import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KeelWorkerBeat } from '../../src/client/worker-heartbeats';
import {
  decideHostClaim,
  liveOthersExpireAtMs,
  type HostClaimInput,
  type KeelWorkerPoll,
  type LocalMachine,
} from '../../src/worker/host-claim/claim-decision';
import { processRunning } from '../../src/worker/host-claim/local-process';

/** issue 41: a second worker of one host id on one machine is told at once, before it polls. */

const NOW = 1_000_000;
const INTERVAL = 10_000;
const RUNNING_PID = 4242;

const here: LocalMachine = { machine: 'vm', pid: 777, running: (pid) => pid === RUNNING_PID };

function beat(extra: Partial<KeelWorkerBeat> = {}): KeelWorkerBeat {
  return {
    hostId: 'h1',
    instanceId: 'first',
    pid: RUNNING_PID,
    machine: 'vm',
    heartbeatIntervalMs: INTERVAL,
    identity: 'keel-host=h1 4242@vm instance=first',
    taskQueue: 'keel@h1',
    workerInstanceKey: 'key-first',
    status: 'running',
    heartbeatAtMs: NOW - 500,
    startedAtMs: NOW - 60_000,
    ...extra,
  };
}

function poll(extra: Partial<KeelWorkerPoll> = {}): KeelWorkerPoll {
  return {
    hostId: 'h1',
    instanceId: 'first',
    pid: RUNNING_PID,
    machine: 'vm',
    heartbeatIntervalMs: INTERVAL,
    identity: 'keel-host=h1 4242@vm instance=first',
    polledAtMs: NOW - 1000,
    ...extra,
  };
}

function input(extra: Partial<HostClaimInput>): HostClaimInput {
  return {
    claimant: { hostId: 'h1', instanceId: 'second', replica: false },
    beats: [],
    nowMs: NOW,
    fallbackIntervalMs: INTERVAL,
    local: here,
    ...extra,
  };
}

test('a holder on this machine whose process runs refuses at once, with no wait, naming it and both fixes', () => {
  const claim = input({ beats: [beat()] });
  assert.deepEqual(decideHostClaim(claim), {
    outcome: 'refused',
    reason:
      'host id h1 is held by a live worker on this machine, vm (pid 4242, instance first, last beat 1 s ago): give this worker its own id (--host-id / KEEL_HOST_ID), or start it with --replica (KEEL_HOST_REPLICA=1) and the same --workspace-root as that worker to share its host',
  });
  assert.equal(liveOthersExpireAtMs(claim), undefined, 'nothing to wait for');
});

test('before its first beat, a worker is seen by its poll: here and running, refused at once', () => {
  const claim = input({ polls: [poll()] });
  const decision = decideHostClaim(claim);
  assert.equal(decision.outcome, 'refused');
  assert.match(
    decision.outcome === 'refused' ? decision.reason : '',
    /vm \(pid 4242, instance first, polling since 1 s ago, no beat yet\)/,
  );
  assert.equal(liveOthersExpireAtMs(claim), undefined);
});

test('a poll on another machine before its first beat: refused only after waiting for that beat', () => {
  const claim = input({ polls: [poll({ machine: 'vm-2' })] });
  assert.equal(decideHostClaim(claim).outcome, 'refused');
  assert.equal(liveOthersExpireAtMs(claim), NOW - 1000 + INTERVAL + 2000 + 1);
});

test('a crashed worker of this machine does not hold up its restart longer than before', () => {
  // Gone before its first beat: its poll, still listed, is ignored at once.
  assert.deepEqual(decideHostClaim(input({ polls: [poll({ pid: 99 })] })), {
    outcome: 'claimed',
    joined: [],
  });
  // Its pid is this process's own: an earlier life of it (a container restarted alike).
  assert.equal(decideHostClaim(input({ polls: [poll({ pid: 777 })] })).outcome, 'claimed');
  // Gone after beating: as before, its beat must age first (a machine cloned with this one's name
  // could be the one beating), and no longer than that.
  const beaten = input({ beats: [beat({ pid: 99 })] });
  assert.equal(decideHostClaim(beaten).outcome, 'refused');
  assert.equal(liveOthersExpireAtMs(beaten), NOW - 500 + INTERVAL + 2000 + 1);
  assert.equal(decideHostClaim({ ...beaten, nowMs: NOW + INTERVAL + 2000 }).outcome, 'claimed');
});

test('a running pid never holds the id past its beats: an old beat or an old poll frees it', () => {
  const old = NOW - INTERVAL - 3000;
  assert.equal(decideHostClaim(input({ beats: [beat({ heartbeatAtMs: old })] })).outcome, 'claimed');
  assert.equal(decideHostClaim(input({ polls: [poll({ polledAtMs: old })] })).outcome, 'claimed');
  // A poll of an instance whose beat is old says nothing more: the beat decides.
  const stale = input({ beats: [beat({ heartbeatAtMs: old })], polls: [poll()] });
  assert.equal(decideHostClaim(stale).outcome, 'claimed');
});

test('a replica on this machine joins a running holder of the same disk', () => {
  const claim = input({
    claimant: { hostId: 'h1', instanceId: 'second', replica: true, workspaceRoot: '/srv', diskId: 'd1' },
    beats: [beat({ diskId: 'd1' })],
  });
  const decision = decideHostClaim(claim);
  assert.equal(decision.outcome, 'claimed');
  assert.deepEqual(decision.outcome === 'claimed' ? decision.joined.map((held) => held.instanceId) : [], [
    'first',
  ]);
});

test('processRunning: this process runs; a pid that no process has, and 0 or negatives, do not', () => {
  assert.equal(processRunning(process.pid), true);
  assert.equal(processRunning(2 ** 22 + 12345), false);
  assert.equal(processRunning(0), false);
  assert.equal(processRunning(-1), false);
});
