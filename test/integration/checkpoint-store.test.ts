import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
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
  foldedCount,
  listCheckpoints,
  restoreCheckpoint,
  storeBytes,
  takeCheckpoint,
} from '../../src/activities/checkpoints/checkpoint-store';
import { tempDirectory } from '../support/temp-directory';

/**
 * The workspace checkpoint store (issue 48): per-turn checkpoints of real files, content-addressed
 * and stored as deltas, restored into a new folder or in place. No server.
 */

/** A temp folder with a workspace and a store beside it, removed when the test ends. */
function setup(t: TestContext) {
  const root = tempDirectory('keel-checkpoints-');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const workspace = path.join(root, 'app');
  mkdirSync(workspace);
  return { root, workspace, store: path.join(root, 'store'), goalId: 'goal-1' };
}

function write(root: string, relative: string, content: string | Buffer): void {
  mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  writeFileSync(path.join(root, relative), content);
}

type Shot = { kind: 'file'; content: string; mode: number } | { kind: 'symlink'; target: string };

/** Every file and link under `root` but in node_modules and .git (never checkpointed): content, permission bits, target. */
function snapshot(root: string, relative = ''): Record<string, Shot> {
  const shots: Record<string, Shot> = {};
  for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
    const full = path.join(root, child);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== '.git') Object.assign(shots, snapshot(root, child));
    } else if (entry.isSymbolicLink()) {
      shots[child] = { kind: 'symlink', target: readlinkSync(full) };
    } else {
      const mode = lstatSync(full).mode & 0o777;
      shots[child] = { kind: 'file', content: readFileSync(full).toString('base64'), mode };
    }
  }
  return shots;
}

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
const objectFile = (store: string, content: string | Buffer) =>
  path.join(store, 'objects', sha256(content).slice(0, 2), sha256(content));

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

test('retainTurns folds the oldest checkpoints and removes what only they held', async (t) => {
  const { root, workspace, store, goalId } = setup(t);
  const references: Record<number, Record<string, Shot>> = {};
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
