import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, lchownSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyOperations } from '../../src/activities/tools/layers/apply-layer';
import { captureLayer } from '../../src/activities/tools/layers/layer-capture';
import { layerLayout, mergeLayer } from '../support/layer-layout';

/**
 * The layer's side of issue 43 without a kernel overlay: an upper directory, the workspace below
 * it and the merged view are plain directories laid out as overlayfs would leave them, so the
 * capture's walk and the apply are exercised as they run after a sandboxed command.
 */

const WORKER = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
const root = WORKER.uid === 0;

const modeOf = (file: string): number => lstatSync(file).mode & 0o7777;

test('cp /bin/dash helper && chmod 4755 helper && chmod 2777 shared: applied without s-bits, each reported', async () => {
  const directories = layerLayout('keel-layer-privileges-');
  mkdirSync(path.join(directories.workspace, 'shared'));
  chmodSync(path.join(directories.workspace, 'shared'), 0o755);
  writeFileSync(path.join(directories.upper, 'helper'), '#!/bin/sh\n');
  chmodSync(path.join(directories.upper, 'helper'), 0o4755);
  mkdirSync(path.join(directories.upper, 'shared'));
  chmodSync(path.join(directories.upper, 'shared'), 0o2777);
  mkdirSync(path.join(directories.upper, 'tree'));
  chmodSync(path.join(directories.upper, 'tree'), 0o3775);
  writeFileSync(path.join(directories.upper, 'tree', 'inner'), 'x');
  chmodSync(path.join(directories.upper, 'tree', 'inner'), 0o6711);
  mergeLayer(directories);

  const capture = await captureLayer({ ...directories, worker: WORKER });
  assert.deepEqual(capture.refusals, [], 'no approval is needed: nothing is granted');
  assert.deepEqual([...capture.privilegeNotes].sort(), [
    'setgid bit removed from shared',
    'setgid bit removed from tree',
    'setgid bit removed from tree/inner',
    'setuid bit removed from helper',
    'setuid bit removed from tree/inner',
    'sticky bit removed from tree',
  ]);
  await applyOperations({ ...directories, operations: capture.operations });
  assert.equal(modeOf(path.join(directories.workspace, 'helper')), 0o755);
  assert.equal(modeOf(path.join(directories.workspace, 'shared')), 0o777);
  assert.equal(modeOf(path.join(directories.workspace, 'tree')), 0o775);
  assert.equal(modeOf(path.join(directories.workspace, 'tree', 'inner')), 0o711);
});

test('a setuid file that was in the workspace before keeps its bit when the call only touched it', async () => {
  const directories = layerLayout('keel-layer-privileges-');
  for (const base of [directories.workspace, directories.upper]) {
    mkdirSync(path.join(base, 'bin'));
    writeFileSync(path.join(base, 'bin', 'tool'), 'same bytes');
    chmodSync(path.join(base, 'bin', 'tool'), 0o4755);
  }
  // Same size, new bytes: a rewrite, which loses the bit as a write by anyone but root would.
  writeFileSync(path.join(directories.workspace, 'bin', 'other'), 'old bytes!');
  chmodSync(path.join(directories.workspace, 'bin', 'other'), 0o4755);
  writeFileSync(path.join(directories.upper, 'bin', 'other'), 'new bytes!');
  chmodSync(path.join(directories.upper, 'bin', 'other'), 0o4755);
  mergeLayer(directories);

  const capture = await captureLayer({ ...directories, worker: WORKER });
  assert.deepEqual(capture.privilegeNotes, ['setuid bit removed from bin/other']);
  assert.deepEqual(
    capture.effects.modified,
    ['bin/other'],
    'an untouched-content, same-mode file is no change',
  );
  await applyOperations({ ...directories, operations: capture.operations });
  assert.equal(modeOf(path.join(directories.workspace, 'bin', 'tool')), 0o4755);
  assert.equal(modeOf(path.join(directories.workspace, 'bin', 'other')), 0o755);
});

test(
  'a chown in the layer is not applied: new entries become the worker’s, old ones keep their owner',
  { skip: !root && 'needs root to chown' },
  async () => {
    const directories = layerLayout('keel-layer-privileges-');
    writeFileSync(path.join(directories.workspace, 'kept.txt'), 'a');
    lchownSync(path.join(directories.workspace, 'kept.txt'), 501, 20);
    writeFileSync(path.join(directories.upper, 'kept.txt'), 'b');
    lchownSync(path.join(directories.upper, 'kept.txt'), 0, 0);
    writeFileSync(path.join(directories.upper, 'given.txt'), 'c');
    lchownSync(path.join(directories.upper, 'given.txt'), 65534, 65534);
    mergeLayer(directories);

    const capture = await captureLayer({ ...directories, worker: WORKER });
    await applyOperations({ ...directories, operations: capture.operations });
    const kept = lstatSync(path.join(directories.workspace, 'kept.txt'));
    assert.deepEqual([kept.uid, kept.gid], [501, 20]);
    const given = lstatSync(path.join(directories.workspace, 'given.txt'));
    assert.deepEqual([given.uid, given.gid], [WORKER.uid, WORKER.gid]);
    assert.equal(capture.privilegeNotes.length, 2);
  },
);

test('HEAD, objects/, refs/ and config made at the root or in a subfolder are held for a human', async () => {
  const directories = layerLayout('keel-layer-privileges-');
  mkdirSync(path.join(directories.workspace, 'sub'));
  mkdirSync(path.join(directories.workspace, 'sub', 'objects'));
  mkdirSync(path.join(directories.workspace, 'sub', 'refs'));
  for (const base of ['', 'sub']) {
    const at = path.join(directories.upper, base);
    mkdirSync(at, { recursive: true });
    writeFileSync(path.join(at, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(path.join(at, 'config'), '[core]\n\tfsmonitor = touch /tmp/pwned\n');
  }
  mkdirSync(path.join(directories.upper, 'objects'));
  mkdirSync(path.join(directories.upper, 'refs'));
  writeFileSync(path.join(directories.upper, 'notes.txt'), 'ordinary');
  mergeLayer(directories);

  const capture = await captureLayer({ ...directories, worker: WORKER });
  const refused = capture.refusals.map((refusal) => refusal.path).sort();
  // notes.txt too: once the root is a repository, everything in it is the repository's.
  assert.deepEqual(refused, ['HEAD', 'config', 'notes.txt', 'objects', 'refs', 'sub/HEAD', 'sub/config']);
  assert.match(
    capture.refusals.find((refusal) => refusal.path === 'sub/HEAD')?.reason ?? '',
    /makes sub a directory git takes/,
  );
});

test('a file the workspace repository includes as config, written by a command, is held for a human', async () => {
  const directories = layerLayout('keel-layer-privileges-');
  mkdirSync(path.join(directories.workspace, '.git'));
  writeFileSync(path.join(directories.workspace, '.git', 'config'), '[include]\n\tpath = ../shared.cfg\n');
  writeFileSync(path.join(directories.upper, 'shared.cfg'), '[core]\n\tfsmonitor = touch /tmp/pwned\n');
  writeFileSync(path.join(directories.upper, 'other.cfg'), 'x');
  mergeLayer(directories);
  const capture = await captureLayer({ ...directories, worker: WORKER });
  assert.deepEqual(
    capture.refusals.map((refusal) => refusal.path),
    ['shared.cfg'],
  );
});
