import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readWorkspaceFile } from '../../src/activities/tools/workspace-access/read-workspace-file';
import { tempDirectory } from '../support/temp-directory';

function workspaceWithSecretBeside(): { workspace: string; secret: string } {
  const root = tempDirectory();
  const workspace = path.join(root, 'ws');
  mkdirSync(path.join(workspace, 'docs'), { recursive: true });
  writeFileSync(path.join(workspace, 'docs', 'notes.md'), 'three little words');
  const secret = path.join(root, 'secret.txt');
  writeFileSync(secret, 'not for the model');
  return { workspace, secret };
}

const options = { toolName: 'count_words' };

test('a file inside the workspace is read', async () => {
  const { workspace } = workspaceWithSecretBeside();
  const read = await readWorkspaceFile({ workspace }, 'docs/./notes.md', options);
  assert.ok(read.ok);
  assert.equal(read.path, 'docs/notes.md');
  assert.equal(read.content.toString('utf8'), 'three little words');
});

test('paths that leave the workspace are refused with an outcome the model can act on', async () => {
  const { workspace, secret } = workspaceWithSecretBeside();
  for (const requested of ['../secret.txt', 'docs/../../secret.txt', secret]) {
    const read = await readWorkspaceFile({ workspace }, requested, options);
    assert.equal(read.ok, false, requested);
    if (read.ok) continue;
    assert.equal(read.outcome.ok, false);
    assert.match(read.outcome.content, /outside the workspace|leads outside/);
    assert.ok(read.outcome.candidates.length > 0);
  }
});

test('a symbolic link is not followed, wherever it is on the way', async () => {
  const { workspace, secret } = workspaceWithSecretBeside();
  symlinkSync(secret, path.join(workspace, 'link.txt'));
  symlinkSync(path.dirname(secret), path.join(workspace, 'up'));
  for (const requested of ['link.txt', 'up/secret.txt']) {
    const read = await readWorkspaceFile({ workspace }, requested, options);
    assert.equal(read.ok, false, requested);
    if (!read.ok) assert.match(read.outcome.content, /symbolic link/i);
  }
});

test('a FIFO is refused without blocking, a missing file is named, a large one is refused', async () => {
  const { workspace } = workspaceWithSecretBeside();
  execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
  const fifo = await readWorkspaceFile({ workspace }, 'pipe', options);
  assert.equal(fifo.ok, false);
  const missing = await readWorkspaceFile({ workspace }, 'docs/nope.md', options);
  assert.equal(missing.ok, false);
  if (!missing.ok) assert.match(missing.outcome.content, /nope\.md/);
  const large = await readWorkspaceFile({ workspace }, 'docs/notes.md', { ...options, maxBytes: 5 });
  assert.equal(large.ok, false);
  if (!large.ok) assert.match(large.outcome.content, /18 bytes, more than count_words reads \(5\)/);
});
