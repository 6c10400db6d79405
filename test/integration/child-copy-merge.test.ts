import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { childCopyPath, createChildCopyActivities } from '../../src/activities/delegation/child-copies';
import { workspaceStateRoot } from '../../src/activities/hosts/workspace-state-directory';
import { tempDirectory } from '../support/temporal';

/**
 * The host's side of a child's copy (issue 47): made, merged by whole files against what the child
 * started from, dropped. Real files in temporary folders; no server (in integration/ only because
 * it reaches the race-free file access that mutation testing measures through its own tests).
 */

const activities = createChildCopyActivities();

function workspaceWith(files: Record<string, string>): string {
  const workspace = path.join(tempDirectory(), 'app');
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(workspace, relative)), { recursive: true });
    writeFileSync(path.join(workspace, relative), content);
  }
  mkdirSync(workspace, { recursive: true });
  return workspace;
}

const read = (root: string, relative: string) => readFileSync(path.join(root, relative), 'utf8');

test('a copy is made beside the workspace, whole, and making it again keeps it', async () => {
  const workspace = workspaceWith({ 'a.txt': 'a', 'src/b.txt': 'b', 'node_modules/x/index.js': 'x' });
  const input = { workspace, childWorkflowId: 'goal-1-delegate-1' };
  const { copy, files } = await activities.copyWorkspaceForChild(input);
  assert.equal(copy, childCopyPath(workspace, input.childWorkflowId));
  assert.equal(path.dirname(copy), path.dirname(workspace));
  assert.equal(files, 2, 'node_modules is copied, not listed');
  assert.equal(read(copy, 'node_modules/x/index.js'), 'x');
  writeFileSync(path.join(copy, 'a.txt'), 'the child began');
  // A retried start finds the complete copy and leaves the child's work in it.
  assert.equal((await activities.copyWorkspaceForChild(input)).copy, copy);
  assert.equal(read(copy, 'a.txt'), 'the child began');
  await activities.dropChildCopy(input);
  assert.equal(existsSync(copy), false);
  assert.equal(existsSync(workspaceStateRoot(copy)), false);
});

test('the merge brings what only the child changed, keeps what both changed, and says why it left the rest', async () => {
  const workspace = workspaceWith({
    'edited.txt': 'base\n',
    'removed.txt': 'remove me\n',
    'both.txt': 'base\n',
    'parent-removed.txt': 'base\n',
    'untouched.txt': 'same\n',
  });
  const input = { workspace, childWorkflowId: 'goal-2-delegate-1' };
  const { copy } = await activities.copyWorkspaceForChild(input);
  // The child's work in its copy.
  writeFileSync(path.join(copy, 'edited.txt'), 'child\n');
  rmSync(path.join(copy, 'removed.txt'));
  writeFileSync(path.join(copy, 'both.txt'), 'child\n');
  writeFileSync(path.join(copy, 'parent-removed.txt'), 'child\n');
  mkdirSync(path.join(copy, 'new'));
  writeFileSync(path.join(copy, 'new/tool.sh'), '#!/bin/sh\n');
  chmodSync(path.join(copy, 'new/tool.sh'), 0o4755);
  symlinkSync('/etc/passwd', path.join(copy, 'link'));
  // Meanwhile, in the parent's workspace.
  writeFileSync(path.join(workspace, 'both.txt'), 'parent\n');
  rmSync(path.join(workspace, 'parent-removed.txt'));

  const merged = await activities.mergeChildCopy(input);
  assert.deepEqual(merged.applied, [
    { path: 'edited.txt', change: 'changed' },
    { path: 'new/tool.sh', change: 'added' },
    { path: 'removed.txt', change: 'removed' },
  ]);
  assert.equal(merged.appliedCount, 3);
  assert.deepEqual(merged.overlaps, [
    { path: 'both.txt', change: 'changed' },
    { path: 'parent-removed.txt', change: 'changed' },
  ]);
  assert.deepEqual(
    merged.notMerged.map((entry) => entry.path),
    ['link'],
  );
  assert.equal(read(workspace, 'edited.txt'), 'child\n');
  assert.equal(existsSync(path.join(workspace, 'removed.txt')), false);
  assert.equal(read(workspace, 'both.txt'), 'parent\n', 'never written over');
  assert.equal(existsSync(path.join(workspace, 'parent-removed.txt')), false);
  assert.equal(existsSync(path.join(workspace, 'link')), false);
  assert.equal(
    statSync(path.join(workspace, 'new/tool.sh')).mode & 0o7777,
    0o755,
    'no setuid bit comes back',
  );
  assert.match(merged.overlapDiff ?? '', /-parent\n\+child/);

  // A merge repeated (its completion lost) finds its changes there and says the same.
  const again = await activities.mergeChildCopy(input);
  assert.deepEqual(again.applied, merged.applied);
  assert.deepEqual(again.overlaps, merged.overlaps);
  await activities.dropChildCopy(input);
  assert.deepEqual(
    readdirSync(path.dirname(workspace)).filter((entry) => entry.includes('.keel-copy-')),
    [],
  );
  await assert.rejects(activities.mergeChildCopy(input), /copy of .* is gone from this host/);
});

test('a copy of one folder: the child sees only it, its changes come back into it, named inside it', async () => {
  const workspace = workspaceWith({ 'top.txt': 'top\n', 'sub/a.txt': 'a\n', 'sub/deep/b.txt': 'b\n' });
  const input = { workspace, childWorkflowId: 'goal-3-delegate-1', folder: 'sub' };
  const { copy, files } = await activities.copyWorkspaceForChild(input);
  assert.equal(files, 2);
  assert.deepEqual(readdirSync(copy).sort(), ['a.txt', 'deep']);
  writeFileSync(path.join(copy, 'a.txt'), 'changed\n');
  writeFileSync(path.join(copy, 'new.txt'), 'new\n');
  const merged = await activities.mergeChildCopy(input);
  assert.deepEqual(merged.applied, [
    { path: 'sub/a.txt', change: 'changed' },
    { path: 'sub/new.txt', change: 'added' },
  ]);
  assert.equal(read(workspace, 'sub/a.txt'), 'changed\n');
  assert.equal(read(workspace, 'sub/new.txt'), 'new\n');
  assert.equal(read(workspace, 'top.txt'), 'top\n');
  await activities.dropChildCopy(input);
});

test('a folder that is missing, outside the workspace or swapped for a link is refused, never followed', async () => {
  const workspace = workspaceWith({ 'sub/a.txt': 'a\n' });
  await assert.rejects(
    activities.copyWorkspaceForChild({ workspace, childWorkflowId: 'goal-4-delegate-1', folder: 'nowhere' }),
    /nowhere is not a folder of the workspace \(missing at nowhere\)/,
  );
  await assert.rejects(
    activities.copyWorkspaceForChild({ workspace, childWorkflowId: 'goal-4-delegate-2', folder: '../etc' }),
    /folder must be relative to the workspace, without "\.\."/,
  );
  const input = { workspace, childWorkflowId: 'goal-4-delegate-3', folder: 'sub' };
  const { copy } = await activities.copyWorkspaceForChild(input);
  writeFileSync(path.join(copy, 'a.txt'), 'to wherever the link points\n');
  // The model swaps the folder for a link while the child works: the merge writes nothing through it.
  const elsewhere = tempDirectory();
  writeFileSync(path.join(elsewhere, 'a.txt'), 'a\n');
  rmSync(path.join(workspace, 'sub'), { recursive: true });
  symlinkSync(elsewhere, path.join(workspace, 'sub'));
  await assert.rejects(
    activities.mergeChildCopy(input),
    /sub is not a folder of the workspace \(symlink at sub\)/,
  );
  assert.equal(read(elsewhere, 'a.txt'), 'a\n');
  await activities.dropChildCopy(input);
});
