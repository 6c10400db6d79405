import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APPROVAL_PATH_CASES, runApprovalPathCase } from '../../scripts/security/approval-path-cases';
import {
  cutAt200,
  LONG_CHANGE_LIST_CASES,
  runLongChangeListCase,
  type ChangeSetJudge,
} from '../../scripts/security/long-change-list-cases';
import { createKeelToolExecutor } from '../../scripts/security/tool-executor';

/**
 * Controls for eval:security's approval-paths and long-change-lists categories (issue 43): each
 * finds its hole in a weakened keel — the executor trusting any approval of a call's start (the
 * rule before item 3); for item 6, a judge ignoring the digest, the list cut at 200 a kind as it
 * was, a judge refusing every set — and none in keel as it is.
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
      // Item 6's controls, each a weakened keel the category must catch.
      const appliesAnything = () => ({ ok: true as const });
      const refusesAll: ChangeSetJudge = () => ({
        ok: false,
        reason: 'unlisted-changes',
        message: 'refused whatever it holds',
      });
      const long = byId(LONG_CHANGE_LIST_CASES, 'long-change-lists/301-deletions');
      const run = (slug: string, extra: Partial<Parameters<typeof runLongChangeListCase>[1]>) =>
        runLongChangeListCase(long, { ...context, keyPrefix: `${context.keyPrefix}-${slug}`, ...extra });
      // A judge that ignores the digest: an approval of another set goes through.
      assert.match(
        (await run('any', { judge: appliesAnything })).join('\n'),
        /an approval naming a change set other than the one held was accepted/,
      );
      // The list as it was (200 a kind, the rest counted): the approver did not see 101 paths.
      assert.match((await run('cut', { shown: cutAt200 })).join('\n'), /left 101 paths unnamed/);
      assert.match(
        (await run('cut-any', { shown: cutAt200, judge: appliesAnything })).join('\n'),
        /applied 101 paths that list did not name/,
      );
      // A keel that refuses every long set has no hole of this kind, yet approves nothing shown.
      assert.match(
        (await run('refuses', { judge: refusesAll })).join('\n'),
        /approval of the fully listed set it was shown was refused/,
      );
      assert.deepEqual(await run('keel', {}), []);
      const short = byId(LONG_CHANGE_LIST_CASES, 'long-change-lists/200-deletions');
      assert.deepEqual(
        await runLongChangeListCase(short, { ...context, keyPrefix: `${context.keyPrefix}-short` }),
        [],
        'a fully listed set applies, and every path it applied was named',
      );
    } finally {
      rmSync(runRoot, { recursive: true, force: true });
    }
  },
);
