import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { goalWorkflow } from '../../src/workflows/goal/goal-workflow';
import { decideApprovalUpdate, goalStatusQuery } from '../../src/workflows/goal/messages';
import { changeSetDigest } from '../../src/workflows/approvals/change-set-digest';
import { pendingEntries, pendingLines } from '../../src/cli/approval-lines';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Issue 43, item 6: approvers see all they approve. A command deletes 301 files; its list names
 * 200 and counts the rest ("and 101 more"). Nobody was shown those 101, so no approval applies
 * the set — without a digest, or with a stale one — and a denial discards it: every file stays.
 */

const FILES = 301;

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'long-list',
        match: 'GOAL-LONG-LIST',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'rm f*.txt' } }] },
          { text: 'cleaned' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

const refusedWith = (pattern: RegExp) => (error: unknown) =>
  error instanceof WorkflowUpdateFailedError && pattern.test(String(error.cause?.message));

test('a 301-path deletion: approving what the list does not name is refused, a stale digest too; nothing is applied', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory('keel-long-');
    for (let index = 1; index <= FILES; index += 1)
      writeFileSync(path.join(workspace, `f${String(index).padStart(3, '0')}.txt`), `${index}\n`);
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `long-list-${Date.now()}`,
      args: [{ goal: 'GOAL-LONG-LIST: clean up', workspace }],
    });
    const held = await eventually(async () => {
      const [call] = (await handle.query(goalStatusQuery)).pendingApprovals;
      return call?.heldChanges === undefined ? undefined : call;
    });
    const changes = held.heldChanges ?? { created: [], modified: [], deleted: [] };
    assert.equal(changes.deleted.length + (changes.omitted?.deleted ?? 0), FILES, 'every deletion counted');
    const unlisted = changes.omitted?.deleted ?? 0;
    assert.ok(unlisted > 0, 'the list leaves some unnamed');
    // What `keel pending` prints for it: the count left off, and the digest of exactly this set.
    const printed = pendingLines(
      pendingEntries(handle.workflowId, { awaitingReview: false, pendingApprovals: [held] }),
    );
    assert.ok(printed.some((line) => line.includes(`and ${unlisted} more`)));
    assert.ok(printed.some((line) => line.includes(`# these changes: ${changeSetDigest(changes)}`)));

    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId: held.callId, approved: true, approver: 'ann' }],
      }),
      refusedWith(new RegExp(`holds ${unlisted} changes its list does not name`)),
    );
    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [
          { callId: held.callId, approved: true, approver: 'ann', changesDigest: changeSetDigest(changes) },
        ],
      }),
      refusedWith(/changes its list does not name/),
    );
    const stale = changeSetDigest({ ...changes, deleted: changes.deleted.slice(1) });
    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId: held.callId, approved: true, approver: 'ann', changesDigest: stale }],
      }),
      refusedWith(/names change set sha256:[0-9a-f]{64}, but this call holds/),
    );
    assert.equal(
      readdirSync(workspace).filter((name) => name.endsWith('.txt')).length,
      FILES,
      'nothing applied',
    );
    assert.equal((await handle.query(goalStatusQuery)).pendingApprovals.length, 1, 'still asked');

    await handle.executeUpdate(decideApprovalUpdate, {
      args: [{ callId: held.callId, approved: false, approver: 'ann', reason: 'too much at once' }],
    });
    assert.equal((await handle.result()).status, 'completed');
    assert.equal(existsSync(path.join(workspace, 'f301.txt')), true, 'denied: discarded');
    assert.equal(readdirSync(workspace).filter((name) => name.endsWith('.txt')).length, FILES);
  });
});
