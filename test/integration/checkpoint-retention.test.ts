import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  foldedCount,
  listCheckpoints,
  restoreCheckpoint,
  takeCheckpoint,
} from '../../src/activities/checkpoints/checkpoint-store';
import { objectFile, setup, snapshot, write } from '../support/checkpoint-workspace';

/**
 * How long the checkpoint store keeps a goal's checkpoints (issue 48): by turns, by time, or
 * whichever lets more go; what goes is folded into the oldest one kept. No server.
 */

test('retainTurns folds the oldest checkpoints and removes what only they held', async (t) => {
  const { root, workspace, store, goalId } = setup(t);
  const references: Record<number, Record<string, string>> = {};
  const onlyInTurnOne = 'content only turn 1 ever had';
  const shared = 'content goal-2 holds as well';
  write(workspace, 'other/shared.txt', shared);
  await takeCheckpoint({ store, goalId: 'goal-2', workspace, turn: 1 });
  for (let turn = 1; turn <= 5; turn += 1) {
    if (turn === 1) write(workspace, 'gone.txt', onlyInTurnOne);
    if (turn === 2) rmSync(path.join(workspace, 'gone.txt'));
    if (turn === 3) rmSync(path.join(workspace, 'other/shared.txt'));
    write(workspace, `turn-${turn}.txt`, `turn ${turn}`);
    if (turn === 4) rmSync(path.join(workspace, 'turn-2.txt'));
    await takeCheckpoint({ store, goalId, workspace, turn, retainTurns: 2 });
    references[turn] = snapshot(workspace);
  }
  assert.deepEqual(
    (await listCheckpoints({ store, goalId })).map((checkpoint) => checkpoint.turn),
    [4, 5],
  );
  assert.equal(existsSync(objectFile(store, onlyInTurnOne)), false, 'collected');
  assert.equal(existsSync(objectFile(store, 'turn 1')), true, 'turn 4 still has turn-1.txt');
  assert.equal(existsSync(objectFile(store, 'turn 2')), false, 'removed at turn 4');
  assert.equal(existsSync(objectFile(store, shared)), true, 'another goal of the store still holds it');
  for (const turn of [4, 5]) {
    const target = path.join(root, `restored-${turn}`);
    assert.equal((await restoreCheckpoint({ store, goalId, turn, target, mode: 'new' }))?.fromTurn, turn);
    assert.deepEqual(snapshot(target), references[turn]);
  }
  await assert.rejects(
    restoreCheckpoint({ store, goalId, turn: 3, target: path.join(root, 'three'), mode: 'new' }),
    /turn 3 of goal goal-1 is older than the checkpoints kept: the oldest kept is turn 4/,
  );
  const restored = path.join(root, 'goal-2');
  await restoreCheckpoint({ store, goalId: 'goal-2', turn: 1, target: restored, mode: 'new' });
  assert.equal(readFileSync(path.join(restored, 'other/shared.txt'), 'utf8'), shared);
});

test('retainForMs folds the checkpoints taken before the window; the newest stays however old', async (t) => {
  const { root, workspace, store, goalId } = setup(t);
  const hour = 3_600_000;
  const window = 90 * 60_000;
  for (let turn = 1; turn <= 4; turn += 1) {
    write(workspace, `turn-${turn}.txt`, `turn ${turn}`);
    // The fourth take is judged an hour later: the others, taken moments ago, are within 90 minutes.
    const nowMs = Date.now() + (turn === 4 ? hour : 0);
    await takeCheckpoint({ store, goalId, workspace, turn, retainForMs: window, nowMs });
  }
  assert.deepEqual(
    (await listCheckpoints({ store, goalId })).map((checkpoint) => checkpoint.turn),
    [1, 2, 3, 4],
  );
  write(workspace, 'turn-5.txt', 'turn 5');
  await takeCheckpoint({
    store,
    goalId,
    workspace,
    turn: 5,
    retainForMs: window,
    nowMs: Date.now() + 2 * hour,
  });
  assert.deepEqual(
    (await listCheckpoints({ store, goalId })).map((checkpoint) => checkpoint.turn),
    [5],
    'two hours on, all but the newest are older than the window',
  );
  const target = path.join(root, 'restored');
  assert.equal((await restoreCheckpoint({ store, goalId, turn: 5, target, mode: 'new' }))?.fromTurn, 5);
  assert.deepEqual(
    Object.keys(snapshot(target)).sort(),
    [1, 2, 3, 4, 5].map((turn) => `turn-${turn}.txt`),
    'the folded turns live on in the one kept',
  );
  await assert.rejects(
    restoreCheckpoint({ store, goalId, turn: 4, target: path.join(root, 'four'), mode: 'new' }),
    /turn 4 of goal goal-1 is older than the checkpoints kept/,
  );
});

test('foldedCount: by turns, by time, or whichever lets more go; never the newest', () => {
  const at = (minutesAgo: number) => ({
    at: new Date(Date.UTC(2026, 11, 4, 12, 0) - minutesAgo * 60_000).toISOString(),
  });
  const nowMs = Date.UTC(2026, 11, 4, 12, 0);
  const checkpoints = [at(50), at(40), at(30), at(20), at(10)];
  assert.equal(foldedCount(checkpoints, {}), 0);
  assert.equal(foldedCount(checkpoints, { retainTurns: 2 }), 3);
  assert.equal(foldedCount(checkpoints, { retainForMs: 25 * 60_000, nowMs }), 3);
  assert.equal(foldedCount(checkpoints, { retainForMs: 45 * 60_000, nowMs }), 1);
  assert.equal(foldedCount(checkpoints, { retainTurns: 4, retainForMs: 25 * 60_000, nowMs }), 3);
  assert.equal(foldedCount(checkpoints, { retainTurns: 1, retainForMs: 45 * 60_000, nowMs }), 4);
  assert.equal(foldedCount(checkpoints, { retainForMs: 1, nowMs }), 4, 'the newest is kept');
  assert.equal(foldedCount(checkpoints, { retainForMs: 60 * 60_000, nowMs }), 0);
  assert.equal(foldedCount([], { retainTurns: 1, retainForMs: 1, nowMs }), 0);
});
