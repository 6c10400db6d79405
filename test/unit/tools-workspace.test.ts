import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { nearestExistingDirectory, resolveWorkspacePath } from '../../src/activities/tools/workspace';
import { makeWorkspace, writeFiles } from './tools-test-helpers';

function resolve(workspace: string, requested: string) {
  return resolveWorkspacePath({ workspace, path: requested, toolName: 'read_file' });
}

test('relative paths inside the workspace resolve, including ones that do not exist yet', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/app.ts': 'x' });
  const existing = await resolve(workspace, 'src/../src/app.ts');
  assert.ok(existing.ok);
  assert.deepEqual(existing.path, { absolute: path.join(workspace, 'src/app.ts'), relative: 'src/app.ts' });
  const missing = await resolve(workspace, 'new/dir/file.txt');
  assert.ok(missing.ok);
  assert.equal(missing.path.absolute, path.join(workspace, 'new/dir/file.txt'));
  const root = await resolve(workspace, '.');
  assert.ok(root.ok);
  assert.equal(root.path.relative, '.');
});

test('a .. escape is refused with a list_dir candidate', async () => {
  const workspace = makeWorkspace();
  const result = await resolve(workspace, '../outside.txt');
  assert.ok(!result.ok);
  assert.equal(result.outcome.ok, false);
  assert.match(result.outcome.content, /outside the workspace/);
  assert.ok(result.outcome.candidates.length >= 2);
  assert.match(result.outcome.candidates[0] ?? '', /list_dir \{"path":"\."\}/);
});

test('an absolute path outside the workspace is refused', async () => {
  const workspace = makeWorkspace();
  const result = await resolve(workspace, '/etc/passwd');
  assert.ok(!result.ok);
  assert.match(result.outcome.content, /outside the workspace/);
  assert.match(result.outcome.candidates.join('\n'), /list_dir/);
});

test('an absolute path inside the workspace is refused with its relative form suggested', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/app.ts': 'x' });
  const result = await resolve(workspace, path.join(workspace, 'src/app.ts'));
  assert.ok(!result.ok);
  assert.match(result.outcome.content, /"src\/app\.ts" relative to the workspace root/);
  assert.match(result.outcome.candidates[0] ?? '', /read_file again with path "src\/app\.ts"/);
});

test('a symlinked file pointing outside is refused', async () => {
  const outside = makeWorkspace('keel-outside-');
  writeFiles(outside, { 'secret.txt': 'secret' });
  const workspace = makeWorkspace();
  symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link.txt'));
  const result = await resolve(workspace, 'link.txt');
  assert.ok(!result.ok);
  assert.match(result.outcome.content, /symbolic link \("link\.txt"\) that points outside/);
  assert.ok(result.outcome.candidates.length >= 2);
});

test('a path through a symlinked directory pointing outside is refused, even for a new file', async () => {
  const outside = makeWorkspace('keel-outside-');
  const workspace = makeWorkspace();
  symlinkSync(outside, path.join(workspace, 'linked-dir'));
  for (const requested of ['linked-dir', 'linked-dir/new-file.txt', 'linked-dir/a/b/c.txt']) {
    const result = await resolve(workspace, requested);
    assert.ok(!result.ok, requested);
    assert.match(result.outcome.content, /points outside the workspace/, requested);
  }
});

test('a symlink that stays inside the workspace is fine', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'real/file.txt': 'x' });
  symlinkSync(path.join(workspace, 'real'), path.join(workspace, 'alias'));
  const result = await resolve(workspace, 'alias/file.txt');
  assert.ok(result.ok);
  assert.equal(result.path.absolute, path.join(workspace, 'real/file.txt'));
  assert.equal(result.path.relative, 'alias/file.txt');
});

test('a dangling symlink is refused rather than written through', async () => {
  const workspace = makeWorkspace();
  symlinkSync('/nonexistent/keel-target', path.join(workspace, 'dangling'));
  const result = await resolve(workspace, 'dangling');
  assert.ok(!result.ok);
  assert.match(result.outcome.content, /target does not exist/);
});

test('nearestExistingDirectory walks up to a directory that exists', async () => {
  const workspace = makeWorkspace();
  mkdirSync(path.join(workspace, 'src/lib'), { recursive: true });
  assert.equal(await nearestExistingDirectory({ workspace, relative: 'src/lib/missing/x.ts' }), 'src/lib');
  assert.equal(await nearestExistingDirectory({ workspace, relative: 'nothing/here.ts' }), '.');
});
