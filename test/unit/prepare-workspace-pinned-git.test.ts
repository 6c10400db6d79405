import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHostActivities } from '../../src/activities/hosts';
import { PINNED_GIT_CONFIG } from '../../src/activities/hosts/prepare-workspace';
import { tempDirectory } from '../support/temp-directory';

/** Issue 43: keel's own git runs no hook, no fsmonitor and takes no directory for a bare repository. */

test('a clone runs no hook, even one a template directory supplies, and writes none of the pins into the clone', async () => {
  const repo = tempDirectory('keel-repo-');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=keel', '-c', 'user.email=keel@example.com', ...args], {
      cwd: repo,
      stdio: 'pipe',
    });
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'README.md'), 'hello\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first');

  const templates = tempDirectory('keel-templates-');
  const marker = path.join(tempDirectory('keel-marker-'), 'ran');
  mkdirSync(path.join(templates, 'hooks'));
  writeFileSync(path.join(templates, 'hooks', 'post-checkout'), `#!/bin/sh\necho ran > ${marker}\n`);
  chmodSync(path.join(templates, 'hooks', 'post-checkout'), 0o755);
  const previous = process.env.GIT_TEMPLATE_DIR;
  process.env.GIT_TEMPLATE_DIR = templates;
  try {
    const root = tempDirectory('keel-root-');
    const hosts = createHostActivities({ hostId: 'h1', workspaceRoots: [root] });
    const workspace = path.join(root, 'app');
    await hosts.prepareWorkspace({ workspace, source: { git: `file://${repo}` } });
    assert.equal(readFileSync(path.join(workspace, 'README.md'), 'utf8'), 'hello\n');
    assert.equal(existsSync(marker), false, 'the template post-checkout hook ran');
    assert.doesNotMatch(readFileSync(path.join(workspace, '.git', 'config'), 'utf8'), /hooksPath|fsmonitor/);
  } finally {
    if (previous === undefined) delete process.env.GIT_TEMPLATE_DIR;
    else process.env.GIT_TEMPLATE_DIR = previous;
  }
});

test('the pins are exactly these, each a -c before the subcommand', () => {
  assert.deepEqual(PINNED_GIT_CONFIG, [
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'core.fsmonitor=false',
    '-c',
    'safe.bareRepository=explicit',
    '-c',
    'protocol.ext.allow=never',
  ]);
});
