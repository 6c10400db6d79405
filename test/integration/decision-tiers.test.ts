import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { decideApprovalUpdate, goalStatusQuery } from '../../src/workflows/goal/messages';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { changeSetDigest } from '../../src/workflows/approvals/change-set-digest';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Issue 43, item 3: a decision covers its own tier only. Under `ask`, an allow rule or an approver
 * of the mutating tier starts a command; what it deletes is held for the irreversible tier, as
 * under `auto`, and the file stays until such an approver says yes.
 */

// A test script that also deletes a file: what an allowed `npm test` did in the audit.
const TEST_SCRIPT = 'echo tested > report.txt\nrm victim.txt\n';

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'tier-rule',
        match: 'GOAL-TIER-RULE',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'sh test.sh' } }] },
          { text: 'tested' },
        ],
      },
      {
        name: 'tier-approvers',
        match: 'GOAL-TIER-APPROVERS',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'sh test.sh' } }] },
          { text: 'tested' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

async function start(goal: string, extra: Partial<GoalInput>) {
  const workspace = tempDirectory('keel-tiers-');
  writeFileSync(path.join(workspace, 'test.sh'), TEST_SCRIPT);
  writeFileSync(path.join(workspace, 'victim.txt'), 'keep me\n');
  const handle = await harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${goal.toLowerCase()}-${Date.now()}`,
    args: [{ goal: `${goal}: run the tests`, workspace, approvalPolicy: 'ask', ...extra }],
  });
  return { handle, workspace };
}

type Handle = Awaited<ReturnType<typeof start>>['handle'];

async function pendingOf(handle: Handle, reversibility: string) {
  return eventually(async () => {
    const [call] = (await handle.query(goalStatusQuery)).pendingApprovals;
    return call?.reversibility === reversibility ? call : undefined;
  });
}

test('ask + an allow rule: the command runs, its deletion is held for a human of the irreversible tier', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await start('GOAL-TIER-RULE', {
      approvalRules: [{ effect: 'allow', tool: 'run_command', pattern: 'sh test.sh*', reason: 'tests' }],
    });
    const held = await pendingOf(handle, 'irreversible');
    assert.deepEqual(held.heldChanges?.deleted, ['victim.txt']);
    assert.match(held.reason ?? '', /deletes victim\.txt/);
    assert.equal(existsSync(path.join(workspace, 'victim.txt')), true, 'the rule did not delete it');
    assert.equal(existsSync(path.join(workspace, 'report.txt')), false, 'nothing of the layer applied yet');
    const view = await handle.query(goalStatusQuery);
    assert.equal(view.counters.approvalsByRule, 1, 'the rule decided the start');
    // Item 6: an approval names the change set it was shown; another set's digest is refused.
    const shown = changeSetDigest(held.heldChanges ?? { created: [], modified: [], deleted: [] });
    const stale = changeSetDigest({ created: ['report.txt'], modified: [], deleted: [] });
    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId: held.callId, approved: true, approver: 'ann', changesDigest: stale }],
      }),
      (error: unknown) =>
        error instanceof WorkflowUpdateFailedError &&
        String(error.cause?.message).includes(`names change set ${stale}, but this call holds ${shown}`),
    );
    assert.equal(existsSync(path.join(workspace, 'victim.txt')), true, 'a stale approval applied nothing');
    await handle.executeUpdate(decideApprovalUpdate, {
      args: [{ callId: held.callId, approved: true, approver: 'ann', changesDigest: shown }],
    });
    assert.equal((await handle.result()).status, 'completed');
    assert.equal(existsSync(path.join(workspace, 'victim.txt')), false, 'approved: deleted');
    assert.equal(existsSync(path.join(workspace, 'report.txt')), true);
  });
});

test('a mutating approver starts the command; the irreversible approver is asked for its deletion', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await start('GOAL-TIER-APPROVERS', {
      approvers: { mutating: ['bob'], irreversible: ['alice'] },
    });
    const first = await pendingOf(handle, 'mutating');
    await handle.executeUpdate(decideApprovalUpdate, {
      args: [{ callId: first.callId, approved: true, approver: 'bob' }],
    });
    const held = await pendingOf(handle, 'irreversible');
    assert.equal(held.callId, first.callId, 'the same call, now asking the next tier');
    assert.deepEqual(held.heldChanges?.deleted, ['victim.txt']);
    assert.equal(existsSync(path.join(workspace, 'victim.txt')), true, "bob's approval did not delete it");
    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId: held.callId, approved: true, approver: 'bob' }],
      }),
      (error: unknown) =>
        error instanceof WorkflowUpdateFailedError &&
        /bob may not decide irreversible calls/.test(String(error.cause?.message)),
    );
    assert.equal(existsSync(path.join(workspace, 'victim.txt')), true);
    await handle.executeUpdate(decideApprovalUpdate, {
      args: [{ callId: held.callId, approved: true, approver: 'alice' }],
    });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(existsSync(path.join(workspace, 'victim.txt')), false, 'alice approved: deleted');
    assert.equal(result.counters.toolCalls, 1, 'ran once: the approval applied its layer');
  });
});
