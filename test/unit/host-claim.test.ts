import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KeelWorkerBeat } from '../../src/client/worker-heartbeats';
import {
  decideAfterStart,
  decideHostClaim,
  liveOthersExpireAtMs,
  type HostClaimant,
  type HostClaimDecision,
} from '../../src/worker/host-claim/claim-decision';
import { DISK_MARKER_NAME, ensureDiskMarker, readDiskMarker } from '../../src/worker/host-claim/disk-marker';
import { HostClaimError } from '../../src/worker/host-claim/host-claim-error';
import { tempDirectory } from '../support/temp-directory';

const NOW = 1_000_000;
const INTERVAL = 1000;

function beat(instanceId: string, extra: Partial<KeelWorkerBeat> = {}): KeelWorkerBeat {
  return {
    hostId: 'h1',
    instanceId,
    pid: 4242,
    machine: 'machine-b',
    heartbeatIntervalMs: INTERVAL,
    identity: `keel-host=h1 4242@machine-b instance=${instanceId}`,
    taskQueue: 'keel@h1',
    workerInstanceKey: `key-${instanceId}`,
    status: 'running',
    heartbeatAtMs: NOW - 500,
    startedAtMs: NOW - 60_000,
    ...extra,
  };
}

const me: HostClaimant = {
  hostId: 'h1',
  instanceId: 'mine',
  replica: false,
  workspaceRoot: '/srv/a',
  diskId: 'd-own',
};

function decide(claimant: HostClaimant, beats: KeelWorkerBeat[]): HostClaimDecision {
  return decideHostClaim({ claimant, beats, nowMs: NOW, fallbackIntervalMs: INTERVAL });
}

function reasonOf(decision: HostClaimDecision): string {
  assert.equal(decision.outcome, 'refused');
  return decision.outcome === 'refused' ? decision.reason : '';
}

test('a live worker of another instance holding the id refuses the claim in one line naming it and the fixes', () => {
  const reason = reasonOf(decide(me, [beat('theirs', { heartbeatAtMs: NOW - 2000 })]));
  assert.doesNotMatch(reason, /\n/);
  assert.match(
    reason,
    /^host id h1 is held by a live worker on machine-b \(pid 4242, instance theirs, last beat 2 s ago\)/,
  );
  assert.match(reason, /--host-id \/ KEEL_HOST_ID/);
  assert.match(reason, /--replica \(KEEL_HOST_REPLICA=1\)/);
});

test('nobody else, only this process, a dead or a stopped instance, or another host id: claimed', () => {
  const claimed = (beats: KeelWorkerBeat[]) => assert.equal(decide(me, beats).outcome, 'claimed');
  claimed([]);
  claimed([beat('mine')]); // its own earlier beats
  claimed([beat('dead', { heartbeatAtMs: NOW - INTERVAL - 2001 })]); // killed: old beat, still "running"
  claimed([beat('never-beat', { heartbeatAtMs: undefined })]);
  claimed([beat('gone', { status: 'shutting-down' }), beat('gone2', { status: 'shutdown' })]);
  claimed([beat('other-host', { hostId: 'h2' })]);
  // Just inside interval + grace still counts as live.
  assert.equal(decide(me, [beat('late', { heartbeatAtMs: NOW - INTERVAL - 2000 })]).outcome, 'refused');
});

test('a replica is accepted on the same disk, refused on another, without a marker or without a root', () => {
  const replica: HostClaimant = { ...me, replica: true };
  const joined = decide(replica, [beat('theirs', { diskId: 'd-own' })]);
  assert.equal(joined.outcome, 'claimed');
  assert.deepEqual(joined.outcome === 'claimed' ? joined.joined.map((b) => b.instanceId) : [], ['theirs']);
  assert.match(
    reasonOf(decide(replica, [beat('theirs', { diskId: 'd-other' })])),
    /^--replica: host id h1 is held by .* serving disk d-other, but this machine's workspace root \/srv\/a holds disk d-own/,
  );
  // One live instance on another disk is enough to refuse, even when another shares this one.
  assert.equal(
    decide(replica, [beat('same', { diskId: 'd-own' }), beat('far', { diskId: 'd-far' })]).outcome,
    'refused',
  );
  assert.match(reasonOf(decide(replica, [beat('theirs')])), /serving no marked disk/);
  const { diskId: _unmarked, ...withoutMarker } = replica;
  assert.match(
    reasonOf(decide(withoutMarker, [beat('theirs', { diskId: 'd-own' })])),
    /holds no marked disk/,
  );
  const { workspaceRoot: _root, diskId: _disk, ...rootless } = replica;
  for (const beats of [[], [beat('theirs')]])
    assert.match(reasonOf(decide(rootless, beats)), /^--replica needs a workspace root/);
  // The first replica of a host, alone, takes it.
  assert.equal(decide(replica, []).outcome, 'claimed');
});

test('after start, the later of two starters is refused and the earlier keeps the id', () => {
  const first = beat('aaaa', { startedAtMs: NOW - 3000 });
  const second = beat('bbbb', { startedAtMs: NOW - 2000 });
  const afterStart = (instanceId: string, claimant: Partial<HostClaimant> = {}) =>
    decideAfterStart({
      claimant: { ...me, instanceId, ...claimant },
      beats: [first, second],
      nowMs: NOW,
      fallbackIntervalMs: INTERVAL,
    }).outcome;
  assert.equal(afterStart('aaaa'), 'claimed');
  assert.equal(afterStart('bbbb'), 'refused');
  // Same start time: the instance id decides, the same way on both machines.
  const tie = [beat('aaaa', { startedAtMs: NOW }), beat('bbbb', { startedAtMs: NOW })];
  const tied = (instanceId: string) =>
    decideAfterStart({
      claimant: { ...me, instanceId },
      beats: tie,
      nowMs: NOW,
      fallbackIntervalMs: INTERVAL,
    }).outcome;
  assert.deepEqual([tied('aaaa'), tied('bbbb')], ['claimed', 'refused']);
  // A later replica of the same disk stays; a process not listed yet has nothing to be judged by.
  const sameDisk = [beat('aaaa', { startedAtMs: NOW - 3000, diskId: 'd-own' }), second];
  assert.equal(
    decideAfterStart({
      claimant: { ...me, instanceId: 'bbbb', replica: true },
      beats: sameDisk,
      nowMs: NOW,
      fallbackIntervalMs: INTERVAL,
    }).outcome,
    'claimed',
  );
  assert.equal(afterStart('unlisted'), 'claimed');
});

test("the first worker marks its root's disk once; every process reads the same id; another host's marker is refused", async () => {
  const root = tempDirectory('keel-disk-marker-');
  assert.equal(await readDiskMarker(root, 'h1'), undefined);
  const markers = await Promise.all([1, 2, 3, 4].map(() => ensureDiskMarker(root, 'h1')));
  assert.equal(
    new Set(markers.map((marker) => marker.diskId)).size,
    1,
    'racing processes agree on one disk id',
  );
  assert.deepEqual(readdirSync(root), [DISK_MARKER_NAME], 'no file written aside is left behind');
  assert.deepEqual(JSON.parse(readFileSync(path.join(root, DISK_MARKER_NAME), 'utf8')), markers[0]);
  assert.deepEqual(await readDiskMarker(root, 'h1'), markers[0]);
  await assert.rejects(readDiskMarker(root, 'h2'), (error: unknown) => {
    assert.ok(error instanceof HostClaimError);
    assert.match(
      error.message,
      /^workspace root .* belongs to host h1 \(marker .*\.keel-host\.json\), not h2: start with --host-id h1/,
    );
    return true;
  });
  writeFileSync(path.join(root, DISK_MARKER_NAME), 'not json');
  await assert.rejects(ensureDiskMarker(root, 'h1'), /is not \{"hostId", "diskId"\}/);
});

test('a holder counts as live until its own interval and the grace have passed since its last beat', () => {
  const input = (beats: KeelWorkerBeat[]) => ({
    claimant: me,
    beats,
    nowMs: NOW,
    fallbackIntervalMs: INTERVAL,
  });
  assert.equal(liveOthersExpireAtMs(input([])), undefined);
  assert.equal(liveOthersExpireAtMs(input([beat('dead', { heartbeatAtMs: NOW - 10_000 })])), undefined);
  assert.equal(
    liveOthersExpireAtMs(
      input([
        beat('a', { heartbeatAtMs: NOW - 900 }),
        beat('b', { heartbeatAtMs: NOW - 100, heartbeatIntervalMs: 2000 }),
      ]),
    ),
    NOW - 100 + 2000 + 2000 + 1,
  );
});
