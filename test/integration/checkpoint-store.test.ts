import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  listCheckpoints,
  restoreCheckpoint,
  storeBytes,
  takeCheckpoint,
} from '../../src/activities/checkpoints/checkpoint-store';
import { objectFile, setup, snapshot, write } from '../support/checkpoint-workspace';

/**
 * The workspace checkpoint store (issue 48): per-turn checkpoints of real files, content-addressed
 * and stored as deltas, restored into a new folder or in place. No server.
 */

/** The turns an agent might take; after each, a checkpoint labelled with the turn. */
const turns: Array<(workspace: string) => void> = [
  (w) => {
    write(w, 'README.md', '# app\n');
    write(w, 'src/index.ts', 'export const a = 1;\n');
    write(w, 'src/util.ts', 'export const u = 1;\n');
    write(w, 'scripts/build.sh', '#!/bin/sh\necho build\n');
    write(w, 'data.txt', 'version one\n');
    write(w, 'docs', 'docs are a file for now\n');
    write(w, 'node_modules/dep/index.js', 'module.exports = 1;\n');
    write(w, '.git/HEAD', 'ref: refs/heads/main\n');
  },
  (w) => {
    write(w, 'src/new.ts', 'export const n = 2;\n'); // a new file
    write(w, 'src/index.ts', 'export const a = 2;\n'); // an edit
    chmodSync(path.join(w, 'scripts/build.sh'), 0o755); // chmod +x
    write(w, 'data.txt', 'version two\n');
  },
  (w) => {
    rmSync(path.join(w, 'src/util.ts')); // rm
    mkdirSync(path.join(w, 'src/lib'));
    renameSync(path.join(w, 'src/new.ts'), path.join(w, 'src/lib/new.ts')); // mv
    symlinkSync('src/index.ts', path.join(w, 'latest')); // a link inside
    symlinkSync('/etc/passwd', path.join(w, 'outside')); // a link out, recorded as a link only
    write(w, 'tool.sh', '#!/bin/sh\n');
    chmodSync(path.join(w, 'tool.sh'), 0o4755); // setuid: never restored
  },
  (w) => {
    write(w, 'dist/a/b/c.js', 'c();\n'); // a build: nested folders
    write(w, 'dist/a/d.js', 'd();\n');
    write(w, 'dist/e.map', '{}\n');
    write(w, 'data.txt', 'version one\n'); // back to turn 1's content: stored once
    rmSync(path.join(w, 'latest'));
    symlinkSync('src/lib/new.ts', path.join(w, 'latest')); // a link retargeted
  },
  (w) => {
    rmSync(path.join(w, 'dist'), { recursive: true }); // rm -r
    rmSync(path.join(w, 'docs'));
    write(w, 'docs/guide.md', 'a folder where a file was\n');
    rmSync(path.join(w, 'latest'));
    write(w, 'latest', 'a file where a link was\n');
    chmodSync(path.join(w, 'scripts/build.sh'), 0o644); // chmod -x
  },
];

test('every turn restores byte for byte, into a new folder and in place', async (t) => {
  const { root, workspace, store, goalId } = setup(t);
  const references: string[] = [];
  const taken: Array<{ changedFiles: number; storedBytes: number }> = [];
  for (const [index, change] of turns.entries()) {
    const turn = index + 1;
    change(workspace);
    const outcome = await takeCheckpoint({ store, goalId, workspace, turn });
    assert.equal(outcome.taken, true);
    taken.push(outcome);
    const reference = path.join(root, `reference-${turn}`);
    await cp(workspace, reference, { recursive: true, verbatimSymlinks: true });
    assert.deepEqual(snapshot(reference), snapshot(workspace), 'the reference copy is faithful');
    references.push(reference);
  }
  assert.equal(taken[0]?.changedFiles, 6, 'node_modules and .git are not checkpointed');
  assert.equal(taken[1]?.changedFiles, 4);
  assert.equal(taken[2]?.changedFiles, 6, 'rm, mv (two paths), two links, the setuid file');
  // Turn 4 stored the build only: data.txt went back to content the store had.
  assert.equal(taken[3]?.storedBytes, 'c();\n'.length + 'd();\n'.length + '{}\n'.length);
  assert.equal(
    taken[4]?.storedBytes,
    'a folder where a file was\n'.length + 'a file where a link was\n'.length,
  );
  assert.deepEqual(
    (await listCheckpoints({ store, goalId })).map(({ turn, changedFiles, storedBytes }) => ({
      turn,
      changedFiles,
      storedBytes,
    })),
    taken.map(({ changedFiles, storedBytes }, index) => ({ turn: index + 1, changedFiles, storedBytes })),
  );

  for (const [index, reference] of references.entries()) {
    const target = path.join(root, `restored-${index + 1}`);
    const restored = await restoreCheckpoint({ store, goalId, turn: index + 1, target, mode: 'new' });
    assert.equal(restored?.fromTurn, index + 1);
    assert.equal(restored.removed, 0);
    assert.equal(restored.written, Object.keys(snapshot(reference)).length);
    assert.deepEqual(snapshot(target), snapshot(reference), `turn ${index + 1} restored as it was`);
  }
  assert.equal(lstatSync(path.join(root, 'restored-3/tool.sh')).mode & 0o7777, 0o755, 'setuid dropped');
  assert.equal(readlinkSync(path.join(root, 'restored-3/outside')), '/etc/passwd');
  assert.equal(existsSync(path.join(root, 'restored-1/node_modules')), false);

  // Back to turn 1 in the live workspace: the docs folder becomes a file again, the link a link.
  const back = await restoreCheckpoint({ store, goalId, turn: 1, target: workspace, mode: 'in-place' });
  assert.deepEqual(snapshot(workspace), snapshot(references[0] ?? ''));
  assert.ok(back !== undefined && back.removed > 0 && back.written > 0);
  assert.equal(
    readFileSync(path.join(workspace, 'node_modules/dep/index.js'), 'utf8'),
    'module.exports = 1;\n',
  );
  assert.equal(existsSync(path.join(workspace, '.git/HEAD')), true, '.git is left as it is');
  // Forward to turn 3 (links, setuid), and to turn 3 again: nothing left to write.
  await restoreCheckpoint({ store, goalId, turn: 3, target: workspace, mode: 'in-place' });
  assert.deepEqual(snapshot(workspace), snapshot(references[2] ?? ''));
  chmodSync(path.join(workspace, 'tool.sh'), 0o4755);
  const again = await restoreCheckpoint({ store, goalId, turn: 3, target: workspace, mode: 'in-place' });
  assert.deepEqual(again, { fromTurn: 3, written: 1, removed: 0 }, 'only the setuid bit was off');
  assert.equal(lstatSync(path.join(workspace, 'tool.sh')).mode & 0o7777, 0o755);
});

test('a turn that changes one small file stores that file only, and unchanged files are not read again', async (t) => {
  const { workspace, store, goalId } = setup(t);
  for (let index = 0; index < 200; index += 1) write(workspace, `files/${index}.bin`, randomBytes(10 * 1024));
  write(workspace, 'counter.txt', 'count: 001');
  const first = await takeCheckpoint({ store, goalId, workspace, turn: 1 });
  assert.equal(first.storedBytes, 200 * 10 * 1024 + 10);
  assert.equal(await storeBytes(store), first.storedBytes);

  await sleep(2100); // past the window in which a file's times cannot yet be trusted
  write(workspace, 'counter.txt', 'count: 002');
  const second = await takeCheckpoint({ store, goalId, workspace, turn: 2 });
  assert.deepEqual(
    { changedFiles: second.changedFiles, storedBytes: second.storedBytes },
    { changedFiles: 1, storedBytes: 10 },
  );
  assert.equal(await storeBytes(store), first.storedBytes + 10);

  write(workspace, 'counter.txt', 'count: 003');
  const third = await takeCheckpoint({ store, goalId, workspace, turn: 3 });
  assert.equal(third.storedBytes, 10);
  assert.ok(third.storedBytes < 1024);
  assert.equal(third.readFiles, 1, 'the 200 unchanged files were known by their fingerprints');
  assert.equal(await storeBytes(store), first.storedBytes + 20);
});

test('a label taken again is not taken again, also when asked for in parallel', async (t) => {
  const { root, workspace, store, goalId } = setup(t);
  write(workspace, 'a.txt', 'first');
  assert.equal((await takeCheckpoint({ store, goalId, workspace, turn: 1 })).taken, true);
  const before = await storeBytes(store);
  write(workspace, 'a.txt', 'changed after the checkpoint');
  const repeated = await takeCheckpoint({ store, goalId, workspace, turn: 1 });
  assert.deepEqual(repeated, { taken: false, turn: 1, changedFiles: 1, storedBytes: 5, readFiles: 0 });
  assert.equal(await storeBytes(store), before, 'nothing stored');
  await restoreCheckpoint({ store, goalId, turn: 1, target: path.join(root, 'one'), mode: 'new' });
  assert.equal(readFileSync(path.join(root, 'one/a.txt'), 'utf8'), 'first');

  const parallel = await Promise.all(
    Array.from({ length: 5 }, () => takeCheckpoint({ store, goalId, workspace, turn: 2 })),
  );
  assert.equal(parallel.filter((outcome) => outcome.taken).length, 1);
  assert.deepEqual(
    (await listCheckpoints({ store, goalId })).map((checkpoint) => checkpoint.turn),
    [1, 2],
  );
  await assert.rejects(takeCheckpoint({ store, goalId, workspace, turn: 0 }), /labels only grow/);
});

test('a damaged object makes the restore fail instead of writing it', async (t) => {
  const { root, workspace, store, goalId } = setup(t);
  write(workspace, 'ok.txt', 'fine');
  write(workspace, 'precious.txt', 'the real content');
  await takeCheckpoint({ store, goalId, workspace, turn: 1 });
  writeFileSync(objectFile(store, 'the real content'), 'the fake content');
  const target = path.join(root, 'restored');
  await assert.rejects(
    restoreCheckpoint({ store, goalId, turn: 1, target, mode: 'new' }),
    (error: Error) => error.name === 'CheckpointError' && /damaged/.test(error.message),
  );
  assert.notEqual(readFileSync(path.join(target, 'precious.txt'), 'utf8'), 'the fake content');
  // In place, over the file as it is now: it keeps what it has.
  write(workspace, 'precious.txt', 'edited since');
  await assert.rejects(restoreCheckpoint({ store, goalId, turn: 1, target: workspace, mode: 'in-place' }));
  assert.equal(readFileSync(path.join(workspace, 'precious.txt'), 'utf8'), 'edited since');
});

test('a goal without a checkpoint at or after the turn restores nothing', async (t) => {
  const { root, workspace, store, goalId } = setup(t);
  write(workspace, 'a.txt', 'a');
  await takeCheckpoint({ store, goalId, workspace, turn: 2 });
  await takeCheckpoint({ store, goalId, workspace, turn: 4 });
  const target = path.join(root, 'target');
  assert.equal(await restoreCheckpoint({ store, goalId, turn: 5, target, mode: 'new' }), undefined);
  assert.equal(
    await restoreCheckpoint({ store, goalId: 'no-such-goal', turn: 0, target, mode: 'new' }),
    undefined,
  );
  assert.equal(existsSync(target), false);
  // Turn 3 is taken from the first checkpoint after it.
  assert.equal((await restoreCheckpoint({ store, goalId, turn: 3, target, mode: 'new' }))?.fromTurn, 4);
  await assert.rejects(
    restoreCheckpoint({ store, goalId, turn: 3, target, mode: 'new' }),
    /not an empty directory/,
  );
  // A workspace that is not there is refused, not recorded as empty (restoring that would empty it).
  const missing = path.join(root, 'missing');
  await assert.rejects(takeCheckpoint({ store, goalId, workspace: missing, turn: 6 }), /ENOENT/);
  assert.deepEqual(
    (await listCheckpoints({ store, goalId })).map((checkpoint) => checkpoint.turn),
    [2, 4],
  );
});

test('a take reads the tree of the newest checkpoint from its head, and folds the records when the head is gone or stale', async (t) => {
  const { root, workspace, store, goalId } = setup(t);
  const head = () => path.join(store, 'goals', readdirSync(path.join(store, 'goals'))[0] ?? '', 'head.json');
  const references: string[] = [];
  for (const [index, change] of turns.entries()) {
    const turn = index + 1;
    change(workspace);
    if (turn === 3) rmSync(head()); // lost in a crash: the records are folded instead
    if (turn === 4) {
      // A head of another turn, which holds nothing: trusted, this turn's deletion would go unrecorded.
      writeFileSync(head(), JSON.stringify({ schemaVersion: 1, turn: 1, entries: {} }));
      const [removed] = Object.keys(snapshot(workspace));
      rmSync(path.join(workspace, removed ?? 'none'), { force: true });
    }
    await takeCheckpoint({ store, goalId, workspace, turn });
    const reference = path.join(root, `reference-${turn}`);
    await cp(workspace, reference, { recursive: true, verbatimSymlinks: true });
    references.push(reference);
  }
  assert.ok(existsSync(head()));
  const newestHead = JSON.parse(readFileSync(head(), 'utf8')) as {
    turn: number;
    entries: Record<string, unknown>;
  };
  assert.equal(newestHead.turn, turns.length);
  for (const [index, reference] of references.entries()) {
    const target = path.join(root, `restored-${index + 1}`);
    await restoreCheckpoint({ store, goalId, turn: index + 1, target, mode: 'new' });
    assert.deepEqual(snapshot(target), snapshot(reference), `turn ${index + 1}`);
  }
});

test('an in-place restore removes the folders it emptied, and keeps folders with anything else in them', async (t) => {
  const { workspace, store, goalId } = setup(t);
  write(workspace, 'a.txt', 'a\n');
  mkdirSync(path.join(workspace, 'empty-before'));
  await takeCheckpoint({ store, goalId, workspace, turn: 1 });
  write(workspace, 'dist/js/app.js', 'built\n');
  write(workspace, 'src/new.ts', 'new\n');
  write(workspace, 'src/keep/node_modules/dep.js', 'not checkpointed\n');
  await takeCheckpoint({ store, goalId, workspace, turn: 2 });
  await restoreCheckpoint({ store, goalId, turn: 1, target: workspace, mode: 'in-place' });
  assert.equal(existsSync(path.join(workspace, 'dist')), false, 'the build folder went with its files');
  assert.equal(existsSync(path.join(workspace, 'src/new.ts')), false);
  assert.equal(
    existsSync(path.join(workspace, 'src/keep/node_modules/dep.js')),
    true,
    'what no checkpoint holds stays',
  );
  assert.equal(
    existsSync(path.join(workspace, 'empty-before')),
    true,
    'a folder the restore did not empty stays',
  );
  assert.equal(readFileSync(path.join(workspace, 'a.txt'), 'utf8'), 'a\n');
});
