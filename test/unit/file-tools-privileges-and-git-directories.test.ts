import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { editFile } from '../../src/activities/tools/builtin/edit-file';
import { writeFile } from '../../src/activities/tools/builtin/write-file';
import {
  gitIncludedConfigs,
  includePaths,
} from '../../src/activities/tools/workspace-access/git-included-configs';
import { makeWorkspace, toolContext, writeFiles } from './tools-test-helpers';

/** Issue 43 for write_file and edit_file: new content never keeps setuid bits, and no repository is made. */

const unapproved = (workspace: string) =>
  toolContext(workspace, { approved: false, reversibility: 'mutating' });
const modeOf = (file: string): number => lstatSync(file).mode & 0o7777;

test('write_file and edit_file remove setuid, setgid and sticky bits from what they rewrite, and say so', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'helper.sh': 'echo one\n', 'tool.sh': 'echo two\n' });
  chmodSync(path.join(workspace, 'helper.sh'), 0o4755);
  chmodSync(path.join(workspace, 'tool.sh'), 0o2755);

  const written = await writeFile({ path: 'helper.sh', content: 'id\n' }, unapproved(workspace));
  assert.equal(written.ok, true);
  assert.match(written.content, /setuid bit removed from helper\.sh: new content never keeps them\.$/);
  assert.equal(modeOf(path.join(workspace, 'helper.sh')), 0o755);

  const edited = await editFile(
    { path: 'tool.sh', oldString: 'two', newString: 'three' },
    unapproved(workspace),
  );
  assert.equal(edited.ok, true);
  assert.match(edited.content, /setgid bit removed from tool\.sh/);
  assert.equal(modeOf(path.join(workspace, 'tool.sh')), 0o755);
});

test('a setuid file written with the content it already has is left as it was', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'bin/tool': 'same\n' });
  chmodSync(path.join(workspace, 'bin/tool'), 0o4755);
  const outcome = await writeFile({ path: 'bin/tool', content: 'same\n' }, unapproved(workspace));
  assert.match(outcome.content, /nothing changed/);
  assert.equal(modeOf(path.join(workspace, 'bin/tool')), 0o4755);
  // A new file is made with ordinary bits.
  await writeFile({ path: 'new.txt', content: 'x' }, unapproved(workspace));
  assert.equal(modeOf(path.join(workspace, 'new.txt')) & 0o7000, 0);
});

test('write_file may not complete a repository without .git (HEAD beside objects/ and refs/), nor write its config', async () => {
  const workspace = makeWorkspace();
  mkdirSync(path.join(workspace, 'sub', 'objects'), { recursive: true });
  mkdirSync(path.join(workspace, 'sub', 'refs'));
  const head = await writeFile(
    { path: 'sub/HEAD', content: 'ref: refs/heads/main\n' },
    unapproved(workspace),
  );
  assert.equal(head.ok, false);
  assert.match(head.content, /^Not written: sub\/HEAD makes sub a directory git takes for a repository/);
  assert.equal(existsSync(path.join(workspace, 'sub', 'HEAD')), false, 'nothing is created while held');
  const config = await writeFile(
    { path: 'sub/config', content: '[core]\n\tfsmonitor = x\n' },
    unapproved(workspace),
  );
  assert.equal(config.ok, false);
  // An approved call may; and an ordinary file beside them needs nothing.
  const approved = await writeFile(
    { path: 'sub/HEAD', content: 'ref: refs/heads/main\n' },
    toolContext(workspace),
  );
  assert.equal(approved.ok, true);
  writeFiles(workspace, { 'other/refs/x': '' });
  const ordinary = await writeFile({ path: 'other/HEAD', content: 'x' }, unapproved(workspace));
  assert.equal(ordinary.ok, false, 'other/ holds refs/: HEAD beside it is a repository');
  const plain = await writeFile({ path: 'docs/HEAD.md', content: 'x' }, unapproved(workspace));
  assert.equal(plain.ok, true);
});

test('edit_file of a config inside an existing bare repository is held; .gitmodules is guarded', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, {
    'mirror/HEAD': 'ref: refs/heads/main\n',
    'mirror/config': '[core]\n\tbare = true\n',
    'mirror/objects/.keep': '',
    'mirror/refs/.keep': '',
    '.gitmodules': '[submodule "a"]\n\tpath = a\n',
  });
  const edited = await editFile(
    { path: 'mirror/config', oldString: 'bare = true', newString: 'bare = true\n\tfsmonitor = x' },
    unapproved(workspace),
  );
  assert.equal(edited.ok, false);
  assert.match(edited.content, /mirror\/config is part of the configuration, hooks or plans of mirror/);
  const modules = await editFile(
    { path: '.gitmodules', oldString: 'path = a', newString: 'path = b' },
    unapproved(workspace),
  );
  assert.equal(modules.ok, false);
});

test('a workspace file .git/config includes (include.path, includeIf, nested) is written only with a human', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, {
    '.git/config':
      '[core]\n\tbare = false\n[include]\n\tpath = ../config/shared.cfg\n[includeIf "gitdir:/x/"]\n\tpath = "' +
      path.join(workspace, 'local.cfg') +
      '" ; mine\n[include] path = ~/outside.cfg\n',
    'config/shared.cfg': '[include]\n\tpath = nested.cfg\n',
  });
  assert.deepEqual([...(await gitIncludedConfigs(workspace))].sort(), [
    'config/nested.cfg',
    'config/shared.cfg',
    'local.cfg',
  ]);
  for (const target of ['config/shared.cfg', 'config/nested.cfg', 'local.cfg']) {
    const outcome = await writeFile(
      { path: target, content: '[core]\n\tfsmonitor = x\n' },
      unapproved(workspace),
    );
    assert.equal(outcome.ok, false, target);
    assert.match(outcome.content, /is included by a repository's config \(include\.path\)/);
  }
  const other = await writeFile({ path: 'config/other.cfg', content: 'x' }, unapproved(workspace));
  assert.equal(other.ok, true);
});

test("includePaths reads git's syntax: sections case-insensitive, quotes, comments, one-line sections", () => {
  assert.deepEqual(
    includePaths(
      '[Include]\n  PATH = a.cfg\n[includeIf "onbranch:main"]\npath="b c.cfg"\n[core]\npath = not-an-include\n[include] path = d.cfg # note\n',
    ),
    ['a.cfg', 'b c.cfg', 'd.cfg'],
  );
});
