import { test } from 'node:test';
import assert from 'node:assert/strict';
import { captureLayer } from '../../src/activities/tools/layers/layer-capture';
import { changeSetText } from '../../src/workflows/approvals/change-set-digest';
import { layerLayout, mergeLayer, writeTree } from '../support/layer-layout';

/**
 * What a layer's effects list shows its approver: bookkeeping under .git/ and node_modules/ is
 * counted, but a path that needs approval is always named, so the hook or config approved is the
 * one the approver read (and the digest they approve covers its name).
 */

const WORKER = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
/** The workspace's own repository, so the layer only changes it (it makes none). */
const REPOSITORY = {
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.git/config': '[core]\n\tbare = false\n',
  '.git/objects/pack/.keep': '',
  '.git/refs/heads/.keep': '',
};

test('a refused .git/ hook or config is listed by name; objects and node_modules are still counted', async () => {
  const layout = layerLayout('keel-layer-effects-');
  writeTree(layout.workspace, {
    ...REPOSITORY,
    ...Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((name) => [`${name}.txt`, name])),
  });
  writeTree(layout.upper, {
    '.git/config': '[core]\n\tfsmonitor = touch /tmp/pwned\n',
    '.git/hooks/post-checkout': '#!/bin/sh\ntouch /tmp/pwned\n',
    '.git/objects/ab/cdef': 'blob',
    'node_modules/left-pad/index.js': 'module.exports = 1;\n',
    ...Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((name) => [`${name}.txt`, `${name}!`])),
  });
  mergeLayer(layout);

  const capture = await captureLayer({ ...layout, worker: WORKER });
  const refused = capture.refusals.map((refusal) => refusal.path).sort();
  assert.deepEqual(refused, ['.git/config', '.git/hooks', '.git/hooks/post-checkout']);
  assert.deepEqual(capture.effects.created, ['.git/hooks/post-checkout']);
  assert.deepEqual(capture.effects.modified, [
    '.git/config',
    'a.txt',
    'b.txt',
    'c.txt',
    'd.txt',
    'e.txt',
    'f.txt',
  ]);
  assert.deepEqual(capture.effects.collapsed, { '.git/': 1, 'node_modules/': 1 });
  assert.match(changeSetText(capture.effects), /\.git\/hooks\/post-checkout/);
});

test('a layer of bookkeeping alone under .git/ and node_modules/ is counted, not listed', async () => {
  const layout = layerLayout('keel-layer-effects-');
  writeTree(layout.workspace, REPOSITORY);
  writeTree(layout.upper, {
    '.git/index': 'index',
    '.git/refs/heads/main': '0000\n',
    'web/node_modules/x/a.js': '',
    'web/node_modules/x/b.js': '',
  });
  mergeLayer(layout);
  const capture = await captureLayer({ ...layout, worker: WORKER });
  assert.deepEqual(capture.refusals, []);
  assert.deepEqual(capture.effects.created, []);
  assert.deepEqual(capture.effects.collapsed, { '.git/': 2, 'web/node_modules/': 2 });
});
