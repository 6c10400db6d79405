import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { writeFile } from '../../src/activities/tools/builtin/write-file';
import { holdingsAbove } from '../../src/activities/tools/workspace-access/git-directory-holdings';
import { makeWorkspace, toolContext, writeFiles } from './tools-test-helpers';

/**
 * write_file creates the directories above the file it writes, so each of them is a name added
 * at its depth: a repository built without `.git`, one write at a time, is held at the write that
 * completes it.
 */

const unapproved = (workspace: string) =>
  toolContext(workspace, { approved: false, reversibility: 'mutating' });

test('a repository assembled by four writes (config, HEAD, refs/…, objects/…) is held when it would be complete', async () => {
  const workspace = makeWorkspace();
  const write = (file: string, content: string) => writeFile({ path: file, content }, unapproved(workspace));
  const config = await write('r/config', '[core]\n\tworktree = ..\n\tfsmonitor = touch pwned\n');
  assert.equal(config.ok, true, 'a config alone is no repository');
  const head = await write('r/HEAD', 'ref: refs/heads/main\n');
  assert.equal(head.ok, true, 'config beside HEAD is no repository yet');
  const refs = await write('r/refs/heads/main', '0000000000000000000000000000000000000000\n');
  assert.equal(refs.ok, false, 'refs/ created on the way puts HEAD beside refs/');
  assert.match(
    refs.content,
    /^Not written: r\/refs\/heads\/main makes r a directory git takes for a repository/,
  );
  assert.equal(existsSync(path.join(workspace, 'r', 'refs')), false, 'nothing is created while held');
  const objects = await write('r/objects/x', '');
  assert.equal(objects.ok, false, 'objects/ created on the way puts HEAD beside objects/');
  assert.equal(existsSync(path.join(workspace, 'r', 'objects')), false);
});

test('refs/ and objects/ made by one write below them are both counted at their depth', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'r/config': '[core]\n\tfsmonitor = x\n', 'r/HEAD': 'ref: refs/heads/main\n' });
  const holdings = await holdingsAbove(workspace, ['r', 'refs', 'objects', 'x']);
  assert.deepEqual(holdings.get('r'), { before: ['HEAD', 'config'], after: ['HEAD', 'config', 'refs'] });
  assert.deepEqual(holdings.get('r/refs'), { before: [], after: ['objects'] });
  const both = await writeFile({ path: 'r/refs/objects/x', content: '' }, unapproved(workspace));
  assert.equal(both.ok, false, 'refs/ and objects/ created by one write');
  assert.equal(existsSync(path.join(workspace, 'r', 'refs')), false);
  writeFiles(workspace, { 'other/config': '', 'other/objects/.keep': '' });
  // config beside objects/ and refs/ is a common directory git reads through a worktree.
  const nested = await writeFile({ path: 'other/refs/heads/main', content: '' }, unapproved(workspace));
  assert.equal(nested.ok, false);
  assert.match(nested.content, /makes other a directory git takes for a repository/);
});

test('an ordinary nested write, or one into directories that already exist, is not held', async () => {
  const workspace = makeWorkspace();
  const nested = await writeFile({ path: 'src/a/b.ts', content: 'export {};\n' }, unapproved(workspace));
  assert.equal(nested.ok, true);
  const holdings = await holdingsAbove(workspace, ['src', 'a', 'b.ts']);
  for (const holding of holdings.values()) assert.deepEqual(holding, { before: [], after: [] });
  // A refs/ that is already there is not added again: HEAD beside it was the approved change.
  writeFiles(workspace, { 'docs/refs/notes.md': 'x' });
  const again = await writeFile({ path: 'docs/refs/more.md', content: 'y' }, unapproved(workspace));
  assert.equal(again.ok, true);
});
