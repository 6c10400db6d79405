import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  changesNeedingApproval,
  describeRefusals,
  protectedPathReason,
  refusalsInOneLine,
  type ChangeRefusal,
} from '../../src/workflows/tools/workspace-change-policy';

/**
 * The tiers' rule for what an unapproved call may keep, at its edges (issue 27: mutation
 * testing): workspace-change-policy.test.ts shows the kinds of change; these pin every name on
 * git's bookkeeping list, where in a path the list applies, each special type and the exact lines
 * the model and the approval request read.
 */

const CONFIGURATION = /is part of git's configuration, hooks or plans .* and git runs programs they name$/;

test("each of git's twelve bookkeeping files and three bookkeeping directories may change without a human", () => {
  for (const name of [
    'index',
    'HEAD',
    'ORIG_HEAD',
    'FETCH_HEAD',
    'COMMIT_EDITMSG',
    'packed-refs',
    'AUTO_MERGE',
    'MERGE_HEAD',
    'MERGE_MSG',
    'MERGE_MODE',
    'CHERRY_PICK_HEAD',
    'REVERT_HEAD',
  ])
    assert.equal(protectedPathReason(`.git/${name}`), undefined, name);
  for (const directory of ['objects', 'refs', 'logs']) {
    assert.equal(protectedPathReason(`.git/${directory}`, 'directory'), undefined, directory);
    assert.equal(protectedPathReason(`.git/${directory}/a/b`), undefined, directory);
  }
});

test('a bookkeeping file name only counts directly under .git: beneath it, or beneath another folder, it is configuration', () => {
  // Something beneath a name that git keeps as a file is not git's bookkeeping.
  assert.match(protectedPathReason('.git/index/hooks') ?? '', CONFIGURATION);
  assert.match(protectedPathReason('.git/HEAD/x') ?? '', CONFIGURATION);
  assert.match(protectedPathReason('.git/hooks/HEAD') ?? '', CONFIGURATION);
  assert.match(protectedPathReason('.git/info/index') ?? '', CONFIGURATION);
  // A lock is git's own only directly under .git, whatever it locks.
  assert.equal(protectedPathReason('.git/config.lock'), undefined);
  assert.match(protectedPathReason('.git/hooks/pre-commit.lock') ?? '', CONFIGURATION);
  // The name is compared whole: neither a longer nor a lowercased one is on the list.
  assert.match(protectedPathReason('.git/HEADS') ?? '', CONFIGURATION);
  assert.match(protectedPathReason('.git/head') ?? '', CONFIGURATION);
  assert.match(protectedPathReason('.git/locks') ?? '', CONFIGURATION);
});

test('a .git segment at any depth is checked, and the reason names the whole path', () => {
  assert.equal(
    protectedPathReason('a/b/.git/hooks/post-merge'),
    "a/b/.git/hooks/post-merge is part of git's configuration, hooks or plans (only objects, refs, logs, index and HEAD-like files are ordinary bookkeeping), and git runs programs they name",
  );
  assert.equal(protectedPathReason('a/b/.git/refs/heads/main'), undefined);
  assert.equal(protectedPathReason('.github/hooks/pre-commit'), undefined);
});

test('.git itself is kept only as a directory: a file, a link or an unstated type points git elsewhere', () => {
  const elsewhere =
    "sub/.git would no longer be git's own directory: a .git file or link makes git read a configuration from elsewhere";
  assert.equal(protectedPathReason('sub/.git'), elsewhere); // the type defaults to a file
  assert.equal(protectedPathReason('sub/.git', 'symlink'), elsewhere);
  assert.equal(protectedPathReason('sub/.git', 'directory'), undefined);
});

test('fifos, sockets, devices and other special entries need a human; files, directories and links do not', () => {
  for (const type of ['fifo', 'socket', 'device', 'other'] as const)
    assert.deepEqual(changesNeedingApproval([{ path: 'x', change: 'created', type }]), [
      { path: 'x', reason: `leaves a ${type} at x; only files, directories and links are kept` },
    ]);
  for (const type of ['file', 'directory', 'symlink'] as const)
    assert.deepEqual(changesNeedingApproval([{ path: 'x', change: 'modified', type }]), []);
  // A deletion is refused as a deletion, whatever was deleted.
  assert.deepEqual(changesNeedingApproval([{ path: 'p', change: 'deleted', type: 'fifo' }]), [
    { path: 'p', reason: 'deletes p, which existed before the call' },
  ]);
  // A created .git directory is git's own; a created .git file is not.
  assert.deepEqual(changesNeedingApproval([{ path: '.git', change: 'created', type: 'directory' }]), []);
  assert.equal(changesNeedingApproval([{ path: '.git', change: 'created', type: 'file' }]).length, 1);
});

const refusals = (count: number): ChangeRefusal[] =>
  Array.from({ length: count }, (_, index) => ({ path: `f${index}`, reason: `reason ${index}` }));

test('the model reads the first 5 refusals one a line, then how many more', () => {
  assert.equal(describeRefusals([]), '');
  assert.equal(describeRefusals(refusals(5)), '- reason 0\n- reason 1\n- reason 2\n- reason 3\n- reason 4');
  assert.equal(
    describeRefusals(refusals(7)),
    '- reason 0\n- reason 1\n- reason 2\n- reason 3\n- reason 4\n- … and 2 more',
  );
  assert.equal(describeRefusals(refusals(3), 2), '- reason 0\n- reason 1\n- … and 1 more');
});

test('the approval request reads the first 3 refusals on one line, then how many more', () => {
  assert.equal(refusalsInOneLine([]), '');
  assert.equal(refusalsInOneLine(refusals(3)), 'reason 0; reason 1; reason 2');
  assert.equal(refusalsInOneLine(refusals(4)), 'reason 0; reason 1; reason 2; and 1 more');
  assert.equal(refusalsInOneLine(refusals(6), 1), 'reason 0; and 5 more');
});
