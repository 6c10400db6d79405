import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { heldDiff, HELD_DIFF_MAX_CHARS } from '../../src/activities/tools/layers/held-diff';
import type { LayerOperation } from '../../src/activities/tools/layers/layer-operations';
import { tempDirectory } from '../support/temp-directory';

/**
 * Issue 46: an approver sees the held changes line by line, not only their paths. The diff is read
 * from a layer's upper directory against the workspace, as the worker does when it holds a call.
 */

function layout(files: {
  workspace?: Record<string, string | Buffer>;
  upper?: Record<string, string | Buffer>;
}) {
  const root = tempDirectory('keel-held-diff-');
  const workspace = path.join(root, 'workspace');
  const upper = path.join(root, 'upper');
  for (const [base, entries] of [
    [workspace, files.workspace ?? {}],
    [upper, files.upper ?? {}],
  ] as const) {
    mkdirSync(base, { recursive: true });
    for (const [relative, content] of Object.entries(entries)) {
      mkdirSync(path.dirname(path.join(base, relative)), { recursive: true });
      writeFileSync(path.join(base, relative), content);
    }
  }
  return { workspace, upper };
}

test('a changed file shows its removed and added lines; a deleted one all its lines as removed', async () => {
  const { workspace, upper } = layout({
    workspace: { 'config.txt': 'mode=safe\nretries=3\n', 'notes.md': 'keep me\n' },
    upper: { 'config.txt': 'mode=fast\nretries=3\n' },
  });
  const operations: LayerOperation[] = [
    { op: 'move', path: 'config.txt' },
    { op: 'remove', path: 'notes.md' },
  ];
  const diff = await heldDiff({ operations, upper, workspace });
  assert.ok(diff);
  assert.match(
    diff,
    /^--- a\/config\.txt\n\+\+\+ b\/config\.txt\n@@ -1,2 \+1,2 @@\n-mode=safe\n\+mode=fast\n retries=3\n/,
  );
  assert.match(diff, /--- a\/notes\.md\n\+\+\+ \/dev\/null\n@@ -1,1 \+0,0 @@\n-keep me\n/);
  assert.doesNotMatch(diff, /^=+$/m, "jsdiff's rule of '=' signs is dropped");
});

test("a removed directory's files are each shown removed; a new directory's files each added", async () => {
  const { workspace, upper } = layout({
    workspace: { 'build/a.js': 'a\n', 'build/sub/b.js': 'b\n' },
    upper: { 'src/new/c.ts': 'export const c = 1;\n' },
  });
  const diff = await heldDiff({
    operations: [
      { op: 'remove', path: 'build' },
      { op: 'move', path: 'src' },
    ],
    upper,
    workspace,
  });
  assert.ok(diff);
  assert.match(diff, /--- a\/build\/a\.js\n\+\+\+ \/dev\/null\n@@ -1,1 \+0,0 @@\n-a\n/);
  assert.match(diff, /--- a\/build\/sub\/b\.js\n\+\+\+ \/dev\/null\n@@ -1,1 \+0,0 @@\n-b\n/);
  assert.match(diff, /--- \/dev\/null\n\+\+\+ b\/src\/new\/c\.ts\n@@ -0,0 \+1,1 @@\n\+export const c = 1;\n/);
});

test('binary, empty and unchanged-content files are named in words, not dumped', async () => {
  const { workspace, upper } = layout({
    workspace: { 'logo.png': Buffer.from([0x89, 0x50, 0x00, 0x01]), 'same.txt': 'x\n' },
    upper: { 'logo.png': Buffer.from([0x89, 0x50, 0x00, 0x02, 0x03]), 'empty.txt': '', 'same.txt': 'x\n' },
  });
  const diff = await heldDiff({
    operations: [
      { op: 'move', path: 'logo.png' },
      { op: 'move', path: 'empty.txt' },
      { op: 'move', path: 'same.txt' },
    ],
    upper,
    workspace,
  });
  assert.equal(
    diff,
    'empty.txt: nothing → an empty file\nlogo.png: a binary file of 4 bytes → a binary file of 5 bytes\n',
  );
});

test('nothing to show is no diff at all', async () => {
  const { workspace, upper } = layout({ workspace: { 'same.txt': 'x\n' }, upper: { 'same.txt': 'x\n' } });
  assert.equal(
    await heldDiff({ operations: [{ op: 'move', path: 'same.txt' }], upper, workspace }),
    undefined,
  );
});

test('a long diff is cut at its budget, and says how many paths it leaves out', async () => {
  const line = 'x'.repeat(100);
  const files = Object.fromEntries(
    Array.from({ length: 600 }, (_, index) => [`f${String(index).padStart(3, '0')}.txt`, `${line}\n`]),
  );
  const { workspace, upper } = layout({ workspace: files });
  const operations = Object.keys(files).map((file): LayerOperation => ({ op: 'remove', path: file }));
  const diff = await heldDiff({ operations, upper, workspace });
  assert.ok(diff);
  assert.ok(diff.length <= HELD_DIFF_MAX_CHARS + 200, `${diff.length} characters`);
  const shown = diff.match(/^\+\+\+ \/dev\/null$/gm)?.length ?? 0;
  assert.ok(shown > 100 && shown < 600, `${shown} files shown`);
  assert.match(
    diff,
    new RegExp(
      `… ${600 - shown} more changed path\\(s\\) not shown: the diff is cut at ${HELD_DIFF_MAX_CHARS} characters$`,
    ),
  );
  assert.match(diff, /--- a\/f000\.txt\n/, 'in path order, from the first');
});
