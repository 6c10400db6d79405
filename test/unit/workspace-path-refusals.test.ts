import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { BeneathError } from '../../src/activities/tools/workspace-access/open-beneath';
import {
  escapes,
  nearestExistingDirectory,
  outcomeOfRefusal,
  refusalOutcome,
  resolveWorkspacePath,
  statWorkspacePath,
  toPosix,
} from '../../src/activities/tools/workspace';
import { makeWorkspace, writeFiles } from './tools-test-helpers';

// The exact outcomes a model sees when a path is refused: each rule's words and candidates, so a
// rule that changes what it refuses or what it suggests fails here (tools-workspace.test.ts has
// the escapes themselves).

const LIST_ROOT = 'list_dir {"path":"."}';
const ASK_TO_COPY = 'If you need something outside the workspace, ask the user to copy it in';

function resolve(workspace: string, requested: string) {
  return resolveWorkspacePath({ workspace, path: requested, toolName: 'read_file' });
}

function stat(workspace: string, requested: string, kind?: 'file' | 'directory') {
  return statWorkspacePath({ workspace, path: requested, toolName: 'read_file', ...(kind ? { kind } : {}) });
}

test('escapes(): "..", "../x" and absolute paths leave the root; "..x", "x/.." and "." do not', () => {
  for (const relative of ['..', '../x', '../../a/b', '/etc/passwd'])
    assert.equal(escapes(relative), true, relative);
  for (const relative of ['', '.', '..x', '...', 'x/..', 'a/../b'])
    assert.equal(escapes(relative), false, relative);
});

test('toPosix() keeps every segment of a nested path, joined by "/"', () => {
  assert.equal(toPosix('a/b/c.txt'), 'a/b/c.txt');
});

test('an empty path is the workspace root', async () => {
  const workspace = makeWorkspace();
  const result = await resolve(workspace, '');
  assert.deepEqual(result, { ok: true, path: { relative: '.', segments: [] } });
});

test('a path with a NUL character is refused with the root to list, before anything else', async () => {
  const workspace = makeWorkspace();
  for (const requested of ['a\0b', '/etc\0', '../\0']) {
    const result = await resolve(workspace, requested);
    assert.ok(!result.ok, JSON.stringify(requested));
    assert.equal(result.outcome.content, 'The path contains a NUL character.');
    assert.deepEqual(result.outcome.candidates, [LIST_ROOT]);
  }
});

test('a ".." escape is refused with exactly two candidates: list the root, or ask the user to copy it in', async () => {
  const workspace = makeWorkspace();
  const result = await resolve(workspace, 'src/../../x');
  assert.ok(!result.ok);
  assert.equal(
    result.outcome.content,
    '"src/../../x" leads outside the workspace (through ".."); read_file only works inside it.',
  );
  assert.deepEqual(result.outcome.candidates, [
    `${LIST_ROOT} — see what the workspace contains and use a path inside it`,
    ASK_TO_COPY,
  ]);
});

test('an absolute path outside is refused with exactly two candidates: list the root, or ask the user', async () => {
  const workspace = makeWorkspace();
  const result = await resolve(workspace, '/etc/passwd');
  assert.ok(!result.ok);
  assert.equal(
    result.outcome.content,
    '"/etc/passwd" is outside the workspace; read_file only works inside it.',
  );
  assert.deepEqual(result.outcome.candidates, [
    `${LIST_ROOT} — see what the workspace contains and use a relative path`,
    ASK_TO_COPY,
  ]);
});

test('an absolute path inside suggests the same call with the relative path, and listing its directory', async () => {
  const workspace = makeWorkspace();
  const result = await resolve(workspace, path.join(workspace, 'src/lib/app.ts'));
  assert.ok(!result.ok);
  assert.deepEqual(result.outcome.candidates, [
    'Call read_file again with path "src/lib/app.ts" (paths are relative to the workspace root)',
    'list_dir {"path":"src/lib"}',
  ]);
});

test('the workspace root as an absolute path is "." relative to it', async () => {
  const workspace = makeWorkspace();
  const result = await resolve(workspace, workspace);
  assert.ok(!result.ok);
  assert.equal(
    result.outcome.content,
    `Absolute paths are not accepted; "${workspace}" is "." relative to the workspace root.`,
  );
  assert.deepEqual(result.outcome.candidates, [
    'Call read_file again with path "." (paths are relative to the workspace root)',
    LIST_ROOT,
  ]);
});

test('an absolute path is inside when it is under the workspace as given or under its real path', async () => {
  const real = makeWorkspace();
  const alias = path.join(path.dirname(real), 'alias');
  symlinkSync(real, alias);
  // The workspace given through a link: a path under the link and one under the real directory.
  for (const requested of [path.join(alias, 'a.txt'), path.join(real, 'a.txt')]) {
    const result = await resolve(alias, requested);
    assert.ok(!result.ok);
    assert.match(result.outcome.content, /is "a\.txt" relative to the workspace root/, requested);
  }
});

test('a missing path names what was wanted (a file, a directory, or either) and the nearest directory to list', async () => {
  const workspace = makeWorkspace();
  mkdirSync(path.join(workspace, 'src'));
  const either = await stat(workspace, 'src/missing/x.ts');
  assert.ok(!either.ok);
  assert.equal(
    either.outcome.content,
    'No such file or directory: "src/missing/x.ts" (paths are relative to the workspace root).',
  );
  assert.equal(either.outcome.candidates[0], 'list_dir {"path":"src"} — see what exists there');
  const directory = await stat(workspace, 'src/gone', 'directory');
  assert.ok(!directory.ok);
  assert.match(directory.outcome.content, /^No such directory: "src\/gone"/);
});

test('a path through a file is refused at the file, suggesting to list its directory or read it', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/a.txt': 'x' });
  const result = await stat(workspace, 'src/a.txt/child.txt');
  assert.ok(!result.ok);
  assert.equal(
    result.outcome.content,
    '"src/a.txt" is a file, not a directory, so "src/a.txt/child.txt" cannot exist.',
  );
  assert.deepEqual(result.outcome.candidates, [
    'list_dir {"path":"src"}',
    'read_file {"path":"src/a.txt"} — read the file instead',
  ]);
});

test('a directory where a file is needed suggests listing it or calling the tool with a file inside it', async () => {
  const outcome = await refusalOutcome({
    workspace: makeWorkspace(),
    relative: 'src',
    refusal: { kind: 'not-a-file', at: 'src', type: 'directory' },
    toolName: 'edit_file',
  });
  assert.equal(outcome.content, '"src" is a directory; edit_file needs a file.');
  assert.deepEqual(outcome.candidates, [
    'list_dir {"path":"src"} — see what it contains',
    'Call edit_file with a file path inside it',
  ]);
});

test('a socket or device is refused by its type, with its directory to list and `ls -l` to see it', async () => {
  for (const type of ['socket', 'device'] as const) {
    const outcome = await refusalOutcome({
      workspace: makeWorkspace(),
      relative: 'run/x',
      refusal: { kind: 'not-a-file', at: 'run/x', type },
      toolName: 'read_file',
    });
    assert.equal(
      outcome.content,
      `"run/x" is a ${type}, not a regular file; read_file does not open it (reading or writing one can block or reach a device).`,
    );
    assert.deepEqual(outcome.candidates, [
      'list_dir {"path":"run"}',
      'run_command {"command":"ls -l run/x"} — see what it is',
    ]);
  }
});

test('a link inside the workspace names the path to use instead, then its directory to list', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'real/deep/file.txt': 'x' });
  mkdirSync(path.join(workspace, 'links'));
  // An absolute target inside: the path relative to the root, every segment kept.
  symlinkSync(path.join(workspace, 'real/deep/file.txt'), path.join(workspace, 'links/absolute'));
  const absolute = await stat(workspace, 'links/absolute');
  assert.ok(!absolute.ok);
  assert.equal(
    absolute.outcome.content,
    `"links/absolute" is a symbolic link to "${path.join(workspace, 'real/deep/file.txt')}"; read_file does not follow symbolic links.`,
  );
  assert.deepEqual(absolute.outcome.candidates, [
    'Call read_file again with the path the link points to, "real/deep/file.txt"',
    'list_dir {"path":"links"}',
  ]);
});

test('a link to the workspace root itself names "." as the path to use', async () => {
  const workspace = makeWorkspace();
  symlinkSync(workspace, path.join(workspace, 'root'));
  const result = await stat(workspace, 'root');
  assert.ok(!result.ok);
  assert.equal(result.outcome.candidates[0], 'Call read_file again with the path the link points to, "."');
});

test('a link leading outside suggests listing its directory or asking the user, never a path to use', async () => {
  const workspace = makeWorkspace();
  mkdirSync(path.join(workspace, 'src'));
  symlinkSync('../../elsewhere', path.join(workspace, 'src/out'));
  const result = await stat(workspace, 'src/out');
  assert.ok(!result.ok);
  assert.deepEqual(result.outcome.candidates, [
    'list_dir {"path":"src"}',
    'If you need what the link points to, ask the user to copy it into the workspace',
  ]);
});

test('nearestExistingDirectory skips a file on the way up: "src/a.txt/x" is listed from "src"', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/a.txt': 'x' });
  assert.equal(await nearestExistingDirectory({ workspace, relative: 'src/a.txt/x' }), 'src');
  assert.equal(await nearestExistingDirectory({ workspace, relative: '.' }), '.');
});

test('nearestExistingDirectory stops at "." even when the workspace itself is gone', async () => {
  const workspace = path.join(makeWorkspace(), 'removed');
  assert.equal(await nearestExistingDirectory({ workspace, relative: 'a/b/c.txt' }), '.');
});

test('outcomeOfRefusal turns only a BeneathError into an outcome: any other error is thrown on', async () => {
  const options = { workspace: makeWorkspace(), toolName: 'read_file' };
  const failure = new Error('EIO: i/o error');
  await assert.rejects(outcomeOfRefusal(failure, options, 'a.txt'), (error) => error === failure);
  const outcome = await outcomeOfRefusal(
    new BeneathError({ kind: 'not-a-directory', at: 'a.txt' }),
    options,
    'a.txt/b',
  );
  assert.match(outcome.content, /^"a\.txt" is a file, not a directory/);
});
