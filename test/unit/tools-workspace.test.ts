import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  nearestExistingDirectory,
  resolveWorkspacePath,
  statWorkspacePath,
} from '../../src/activities/tools/workspace';
import { makeWorkspace, writeFiles } from './tools-test-helpers';

function resolve(workspace: string, requested: string) {
  return resolveWorkspacePath({ workspace, path: requested, toolName: 'read_file' });
}

test('relative paths inside the workspace resolve, including ones that do not exist yet', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/app.ts': 'x' });
  const existing = await resolve(workspace, 'src/../src/app.ts');
  assert.ok(existing.ok);
  assert.deepEqual(existing.path, { relative: 'src/app.ts', segments: ['src', 'app.ts'] });
  const missing = await resolve(workspace, 'new/dir/file.txt');
  assert.ok(missing.ok);
  assert.deepEqual(missing.path.segments, ['new', 'dir', 'file.txt']);
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

test('".." itself and "src/../.." (the workspace\'s parent, not below it) are refused as leading outside', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/app.ts': 'x' });
  for (const requested of ['..', 'src/../..', './..']) {
    const result = await resolve(workspace, requested);
    assert.ok(!result.ok, requested);
    assert.match(result.outcome.content, /leads outside the workspace \(through "\.\."\)/, requested);
  }
});

test('the workspace\'s parent as an absolute path is refused as outside, never offered as the path ".."', async () => {
  const workspace = makeWorkspace();
  const result = await resolve(workspace, path.dirname(workspace));
  assert.ok(!result.ok);
  assert.match(result.outcome.content, /is outside the workspace; read_file only works inside it/);
  assert.doesNotMatch(result.outcome.candidates.join('\n'), /again with path/);
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

function stat(workspace: string, requested: string) {
  return statWorkspacePath({ workspace, path: requested, toolName: 'read_file' });
}

test('a symlinked file pointing outside is refused, saying where it leads', async () => {
  const outside = makeWorkspace('keel-outside-');
  writeFiles(outside, { 'secret.txt': 'secret' });
  const workspace = makeWorkspace();
  symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link.txt'));
  const result = await stat(workspace, 'link.txt');
  assert.ok(!result.ok);
  assert.match(
    result.outcome.content,
    /"link\.txt" is a symbolic link to ".*secret\.txt".*leads outside the workspace/,
  );
  assert.ok(result.outcome.candidates.length >= 2);
});

test('a path through a symlinked directory is refused at the link, even for a new file', async () => {
  const outside = makeWorkspace('keel-outside-');
  const workspace = makeWorkspace();
  symlinkSync(outside, path.join(workspace, 'linked-dir'));
  for (const requested of ['linked-dir', 'linked-dir/new-file.txt', 'linked-dir/a/b/c.txt']) {
    const result = await stat(workspace, requested);
    assert.ok(!result.ok, requested);
    assert.match(result.outcome.content, /"linked-dir" is a symbolic link/, requested);
  }
});

test('a symlink that stays inside the workspace is not followed either: the model is told the real path', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'real/file.txt': 'x' });
  symlinkSync(path.join(workspace, 'real'), path.join(workspace, 'alias'));
  const result = await stat(workspace, 'alias/file.txt');
  assert.ok(!result.ok);
  assert.match(result.outcome.content, /"alias" is a symbolic link/);
  assert.match(result.outcome.candidates[0] ?? '', /path the link points to, "real"/);
  const relativeLink = makeWorkspace();
  writeFiles(relativeLink, { 'lib/real.ts': 'x' });
  mkdirSync(path.join(relativeLink, 'src'));
  symlinkSync('../lib/real.ts', path.join(relativeLink, 'src/link.ts'));
  const nested = await stat(relativeLink, 'src/link.ts');
  assert.ok(!nested.ok);
  assert.match(nested.outcome.candidates[0] ?? '', /"lib\/real\.ts"/);
});

test('a symlink to ".." (the workspace\'s parent) is refused as leading outside, with no path to use instead', async () => {
  const workspace = makeWorkspace();
  symlinkSync('..', path.join(workspace, 'up'));
  const result = await stat(workspace, 'up');
  assert.ok(!result.ok);
  assert.match(
    result.outcome.content,
    /"up" is a symbolic link to "\.\."; .*\(this one leads outside the workspace\)/,
  );
  assert.doesNotMatch(result.outcome.candidates.join('\n'), /path the link points to/);
});

test('a dangling symlink is refused rather than written through', async () => {
  const workspace = makeWorkspace();
  symlinkSync('/nonexistent/keel-target', path.join(workspace, 'dangling'));
  const result = await stat(workspace, 'dangling');
  assert.ok(!result.ok);
  assert.match(result.outcome.content, /symbolic link to "\/nonexistent\/keel-target"/);
});

test('nearestExistingDirectory walks up to a directory that exists', async () => {
  const workspace = makeWorkspace();
  mkdirSync(path.join(workspace, 'src/lib'), { recursive: true });
  assert.equal(await nearestExistingDirectory({ workspace, relative: 'src/lib/missing/x.ts' }), 'src/lib');
  assert.equal(await nearestExistingDirectory({ workspace, relative: 'nothing/here.ts' }), '.');
});
