import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hostIdOfIdentity,
  parseWorkerIdentity,
  hostIdSchema,
  hostTaskQueue,
  workerIdentity,
  workspaceProbeSchema,
  workspaceSourceSchema,
  WorkspaceProbeState,
} from '../../src/workflows/hosts/host-queues';

test('a host id is a short plain name that can sit in a task-queue name and an identity', () => {
  for (const good of ['h1', 'build-box.local', 'A_b-9', 'x'.repeat(63)])
    assert.ok(hostIdSchema.safeParse(good).success, good);
  for (const bad of ['', '-h', '.h', 'has space', 'a@b', 'x'.repeat(64), 'ü'])
    assert.ok(!hostIdSchema.safeParse(bad).success, bad);
});

test("a host's queue is the shared queue's name and the host id", () => {
  assert.equal(hostTaskQueue('keel', 'h1'), 'keel@h1');
});

test('a worker identity names its host, process, instance and heartbeat interval, and is read back', () => {
  const identity = workerIdentity({
    hostId: 'h-test',
    pid: 4242,
    machine: 'machine.example',
    instanceId: 'a1b2c3d4',
    heartbeatIntervalMs: 10_000,
  });
  assert.equal(identity, 'keel-host=h-test 4242@machine.example instance=a1b2c3d4 heartbeat=10000');
  assert.equal(hostIdOfIdentity(identity), 'h-test');
  assert.deepEqual(parseWorkerIdentity(identity), {
    hostId: 'h-test',
    pid: 4242,
    machine: 'machine.example',
    instanceId: 'a1b2c3d4',
    heartbeatIntervalMs: 10_000,
  });
  const onDisk = workerIdentity({
    hostId: 'h-test',
    pid: 1,
    machine: 'm',
    instanceId: 'i1',
    heartbeatIntervalMs: 1000,
    diskId: 'd-42',
  });
  assert.equal(onDisk, 'keel-host=h-test 1@m instance=i1 heartbeat=1000 disk=d-42');
  assert.equal(parseWorkerIdentity(onDisk)?.diskId, 'd-42');
  // An identity from before instances were named still names its host.
  assert.deepEqual(parseWorkerIdentity('keel-host=h1 7@m'), { hostId: 'h1', pid: 7, machine: 'm' });
});

test('pollers that are not keel workers, or name no valid host, have no host id', () => {
  assert.equal(hostIdOfIdentity('4242@machine.example'), undefined); // the SDK's default identity
  assert.equal(hostIdOfIdentity('keel-host= 1@m'), undefined);
  assert.equal(hostIdOfIdentity('keel-host=bad@id 1@m'), undefined);
  assert.equal(hostIdOfIdentity('keel-host=h2'), 'h2');
});

test('probe answers and workspace sources are validated', () => {
  assert.ok(workspaceProbeSchema.safeParse({ hostId: 'h', state: WorkspaceProbeState.OutsideRoots }).success);
  assert.ok(!workspaceProbeSchema.safeParse({ hostId: 'h', state: 'gone' }).success);
  assert.ok(workspaceSourceSchema.safeParse({ git: 'file:///r', ref: 'main' }).success);
  assert.ok(!workspaceSourceSchema.safeParse({ git: '' }).success);
  assert.ok(!workspaceSourceSchema.safeParse({ git: 'u', branch: 'main' }).success, 'strict: unknown keys');
});
