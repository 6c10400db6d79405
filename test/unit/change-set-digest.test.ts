import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  changeSetDigest,
  changeSetSummary,
  changeSetText,
  checkChangeSet,
  unlistedChanges,
} from '../../src/workflows/approvals/change-set-digest';
import { judgeDecision, type DecisionAuthority } from '../../src/workflows/goal/tool-calls/approval-decision';
import { approversSchema } from '../../src/workflows/approvals/approval-authority';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import type { WorkspaceEffects } from '../../src/workflows/tools/tool-outcome';

/**
 * Issue 43, item 6: an approval approves the digest of the exact change set it was shown; a set
 * that differs, or one whose list leaves paths unnamed, is never applied.
 */

const held: WorkspaceEffects = { created: ['b.txt', 'a.txt'], modified: ['m.txt'], deleted: ['old.txt'] };

test('the digest is sha256 of the canonical text: every kind sorted, counts of what the list left off', () => {
  const text = changeSetText(held);
  assert.equal(
    text,
    JSON.stringify(['keel-change-set-v1', ['old.txt'], ['m.txt'], ['a.txt', 'b.txt'], [0, 0, 0], []]),
  );
  assert.equal(changeSetDigest(held), `sha256:${createHash('sha256').update(text).digest('hex')}`);
  const reordered = { ...held, created: ['a.txt', 'b.txt'] };
  assert.equal(changeSetDigest(reordered), changeSetDigest(held), 'order does not matter');
});

test('any difference in the set gives another digest: a path, its kind, a count left off, a collapsed entry', () => {
  const base = changeSetDigest(held);
  const variants: WorkspaceEffects[] = [
    { ...held, deleted: ['old.txt', 'other.txt'] },
    { ...held, deleted: [], modified: ['m.txt', 'old.txt'] },
    { ...held, omitted: { created: 0, modified: 0, deleted: 1 } },
    { ...held, omitted: { created: 1, modified: 0, deleted: 0 } },
    { ...held, omitted: { created: 0, modified: 1, deleted: 0 } },
    { ...held, collapsed: { '.git/': 2 } },
    { created: [], modified: [], deleted: [] },
  ];
  const digests = new Set(variants.map(changeSetDigest));
  assert.equal(digests.size, variants.length);
  assert.equal(digests.has(base), false);
  assert.notEqual(
    changeSetDigest({ ...held, collapsed: { '.git/': 2, 'node_modules/': 1 } }),
    changeSetDigest({ ...held, collapsed: { '.git/': 1, 'node_modules/': 2 } }),
  );
  assert.equal(
    changeSetDigest({ ...held, collapsed: { 'z/': 1, 'a/': 2 } }),
    changeSetDigest({ ...held, collapsed: { 'a/': 2, 'z/': 1 } }),
    'collapsed entries in any order',
  );
});

test('unlisted changes: the counts the lists leave off, every kind', () => {
  assert.equal(unlistedChanges(held), 0);
  assert.equal(unlistedChanges({ ...held, omitted: { created: 1, modified: 2, deleted: 101 } }), 104);
});

test('a denial applies nothing: it is never refused for its change set', () => {
  const truncated = { ...held, omitted: { created: 0, modified: 0, deleted: 101 } };
  assert.deepEqual(checkChangeSet({ approved: false, held: truncated, digest: 'sha256:stale' }), {
    ok: true,
  });
});

test('an approval naming the held digest, or none (an older client), applies a fully listed set', () => {
  assert.deepEqual(checkChangeSet({ approved: true, held, digest: changeSetDigest(held) }), { ok: true });
  assert.deepEqual(checkChangeSet({ approved: true, held, digest: undefined }), { ok: true });
  assert.deepEqual(checkChangeSet({ approved: true, held: undefined, digest: undefined }), { ok: true });
});

test('an approval naming another set is refused, naming both digests', () => {
  const stale = changeSetDigest({ ...held, deleted: [] });
  const check = checkChangeSet({ approved: true, held, digest: stale });
  assert.equal(check.ok, false);
  assert.ok(!check.ok && check.reason === 'changes-differ');
  assert.ok(!check.ok && check.message.includes(stale) && check.message.includes(changeSetDigest(held)));
  const none = checkChangeSet({ approved: true, held: undefined, digest: stale });
  assert.ok(!none.ok && none.reason === 'changes-differ' && /holds no changes/.test(none.message));
});

test('a set whose list leaves paths unnamed is never approved, even with its own digest', () => {
  const truncated = { ...held, omitted: { created: 0, modified: 0, deleted: 101 } };
  for (const digest of [undefined, changeSetDigest(truncated)]) {
    const check = checkChangeSet({ approved: true, held: truncated, digest });
    assert.ok(!check.ok && check.reason === 'unlisted-changes', String(digest));
    assert.ok(!check.ok && /101 changes its list does not name/.test(check.message));
  }
});

const open: DecisionAuthority = {
  workflowId: 'goal-1',
  approvers: approversSchema.parse({}),
  verify: undefined,
};

function heldCall(changes: WorkspaceEffects): ToolCallRecord[] {
  return [
    {
      callId: 'c',
      toolName: 'run_command',
      input: { command: 'sh test.sh' },
      reversibility: 'irreversible',
      summary: 'run_command: sh test.sh',
      status: 'awaiting-approval',
      approval: { requestedAt: '2030-01-01T00:00:00.000Z', deadlineMs: 1 },
      escalation: { reason: 'deletes old.txt', content: '', changes },
    },
  ];
}

test('judgeDecision: a stale digest is refused by reason, the right one accepted; an unauthorized approver first', () => {
  const stale = judgeDecision(
    { callId: 'c', approver: 'ann', approved: true, changesDigest: 'sha256:00' },
    'from-payload',
    heldCall(held),
    open,
  );
  assert.ok(!stale.ok && stale.reason === 'changes-differ');
  const right = judgeDecision(
    { callId: 'c', approver: 'ann', approved: true, changesDigest: changeSetDigest(held) },
    'from-payload',
    heldCall(held),
    open,
  );
  assert.ok(right.ok && right.approved);
  const truncated = { ...held, omitted: { created: 0, modified: 0, deleted: 101 } };
  const unlisted = judgeDecision({ callId: 'c', approver: 'ann' }, true, heldCall(truncated), open);
  assert.ok(!unlisted.ok && unlisted.reason === 'unlisted-changes');
  const denied = judgeDecision({ callId: 'c', approver: 'ann' }, false, heldCall(truncated), open);
  assert.ok(denied.ok && !denied.approved);
  const stranger = judgeDecision(
    { callId: 'c', approver: 'eve', changesDigest: 'sha256:00' },
    true,
    heldCall(held),
    { ...open, approvers: approversSchema.parse({ irreversible: ['alice'] }) },
  );
  assert.ok(!stranger.ok && stranger.reason === 'unauthorized-approver');
  const malformed = judgeDecision(
    { callId: 'c', approver: 'ann', changesDigest: '' },
    true,
    heldCall(held),
    open,
  );
  assert.ok(!malformed.ok && malformed.reason === 'malformed-payload');
});

/** 301 deletions, every one listed, as a layer now captures them. */
const longList: WorkspaceEffects = {
  created: [],
  modified: [],
  deleted: Array.from({ length: 301 }, (_, index) => `f${String(index + 1).padStart(3, '0')}.txt`),
};

test('a fully listed set of any size is approved with its digest: the digest covers every path', () => {
  assert.equal(unlistedChanges(longList), 0);
  assert.deepEqual(checkChangeSet({ approved: true, held: longList, digest: changeSetDigest(longList) }), {
    ok: true,
  });
  // The 301st path is in the digest: a set without it, or with another in its place, differs.
  const withoutLast = { ...longList, deleted: longList.deleted.slice(0, 300) };
  const swapped = { ...longList, deleted: [...longList.deleted.slice(0, 300), 'f999.txt'] };
  for (const shown of [withoutLast, swapped]) {
    const check = checkChangeSet({ approved: true, held: longList, digest: changeSetDigest(shown) });
    assert.ok(!check.ok && check.reason === 'changes-differ');
  }
  const approved = judgeDecision(
    { callId: 'c', approver: 'ann', approved: true, changesDigest: changeSetDigest(longList) },
    'from-payload',
    heldCall(longList),
    open,
  );
  assert.ok(approved.ok && approved.approved, 'judgeDecision accepts a long, fully listed set');
  const stale = judgeDecision(
    { callId: 'c', approver: 'ann', approved: true, changesDigest: changeSetDigest(withoutLast) },
    'from-payload',
    heldCall(longList),
    open,
  );
  assert.ok(!stale.ok && stale.reason === 'changes-differ');
});

test('an older worker’s list with one path left off is still refused, even with its own digest', () => {
  const older = {
    ...longList,
    deleted: longList.deleted.slice(0, 300),
    omitted: { created: 0, modified: 0, deleted: 1 },
  };
  const check = checkChangeSet({ approved: true, held: older, digest: changeSetDigest(older) });
  assert.ok(!check.ok && check.reason === 'unlisted-changes' && /holds 1 changes/.test(check.message));
});

test("the ledger keeps a held set's digest and counts, not its list", () => {
  const changes = {
    created: ['a', 'b'],
    modified: [],
    deleted: ['x'],
    omitted: { created: 3, modified: 0, deleted: 0 },
  };
  assert.deepEqual(changeSetSummary(changes), {
    changesDigest: changeSetDigest(changes),
    changedPaths: { deleted: 1, modified: 0, created: 5 },
  });
});
