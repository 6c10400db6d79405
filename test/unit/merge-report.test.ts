import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  copyEndingDetails,
  copyEndingText,
  sharedWritesText,
} from '../../src/workflows/delegation/merge-report';

/** What the parent's model and ledger are told of a child's copy (issue 47, workspace "copy"). */

test('a merged copy says what came back, what overlapped (with the diff) and what was left', () => {
  const ending = {
    kind: 'merged' as const,
    outcome: {
      applied: [
        { path: 'a.txt', change: 'added' },
        { path: 'b.txt', change: 'removed' },
      ],
      appliedCount: 2,
      overlaps: [{ path: 'shared.txt', change: 'changed' }],
      notMerged: [{ path: 'link', why: 'a symbolic link (links are not carried back)' }],
      overlapDiff: '--- a/shared.txt\n+++ b/shared.txt\n-mine\n+theirs\n',
    },
  };
  const text = copyEndingText(ending);
  assert.match(text, /^Its changes now in your workspace: a\.txt \(added\), b\.txt \(removed\)\.$/m);
  assert.match(
    text,
    /Not applied, because the same files changed .*: shared\.txt \(changed\)\. Resolve them yourself/,
  );
  assert.match(text, /-mine\n\+theirs/);
  assert.match(text, /Not carried back: link: a symbolic link/);
  assert.deepEqual(copyEndingDetails(ending), {
    copy: 'merged',
    applied: 2,
    overlaps: ['shared.txt'],
    notMerged: 1,
  });
});

test('a long list is cut with a count; nothing changed, discarded and unmerged copies are said plainly', () => {
  const applied = Array.from({ length: 25 }, (_, index) => ({ path: `f${index}`, change: 'added' }));
  const long = copyEndingText({
    kind: 'merged',
    outcome: { applied, appliedCount: 230, overlaps: [], notMerged: [] },
  });
  assert.match(long, /f19 \(added\), and 210 more\.$/);
  assert.doesNotMatch(long, /f20 /);
  assert.doesNotMatch(long, /Not applied|Not carried back/);
  assert.match(
    copyEndingText({
      kind: 'merged',
      outcome: { applied: [], appliedCount: 0, overlaps: [], notMerged: [] },
    }),
    /changed no file/,
  );
  assert.match(copyEndingText({ kind: 'discarded' }), /did not complete.*discarded/);
  assert.match(copyEndingText({ kind: 'unmerged', why: 'the copy is gone' }), /\(the copy is gone\)/);
  assert.deepEqual(copyEndingDetails({ kind: 'discarded' }), { copy: 'discarded' });
});

test("a shared child's writes: the paths, a count past the list, and the calls that did not say", () => {
  assert.equal(sharedWritesText(undefined), 'It changed nothing in your workspace.');
  assert.equal(
    sharedWritesText({ paths: [], omitted: 0, unreported: [] }),
    'It changed nothing in your workspace.',
  );
  assert.equal(
    sharedWritesText({ paths: ['a.txt', 'b.txt'], omitted: 0, unreported: [] }),
    'It changed in your workspace: a.txt, b.txt.',
  );
  const many = Array.from({ length: 22 }, (_, index) => `f${index}`);
  assert.match(sharedWritesText({ paths: many, omitted: 5, unreported: [] }), /f19, and 7 more\.$/);
  assert.equal(
    sharedWritesText({ paths: [], omitted: 3, unreported: [] }),
    'It changed in your workspace: 3 paths.',
  );
  assert.equal(
    sharedWritesText({ paths: ['a.txt'], omitted: 0, unreported: ['mcp: deploy'] }),
    'It changed in your workspace: a.txt.\nCalls that may have changed it without saying what: mcp: deploy.',
  );
});
