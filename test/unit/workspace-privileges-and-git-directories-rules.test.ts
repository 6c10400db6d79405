import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  changesNeedingApproval,
  gitDirectoryReason,
  gitFindsRepository,
  gitSurroundingsReason,
  looksLikeGitDirectory,
  PRIVILEGE_BITS,
  privilegesToApply,
  protectedPathReason,
  type DirectoryHolding,
  type WorkspaceChange,
} from '../../src/workflows/tools/workspace-change-policy';

/**
 * Issue 43, items 1 and 5: a layer never grants privileges, and a repository git would find
 * without any `.git` in its path is guarded like `.git`.
 */

const WORKER = { uid: 1000, gid: 1000 };
const ROOT = { uid: 0, gid: 0 };

test('setuid, setgid and sticky bits a command sets on a new entry are removed, each reported', () => {
  const applied = privilegesToApply({ path: 'helper', layer: { mode: 0o107755, ...ROOT }, worker: WORKER });
  assert.equal(applied.mode, 0o755);
  assert.deepEqual(applied.notes.slice(0, 3), [
    'setuid bit removed from helper',
    'setgid bit removed from helper',
    'sticky bit removed from helper',
  ]);
  for (const [bit, name] of [
    [0o4000, 'setuid'],
    [0o2000, 'setgid'],
    [0o1000, 'sticky'],
  ] as const) {
    const one = privilegesToApply({ path: 'x', layer: { mode: 0o644 | bit, ...WORKER }, worker: WORKER });
    assert.equal(one.mode, 0o644, name);
    assert.deepEqual(one.notes, [`${name} bit removed from x`]);
  }
  assert.equal(PRIVILEGE_BITS, 0o7000);
});

test('ordinary permission bits stay exactly as the command left them, with nothing reported', () => {
  for (const mode of [0o600, 0o644, 0o755, 0o777, 0o000, 0o111]) {
    const applied = privilegesToApply({
      path: 'f',
      layer: { mode: 0o100000 | mode, ...WORKER },
      worker: WORKER,
    });
    assert.equal(applied.mode, mode);
    assert.deepEqual(applied.notes, []);
  }
});

test('a pre-existing setuid file keeps its bits while its content is the same, loses them with new content', () => {
  const before = { mode: 0o104755, uid: 0, gid: 0 };
  const touched = privilegesToApply({
    path: 'bin/tool',
    layer: { mode: 0o104755, uid: 0, gid: 0 },
    before: { ...before, sameContent: true },
    worker: WORKER,
  });
  assert.equal(touched.mode, 0o4755);
  assert.deepEqual(touched.notes, []);
  // chmod may drop a bit the entry had, never add one it lacked.
  const dropped = privilegesToApply({
    path: 'bin/tool',
    layer: { mode: 0o100755 | 0o2000, uid: 0, gid: 0 },
    before: { ...before, sameContent: true },
    worker: WORKER,
  });
  assert.equal(dropped.mode, 0o755);
  assert.deepEqual(dropped.notes, ['setgid bit removed from bin/tool']);
  const rewritten = privilegesToApply({
    path: 'bin/tool',
    layer: { mode: 0o104755, uid: 0, gid: 0 },
    before: { ...before, sameContent: false },
    worker: WORKER,
  });
  assert.equal(rewritten.mode, 0o755);
  assert.deepEqual(rewritten.notes, ['setuid bit removed from bin/tool']);
});

test('the owner is the one the entry had before, or the worker for what is new; a chown is reported', () => {
  const fresh = privilegesToApply({
    path: 'a',
    layer: { mode: 0o644, uid: 65534, gid: 65534 },
    worker: WORKER,
  });
  assert.deepEqual([fresh.uid, fresh.gid], [1000, 1000]);
  assert.deepEqual(fresh.notes, ['a kept owned by 1000:1000, not 65534:65534 as the command left it']);
  const groupOnly = privilegesToApply({
    path: 'a',
    layer: { mode: 0o644, uid: 1000, gid: 0 },
    worker: WORKER,
  });
  assert.equal(groupOnly.notes.length, 1);
  const kept = privilegesToApply({
    path: 'a',
    layer: { mode: 0o644, uid: 0, gid: 0 },
    before: { mode: 0o644, uid: 501, gid: 20, sameContent: true },
    worker: WORKER,
  });
  assert.deepEqual([kept.uid, kept.gid], [501, 20]);
  const same = privilegesToApply({ path: 'a', layer: { mode: 0o644, ...WORKER }, worker: WORKER });
  assert.deepEqual(same.notes, []);
});

test('what git takes for a git directory: HEAD with objects, refs or commondir; config with objects and refs', () => {
  for (const names of [
    ['HEAD', 'objects', 'refs'],
    ['HEAD', 'objects'],
    ['HEAD', 'refs'],
    ['HEAD', 'commondir'],
    ['config', 'objects', 'refs'],
  ])
    assert.equal(looksLikeGitDirectory(names), true, names.join(' '));
  for (const names of [
    [],
    ['HEAD'],
    ['objects', 'refs'],
    ['config'],
    ['config', 'objects'],
    ['config', 'refs'],
    ['config', 'commondir'],
    ['head', 'objects', 'refs'],
  ])
    assert.equal(looksLikeGitDirectory(names), false, names.join(' '));
});

function holdings(entries: Record<string, DirectoryHolding>): Map<string, DirectoryHolding> {
  return new Map(Object.entries(entries));
}
const created = (path: string, type: WorkspaceChange['type'] = 'file'): WorkspaceChange => ({
  path,
  change: 'created',
  type,
});
const BARE = ['HEAD', 'config', 'objects', 'refs'];

test('a bare repository made at the root or in a subfolder in one call is refused, naming the directory', () => {
  const atRoot = changesNeedingApproval(
    [created('HEAD'), created('config'), created('objects', 'directory'), created('refs', 'directory')],
    { holdings: holdings({ '': { before: [], after: BARE } }) },
  );
  assert.equal(atRoot.length, 4);
  assert.match(
    atRoot[0]?.reason ?? '',
    /^HEAD makes the workspace root a directory git takes for a repository/,
  );
  const inSub = changesNeedingApproval(
    [
      created('sub', 'directory'),
      created('sub/HEAD'),
      created('sub/objects', 'directory'),
      created('sub/refs', 'directory'),
    ],
    {
      holdings: holdings({
        '': { before: [], after: [] },
        sub: { before: [], after: ['HEAD', 'objects', 'refs'] },
      }),
    },
  );
  assert.deepEqual(
    inSub.map((refusal) => refusal.path),
    ['sub/HEAD', 'sub/objects', 'sub/refs'],
  );
  assert.match(inSub[0]?.reason ?? '', /^sub\/HEAD makes sub a directory git takes/);
});

test('HEAD added beside an objects/ and refs/ that were already there makes a repository too', () => {
  const refusals = changesNeedingApproval([created('a/b/HEAD')], {
    holdings: holdings({ 'a/b': { before: ['objects', 'refs'], after: ['HEAD', 'objects', 'refs'] } }),
  });
  assert.equal(refusals.length, 1);
  assert.match(refusals[0]?.reason ?? '', /makes a\/b a directory git takes for a repository/);
  // So does a config added beside them: git reads it as the common directory of a worktree.
  const common = changesNeedingApproval([created('a/b/config')], {
    holdings: holdings({ 'a/b': { before: ['objects', 'refs'], after: ['config', 'objects', 'refs'] } }),
  });
  assert.equal(common.length, 1);
  // And HEAD added to such a common directory: git now finds it on its own.
  const found = changesNeedingApproval([created('a/b/HEAD')], {
    holdings: holdings({ 'a/b': { before: ['config', 'objects', 'refs'], after: BARE } }),
  });
  assert.match(found[0]?.reason ?? '', /makes a\/b a directory git takes for a repository/);
  assert.equal(gitFindsRepository(['config', 'objects', 'refs']), false);
  assert.equal(gitFindsRepository(['HEAD', 'refs']), true);
  assert.equal(gitFindsRepository(['HEAD', 'config']), false);
});

test("inside a repository that was already there, only git's bookkeeping may change", () => {
  const existing = holdings({ repo: { before: BARE, after: BARE } });
  assert.equal(gitDirectoryReason('repo/objects/ab/cd', existing), undefined);
  assert.equal(gitDirectoryReason('repo/refs/heads/main', existing), undefined);
  assert.equal(gitDirectoryReason('repo/HEAD', existing), undefined);
  for (const path of ['repo/config', 'repo/hooks/post-checkout', 'repo/info/attributes', 'repo/commondir'])
    assert.match(
      gitDirectoryReason(path, existing) ?? '',
      /^repo\/\S+ is part of the configuration, hooks or plans of repo, which git takes for a repository/,
      path,
    );
  // Nearest first, any depth: hooks/x is judged by repo, two levels up.
  assert.notEqual(gitDirectoryReason('repo/hooks/deep/x', existing), undefined);
  // A directory that does not look like a repository after the call protects nothing.
  assert.equal(
    gitDirectoryReason('plain/config', holdings({ plain: { before: [], after: ['config'] } })),
    undefined,
  );
  assert.equal(gitDirectoryReason('x/config', new Map()), undefined);
});

test('the workspace root as an existing bare repository is guarded like .git', () => {
  const root = holdings({ '': { before: BARE, after: BARE } });
  assert.match(gitDirectoryReason('config', root) ?? '', /of the workspace root, which git takes/);
  assert.equal(gitDirectoryReason('objects/pack/p.pack', root), undefined);
  assert.equal(
    changesNeedingApproval([created('src/app.ts')], {
      holdings: holdings({ src: { before: [], after: [] } }),
    }).length,
    0,
  );
});

test('.gitmodules is guarded wherever it is; a name merely containing it is not', () => {
  assert.match(protectedPathReason('.gitmodules') ?? '', /^\.gitmodules names the submodules git clones/);
  assert.match(protectedPathReason('vendor/lib/.gitmodules') ?? '', /^vendor\/lib\/\.gitmodules names/);
  assert.equal(protectedPathReason('.gitmodules.bak'), undefined);
  assert.equal(protectedPathReason('docs/gitmodules'), undefined);
});

test('a workspace file a repository config includes is written only with a human, like .git/config', () => {
  const includedConfigs = new Set(['config/shared.cfg']);
  const refusals = changesNeedingApproval(
    [
      { path: 'config/shared.cfg', change: 'modified', type: 'file' },
      { path: 'config/other.cfg', change: 'created', type: 'file' },
    ],
    { includedConfigs },
  );
  assert.deepEqual(
    refusals.map((refusal) => refusal.reason),
    [
      "config/shared.cfg is included by a repository's config (include.path), so git reads it as its own configuration and runs programs it names",
    ],
  );
  assert.equal(gitSurroundingsReason('config/shared.cfg', {}), undefined);
});

test('the reasons the model and the approval request read, word for word', () => {
  const made = holdings({ sub: { before: [], after: ['HEAD', 'refs'] } });
  assert.equal(
    gitDirectoryReason('sub/HEAD', made),
    'sub/HEAD makes sub a directory git takes for a repository (HEAD beside objects/, refs/ or commondir, or config beside objects/ and refs/), and git runs programs its config names',
  );
  const existing = holdings({ sub: { before: ['HEAD', 'refs'], after: ['HEAD', 'refs'] } });
  assert.equal(
    gitDirectoryReason('sub/hooks/pre-commit', existing),
    'sub/hooks/pre-commit is part of the configuration, hooks or plans of sub, which git takes for a repository, and git runs programs they name',
  );
  assert.equal(
    protectedPathReason('.gitmodules'),
    '.gitmodules names the submodules git clones and checks out, with the URLs and paths it uses',
  );
  // A repository that stays one, HEAD and refs kept: bookkeeping inside needs nobody.
  assert.equal(gitDirectoryReason('sub/refs/heads/x', existing), undefined);
  // Losing HEAD does not make the directory new: a common directory it still is.
  const common = holdings({ c: { before: BARE, after: ['config', 'objects', 'refs'] } });
  assert.match(
    gitDirectoryReason('c/config', common) ?? '',
    /is part of the configuration, hooks or plans of c/,
  );
});
