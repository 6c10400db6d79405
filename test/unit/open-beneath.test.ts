import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { EDIT_FILE_MAX_BYTES, editFile } from '../../src/activities/tools/builtin/edit-file';
import { listDir } from '../../src/activities/tools/builtin/list-dir';
import { readFile } from '../../src/activities/tools/builtin/read-file';
import { search } from '../../src/activities/tools/builtin/search';
import { writeFile } from '../../src/activities/tools/builtin/write-file';
import { walkFiles } from '../../src/activities/tools/walk-files';
import { readRegularFile } from '../../src/activities/tools/workspace-access/open-beneath';
import { makeWorkspace, toolContext, writeFiles } from './tools-test-helpers';

const SECRET = 'keel-host-secret-7f3a';

function workspaceAndOutside() {
  const workspace = makeWorkspace();
  const outside = makeWorkspace('keel-outside-');
  writeFiles(outside, { 'secret.txt': `${SECRET}\n` });
  return { workspace, outside };
}

test('read_file and write_file refuse a FIFO without blocking on it or writing to it', async () => {
  const { workspace } = workspaceAndOutside();
  execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
  const context = toolContext(workspace, { reversibility: 'mutating', approved: false });
  const read = await readFile({ path: 'pipe' }, context);
  assert.match(read.content, /"pipe" is (a named pipe|not a regular file)/);
  const written = await writeFile({ path: 'pipe', content: 'x' }, context);
  assert.equal(written.ok, false);
  assert.match(written.content, /"pipe" is a named pipe \(FIFO\), not a regular file/);
  const edited = await editFile({ path: 'pipe', oldString: 'a', newString: 'b' }, context);
  assert.equal(edited.ok, false);
});

test('file tools follow no symbolic link at any component, inside or out', async () => {
  const { workspace, outside } = workspaceAndOutside();
  symlinkSync(outside, path.join(workspace, 'out'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'secret-link'));
  const context = toolContext(workspace, { reversibility: 'mutating', approved: false });
  for (const outcome of [
    await readFile({ path: 'out/secret.txt' }, context),
    await readFile({ path: 'secret-link' }, context),
    await listDir({ path: 'out' }, context),
    await search({ pattern: 'keel', path: 'out' }, context),
    await search({ pattern: 'keel', path: 'secret-link' }, context),
    await writeFile({ path: 'out/new.txt', content: 'x' }, context),
    await writeFile({ path: 'secret-link', content: 'x' }, context),
    await editFile({ path: 'secret-link', oldString: SECRET, newString: 'gone' }, context),
  ]) {
    assert.equal(outcome.ok, false, outcome.content);
    assert.match(outcome.content, /is a symbolic link to/);
    assert.ok(!outcome.content.includes(SECRET));
  }
  const whole = await search({ pattern: 'keel-host' }, context);
  assert.ok(!whole.content.includes(SECRET), 'a search of the workspace skips links');
  assert.deepEqual(readdirSync(outside), ['secret.txt']);
  assert.equal(readFileSync(path.join(outside, 'secret.txt'), 'utf8'), `${SECRET}\n`);
});

test('a directory swapped for a link to outside while a walk is under way leads the walk nowhere', async () => {
  const { workspace, outside } = workspaceAndOutside();
  writeFiles(workspace, { 'a/1.txt': '1', 'b/keel-host-decoy.txt': 'decoy', 'c/3.txt': '3' });
  const seen: string[] = [];
  for await (const file of walkFiles({ root: workspace })) {
    seen.push(file.relative);
    if (file.relative === 'a/1.txt') {
      // Between listing the root and opening b: the race a parallel command ran against search.
      renameSync(path.join(workspace, 'b'), path.join(workspace, 'b-moved'));
      symlinkSync(outside, path.join(workspace, 'b'));
    }
    if (file.kind === 'file') assert.ok(!readFileSync(file.path, 'utf8').includes(SECRET), file.relative);
  }
  assert.deepEqual(seen, ['a/1.txt', 'c/3.txt']);
});

test("write_file and edit_file ask a human before writing git's configuration or hooks", async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { '.git/config': '[core]\n' });
  const unapproved = toolContext(workspace, { reversibility: 'mutating', approved: false });
  for (const outcome of [
    await writeFile({ path: '.git/config', content: '[core]\n\tfsmonitor = sh x\n' }, unapproved),
    await writeFile({ path: '.git/hooks/pre-commit', content: 'touch /tmp/x' }, unapproved),
    await editFile(
      { path: '.git/config', oldString: '[core]', newString: '[core]\n\tpager = x' },
      unapproved,
    ),
    await writeFile({ path: 'sub/.git', content: 'gitdir: /etc' }, unapproved),
  ]) {
    assert.equal(outcome.ok, false);
    assert.ok(outcome.escalation, outcome.content);
    assert.match(outcome.content, /^Not written: /);
  }
  assert.equal(readFileSync(path.join(workspace, '.git/config'), 'utf8'), '[core]\n');
  assert.equal(existsSync(path.join(workspace, '.git/hooks')), false);
  const approved = await writeFile(
    { path: '.git/config', content: '[user]\n\tname = a\n' },
    toolContext(workspace, { reversibility: 'mutating', approved: true }),
  );
  assert.equal(approved.ok, true, approved.content);
  const bookkeeping = await writeFile({ path: '.git/HEAD', content: 'ref: refs/heads/x\n' }, unapproved);
  assert.equal(bookkeeping.ok, true, "git's own bookkeeping needs no human");
});

test('no file tool reads more than it means to: a huge file is refused by edit_file, and a read is bounded on the descriptor', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'big.log': 'x'.repeat(EDIT_FILE_MAX_BYTES + 1), 'small.txt': 'small\n' });
  const context = toolContext(workspace, { reversibility: 'mutating', approved: false });
  const edited = await editFile({ path: 'big.log', oldString: 'x', newString: 'y' }, context);
  assert.equal(edited.ok, false);
  assert.match(edited.content, /more than edit_file reads .* nothing was changed/);
  assert.equal(statSync(path.join(workspace, 'big.log')).size, EDIT_FILE_MAX_BYTES + 1);
  const written = await writeFile({ path: 'big.log', content: 'replaced\n' }, context);
  assert.match(
    written.content,
    new RegExp(`Replaced the content of big\\.log \\(${EDIT_FILE_MAX_BYTES + 1} → 9 bytes\\)`),
  );
  await assert.rejects(readRegularFile(path.join(workspace, 'small.txt'), 3), /larger than 3 bytes/);
  assert.equal((await readRegularFile(path.join(workspace, 'small.txt'), 6)).toString(), 'small\n');
});
