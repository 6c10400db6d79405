import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import {
  diffWorkspaceSnapshots,
  takeWorkspaceSnapshot,
  workspaceSnapshotSchema,
} from '../../src/activities/tools/workspace-snapshot';
import { makeWorkspace, writeFiles } from './tools-test-helpers';

test('a plain directory snapshot records every file except node_modules and .git', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'a', 'src/b.ts': 'b', 'node_modules/x.js': 'x', '.git/HEAD': 'ref' });
  const snapshot = await takeWorkspaceSnapshot({ workspace });
  assert.equal(snapshot.kind, 'files');
  assert.equal(snapshot.complete, true);
  assert.deepEqual(Object.keys(snapshot.entries).sort(), ['a.txt', 'src/b.ts']);
  assert.equal(snapshot.entries['a.txt']?.exists, true);
  assert.match(snapshot.entries['a.txt']?.hash ?? '', /^[0-9a-f]{64}$/);
  // Serializable as data, for rollback later.
  assert.deepEqual(workspaceSnapshotSchema.parse(JSON.parse(JSON.stringify(snapshot))), snapshot);
});

test('a snapshot is bounded and says when it is incomplete', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
  const snapshot = await takeWorkspaceSnapshot({ workspace, maxFiles: 2 });
  assert.equal(snapshot.complete, false);
  assert.deepEqual(Object.keys(snapshot.entries), ['a.txt', 'b.txt']);
});

test('diff with alsoInclude tells deletions apart from paths beyond the bound', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'a', 'b.txt': 'b' });
  const before = await takeWorkspaceSnapshot({ workspace });
  rmSync(path.join(workspace, 'a.txt'));
  writeFiles(workspace, { 'b.txt': 'B', 'c.txt': 'c' });
  const after = await takeWorkspaceSnapshot({
    workspace,
    kind: before.kind,
    alsoInclude: Object.keys(before.entries),
  });
  assert.deepEqual(diffWorkspaceSnapshots(before, after), {
    created: ['c.txt'],
    modified: ['b.txt'],
    deleted: ['a.txt'],
  });
});

test('a git snapshot records only changed and untracked paths, relative to a workspace subdirectory', async () => {
  const repository = makeWorkspace('keel-git-');
  execFileSync('git', ['init', '-q'], { cwd: repository });
  writeFiles(repository, { 'top.txt': 't', 'sub/clean.txt': 'c', 'sub/changed.txt': 'x' });
  execFileSync('git', ['add', '-A'], { cwd: repository });
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-qm', 'init'], {
    cwd: repository,
  });
  writeFiles(repository, { 'top.txt': 'changed', 'sub/changed.txt': 'y', 'sub/new.txt': 'n' });
  const snapshot = await takeWorkspaceSnapshot({ workspace: path.join(repository, 'sub') });
  assert.equal(snapshot.kind, 'git');
  assert.deepEqual(Object.keys(snapshot.entries).sort(), ['changed.txt', 'new.txt']);
  assert.equal(snapshot.entries['new.txt']?.isNew, true);
  assert.equal(snapshot.entries['changed.txt']?.isNew, false);
});

test('snapshots of different kinds cannot be diffed', () => {
  assert.throws(
    () =>
      diffWorkspaceSnapshots(
        { kind: 'git', entries: {}, complete: true },
        { kind: 'files', entries: {}, complete: true },
      ),
    /Cannot diff/,
  );
});

test('a workspace that its git repository ignores is walked like a plain directory', async () => {
  const repository = makeWorkspace('keel-git-');
  execFileSync('git', ['init', '-q'], { cwd: repository });
  writeFiles(repository, { '.gitignore': 'state/\n', 'state/workspace/a.txt': 'a' });
  const snapshot = await takeWorkspaceSnapshot({ workspace: path.join(repository, 'state/workspace') });
  assert.equal(snapshot.kind, 'files');
  assert.deepEqual(Object.keys(snapshot.entries), ['a.txt']);
});
