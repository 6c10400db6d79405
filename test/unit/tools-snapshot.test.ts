import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
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
    alsoInclude: Object.keys(before.entries),
  });
  assert.deepEqual(diffWorkspaceSnapshots(before, after), {
    created: ['c.txt'],
    modified: ['b.txt'],
    deleted: ['a.txt'],
  });
});

test('a snapshot runs nothing the workspace configures: a git work tree with fsmonitor and hooks is only read', async () => {
  const workspace = makeWorkspace('keel-git-');
  const marker = path.join(path.dirname(workspace), 'host-marker');
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  writeFiles(workspace, {
    'a.txt': 'a',
    'hook.sh': `#!/bin/sh\ntouch ${marker}\n`,
    '.git/hooks/post-index-change': `#!/bin/sh\ntouch ${marker}\n`,
  });
  execFileSync('git', ['config', 'core.fsmonitor', `sh ${path.join(workspace, 'hook.sh')}`], {
    cwd: workspace,
  });
  const before = await takeWorkspaceSnapshot({ workspace });
  writeFiles(workspace, { 'a.txt': 'A' });
  const after = await takeWorkspaceSnapshot({ workspace, alsoInclude: Object.keys(before.entries) });
  assert.deepEqual(diffWorkspaceSnapshots(before, after).modified, ['a.txt']);
  assert.equal(existsSync(marker), false, 'nothing of the workspace ran on the host');
});
