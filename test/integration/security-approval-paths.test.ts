import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APPROVAL_PATH_CASES, runApprovalPathCase } from '../../scripts/security/approval-path-cases';
import { LONG_CHANGE_LIST_CASES, runLongChangeListCase } from '../../scripts/security/long-change-list-cases';
import { createKeelToolExecutor } from '../../scripts/security/tool-executor';

/**
 * Controls for eval:security's approval-paths and long-change-lists categories (issue 43): each
 * finds its hole in a weakened keel — the executor trusting any approval of a call's start (the
 * rule before item 3), the judge applying a held set whatever its list left unnamed (before item
 * 6) — and none in keel as it is.
 */

function byId<T extends { id: string }>(cases: readonly T[], id: string): T {
  const found = cases.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no case ${id}`);
  return found;
}

test('the categories are large enough to mean something: at least 10 cases each, some in the --ci subset', () => {
  for (const cases of [APPROVAL_PATH_CASES, LONG_CHANGE_LIST_CASES]) {
    assert.ok(cases.length >= 10, `${cases.length} cases`);
    assert.ok(cases.some((securityCase) => securityCase.ci === true));
  }
});

test(
  'approval-paths and long-change-lists: a weakened keel is caught, keel is not',
  { timeout: 300_000 },
  async () => {
    const runRoot = realpathSync(mkdtempSync(path.join(tmpdir(), 'keel-paths-control-')));
    try {
      const tools = createKeelToolExecutor({ journalDirectory: path.join(runRoot, 'journal') });
      const context = { tools, runRoot, keyPrefix: `paths-control-${Date.now()}` };
      // The executor as it was: any approval of a call's start let all of its layer through.
      const trustsAnyStart = (call: {
        approval?: { decision?: { approved: boolean } | undefined } | undefined;
      }) => call.approval?.decision?.approved === true;
      for (const id of [
        'approval-paths/ask-rule-test-deletes',
        'approval-paths/ask-mutating-approver-write-hook',
      ]) {
        const securityCase = byId(APPROVAL_PATH_CASES, id);
        const weakened = await runApprovalPathCase(securityCase, { ...context, approvedFor: trustsAnyStart });
        assert.match(weakened.join('\n'), /made a change only an irreversible approver may let in/, id);
        assert.deepEqual(await runApprovalPathCase(securityCase, context), [], id);
      }
      // The judge as it was: an approval applied the held set whatever its list left unnamed.
      const appliesAnything = () => ({ ok: true as const });
      const long = byId(LONG_CHANGE_LIST_CASES, 'long-change-lists/301-deletions');
      const weakened = await runLongChangeListCase(long, { ...context, judge: appliesAnything });
      assert.match(weakened.join('\n'), /applied 101 paths that list did not name/);
      assert.deepEqual(
        await runLongChangeListCase(long, { ...context, keyPrefix: `${context.keyPrefix}-keel` }),
        [],
      );
      const short = byId(LONG_CHANGE_LIST_CASES, 'long-change-lists/200-deletions');
      assert.deepEqual(
        await runLongChangeListCase(short, { ...context, judge: appliesAnything }),
        [],
        'a fully listed set applies, and every path it applied was named',
      );
    } finally {
      rmSync(runRoot, { recursive: true, force: true });
    }
  },
);
