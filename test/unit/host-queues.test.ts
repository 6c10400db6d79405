import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hostIdOfIdentity,
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

test('a worker identity names its host, and the host id is read back from it', () => {
  const identity = workerIdentity('h-test', 4242, 'machine.example');
  assert.equal(identity, 'keel-host=h-test 4242@machine.example');
  assert.equal(hostIdOfIdentity(identity), 'h-test');
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
