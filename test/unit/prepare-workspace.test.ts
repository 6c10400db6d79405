import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createHostActivities } from '../../src/activities/hosts';
import { FailureType } from '../../src/workflows/common/failure-types';
import { tempDirectory } from '../support/temp-directory';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=keel', '-c', 'user.email=keel@example.com', ...args], {
    cwd,
    stdio: 'pipe',
  });

/** A local repository with one commit on main and a branch "feature" with another file. */
function repository(): string {
  const repo = tempDirectory('keel-repo-');
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'README.md'), 'hello\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'first');
  git(repo, 'checkout', '-q', '-b', 'feature');
  writeFileSync(path.join(repo, 'feature.txt'), 'feature\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'feature');
  git(repo, 'checkout', '-q', 'main');
  return repo;
}

const unpreparable = (pattern: RegExp) => (error: unknown) =>
  error instanceof ApplicationFailure &&
  error.nonRetryable &&
  error.type === FailureType.WorkspaceUnpreparable &&
  pattern.test(error.message);

test('a missing workspace is cloned from its source (file:// URL, a ref), nothing left beside it', async () => {
  const repo = repository();
  const root = tempDirectory('keel-root-');
  const hosts = createHostActivities({ hostId: 'h2', workspaceRoots: [root] });
  const workspace = path.join(root, 'projects', 'app');

  assert.deepEqual(
    await hosts.prepareWorkspace({ workspace, source: { git: `file://${repo}`, ref: 'feature' } }),
    { hostId: 'h2', cloned: true },
  );
  assert.equal(readFileSync(path.join(workspace, 'feature.txt'), 'utf8'), 'feature\n');
  assert.deepEqual(readdirSync(path.join(root, 'projects')).sort(), ['.keel-state', 'app']);
  assert.deepEqual(readdirSync(path.join(root, 'projects', '.keel-state', 'app')), [], 'no staging left');
  assert.deepEqual(await hosts.probeWorkspace({ workspace }), {
    hostId: 'h2',
    state: 'present',
    relative: path.join('projects', 'app'),
  });
});

test('a present workspace is left untouched, even with another source', async () => {
  const workspace = tempDirectory('keel-ws-');
  writeFileSync(path.join(workspace, 'mine.txt'), 'keep me');
  const hosts = createHostActivities({ hostId: 'h2', workspaceRoots: [] });
  assert.deepEqual(await hosts.prepareWorkspace({ workspace, source: { git: 'file:///nonexistent/repo' } }), {
    hostId: 'h2',
    cloned: false,
  });
  assert.deepEqual(readdirSync(workspace), ['mine.txt']);
});

test("git's complaint comes back as WorkspaceUnpreparable, and no half workspace is left", async () => {
  const repo = repository();
  const root = tempDirectory('keel-root-');
  const hosts = createHostActivities({ hostId: 'h2', workspaceRoots: [] });
  const workspace = path.join(root, 'app');
  await assert.rejects(
    hosts.prepareWorkspace({ workspace, source: { git: `file://${root}/no-such-repo` } }),
    unpreparable(/^host h2: git clone file:\/\/.*no-such-repo failed: fatal: .*/),
  );
  await assert.rejects(
    hosts.prepareWorkspace({ workspace, source: { git: `file://${repo}`, ref: 'no-such-branch' } }),
    unpreparable(/\(no-such-branch\) failed: .*no-such-branch/),
  );
  assert.ok(!existsSync(workspace));
  assert.deepEqual(readdirSync(path.join(root, '.keel-state', 'app')), []);
});

test('outside the roots, or a file in the way: refused without running git', async () => {
  const root = tempDirectory('keel-root-');
  const elsewhere = tempDirectory('keel-elsewhere-');
  writeFileSync(path.join(root, 'file'), 'x');
  const hosts = createHostActivities({ hostId: 'h3', workspaceRoots: [root] });
  const source = { git: 'file:///nonexistent/repo' };
  await assert.rejects(
    hosts.prepareWorkspace({ workspace: path.join(elsewhere, 'ws'), source }),
    unpreparable(/^host h3: .*ws is outside this host's workspace roots/),
  );
  await assert.rejects(
    hosts.prepareWorkspace({ workspace: path.join(root, 'file'), source }),
    unpreparable(/is a file, not a directory/),
  );
  mkdirSync(path.join(elsewhere, 'present'));
  await assert.rejects(
    hosts.prepareWorkspace({ workspace: path.join(elsewhere, 'present'), source }),
    unpreparable(/outside this host's workspace roots/),
    'a host never serves a workspace outside its roots, even one that is there',
  );
});
