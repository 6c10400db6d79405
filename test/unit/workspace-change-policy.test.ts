import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  changesNeedingApproval,
  protectedPathReason,
  type WorkspaceChange,
} from '../../src/workflows/tools/workspace-change-policy';

test("git's bookkeeping may change without a human; its configuration, hooks and plans may not", () => {
  for (const path of [
    '.git/index',
    '.git/HEAD',
    '.git/ORIG_HEAD',
    '.git/COMMIT_EDITMSG',
    '.git/objects/ab/cdef0123',
    '.git/refs/heads/main',
    '.git/logs/HEAD',
    '.git/index.lock',
    'packages/web/.git/objects/pack/pack-1.pack',
    'src/app.ts',
    '.gitignore',
    '.github/workflows/ci.yml',
    'my.git/config',
  ]) {
    assert.equal(protectedPathReason(path), undefined, path);
  }
  for (const path of [
    '.git/config',
    '.git/config.worktree',
    '.git/hooks/pre-commit',
    '.git/hooks',
    '.git/info/attributes',
    '.git/modules/lib/config',
    '.git/worktrees/x/config.worktree',
    '.git/rebase-merge/git-rebase-todo',
    '.git/commondir',
    'vendor/lib/.git/config',
  ]) {
    assert.match(protectedPathReason(path) ?? '', /git runs programs they name/, path);
  }
  // .git as a file or link points git at a configuration elsewhere; as a directory it is git's own.
  assert.match(protectedPathReason('.git', 'file') ?? '', /\.git file or link/);
  assert.match(protectedPathReason('sub/.git', 'symlink') ?? '', /\.git file or link/);
  assert.equal(protectedPathReason('.git', 'directory'), undefined);
});

test('an unapproved call may create and modify files; deletions, git configuration and special files need a human', () => {
  const changes: WorkspaceChange[] = [
    { path: 'src/new.ts', change: 'created', type: 'file' },
    { path: 'src/app.ts', change: 'modified', type: 'file' },
    { path: 'build', change: 'created', type: 'directory' },
    { path: 'link', change: 'created', type: 'symlink' },
    { path: 'old.txt', change: 'deleted', type: 'file' },
    { path: 'dist', change: 'deleted', type: 'directory' },
    { path: '.git/config', change: 'modified', type: 'file' },
    { path: '.git/hooks/post-checkout', change: 'created', type: 'file' },
    { path: 'pipe', change: 'created', type: 'fifo' },
    { path: '.git/objects/aa/bb', change: 'created', type: 'file' },
  ];
  const refusals = changesNeedingApproval(changes);
  assert.deepEqual(
    refusals.map((refusal) => refusal.path),
    ['old.txt', 'dist', '.git/config', '.git/hooks/post-checkout', 'pipe'],
  );
  assert.match(refusals[0]?.reason ?? '', /deletes old\.txt, which existed before the call/);
  assert.match(refusals[4]?.reason ?? '', /leaves a fifo at pipe/);
  assert.deepEqual(changesNeedingApproval(changes.slice(0, 4)), []);
});
