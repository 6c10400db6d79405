import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createForkActivities } from '../../src/activities/lineage/fork-activities';
import { checkpointBeforeCall } from '../../src/activities/lineage/turn-checkpoints';
import { tempDirectory } from '../support/temp-directory';

/**
 * A fork's first step on its host (issue 48), on real files, no server: its paths come from
 * carried state a client wrote, so the host's workspace roots bound them; a retry after a lost
 * completion finishes the same restore; without a checkpoint the source is copied as it is,
 * without setuid bits.
 */

const quiet = { warn: () => undefined };

function setUp() {
  const root = tempDirectory('keel-fork-restore-');
  const source = path.join(root, 'app');
  mkdirSync(source);
  writeFileSync(path.join(source, 'a.txt'), 'first\n');
  return { root, source, activities: createForkActivities({ workspaceRoots: [root] }) };
}

test("a fork reads and writes only under the host's workspace roots", async () => {
  const { root, source, activities } = setUp();
  const elsewhere = tempDirectory('keel-fork-elsewhere-');
  await assert.rejects(
    activities.restoreForkWorkspace({
      source: elsewhere,
      target: path.join(root, 'fork'),
      key: 'g',
      turn: 1,
      mode: 'new',
    }),
    (error: Error & { type?: string }) =>
      error.type === 'WorkspaceUnpreparable' && /outside-roots/.test(error.message),
  );
  await assert.rejects(
    activities.restoreForkWorkspace({
      source,
      target: path.join(elsewhere, 'fork'),
      key: 'g',
      turn: 1,
      mode: 'new',
    }),
    (error: Error & { type?: string }) =>
      error.type === 'WorkspaceUnpreparable' && /outside-roots/.test(error.message),
  );
  await assert.rejects(
    activities.restoreForkWorkspace({ source, target: source, key: 'g', turn: 1, mode: 'new' }),
    /a workspace of its own/,
  );
  // Someone's folder at the fork's path (the client looked on its own machine): refused, untouched.
  const theirs = path.join(root, 'theirs');
  mkdirSync(theirs);
  writeFileSync(path.join(theirs, 'precious.txt'), 'keep me\n');
  await assert.rejects(
    activities.restoreForkWorkspace({ source, target: theirs, key: 'g', turn: 1, mode: 'new' }),
    (error: Error & { type?: string }) =>
      error.type === 'WorkspaceUnpreparable' && /exists and is not empty/.test(error.message),
  );
  assert.equal(readFileSync(path.join(theirs, 'precious.txt'), 'utf8'), 'keep me\n');
});

test('from the checkpoint of the turn; a repeat finishes the same restore; a later turn without one copies the source', async () => {
  const { root, source, activities } = setUp();
  await checkpointBeforeCall(source, { key: 'goal-1', turn: 2 }, quiet);
  writeFileSync(path.join(source, 'a.txt'), 'second\n');
  writeFileSync(path.join(source, 'tool'), '#!/bin/sh\n');
  chmodSync(path.join(source, 'tool'), 0o4755);
  const fork = path.join(root, 'fork');
  const input = { source, target: fork, key: 'goal-1', turn: 2, mode: 'new' as const };
  assert.deepEqual(await activities.restoreForkWorkspace(input), { fromTurn: 2, written: 1, removed: 0 });
  assert.equal(readFileSync(path.join(fork, 'a.txt'), 'utf8'), 'first\n');
  // Its completion lost, the activity runs again into what it wrote: the same files, nothing refused.
  writeFileSync(path.join(fork, 'half.txt'), 'left by an attempt cut off\n');
  const again = await activities.restoreForkWorkspace(input);
  assert.equal(again.fromTurn, 2);
  assert.equal(again.removed, 1);
  assert.equal(readFileSync(path.join(fork, 'a.txt'), 'utf8'), 'first\n');
  // No call changed anything since turn 3: the files are the source's as they are, setuid dropped.
  const later = path.join(root, 'later');
  const copied = await activities.restoreForkWorkspace({ ...input, target: later, turn: 3 });
  assert.equal(copied.fromTurn, undefined);
  assert.equal(readFileSync(path.join(later, 'a.txt'), 'utf8'), 'second\n');
  assert.equal(statSync(path.join(later, 'tool')).mode & 0o7777, 0o755);
});
