import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import {
  addApprovalRuleUpdate,
  approvalRulesQuery,
  goalStatusQuery,
  ledgerQuery,
  parentRuleSignal,
} from '../../src/workflows/goal/messages';
import { goalResult } from '../../src/client/goal-client';
import { childApprovalLines, childrenLines } from '../../src/cli/budget-lines';
import { main } from '../../src/cli/main';
import { delegationInput, type RunOptions } from '../../src/cli/run-options';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { delegationScenarios, keel, of } from '../support/delegation-scenarios';

/** Delegated children's waiting calls, seen and decided from the root; cancelling a tree; `keel run --delegate` (issue 47). */

let harness: Harness;

before(async () => {
  harness = await createHarness({ scenarios: delegationScenarios });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test("a child's waiting call shows on its root and is decided from there", async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    const workflowId = `goal-delegate-ask-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        { goal: 'GOAL-DELEGATE-ASK: write', workspace, approvalPolicy: 'ask', delegation: { enabled: true } },
      ],
    });
    const waiting = await eventually(async () => {
      const calls = (await handle.query(goalStatusQuery)).childApprovals ?? [];
      return calls.length === 1 ? calls : undefined;
    });
    assert.deepEqual(
      waiting.map((call) => [call.workflowId, call.callId, call.qualifiedId, call.reversibility]),
      [[`${workflowId}-delegate-1`, 'call-1', 'delegate-1/call-1', 'mutating']],
    );
    assert.deepEqual(childApprovalLines({ childApprovals: waiting }, workflowId), [
      `child call waits: delegate-1/call-1 (mutating) ${waiting[0]?.summary}  (keel approve ${workflowId} delegate-1/call-1)`,
    ]);
    // The root's Web UI details list it with the command that decides it.
    const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    assert.match(
      currentDetails,
      /#### Waiting in child goals \(1\)\n- `delegate-1\/call-1` \(mutating\) write_file/,
    );
    assert.ok(currentDetails.includes(`\`keel approve ${workflowId} delegate-1/call-1\``), currentDetails);
    // `keel pending ROOT` lists it under the root, with the id the root decides it by.
    const address = await temporalAddress();
    const pending = await keel(['--address', address, 'pending', workflowId, '--json']);
    assert.equal(pending.code, 0, pending.stderr);
    const listed = JSON.parse(pending.stdout) as Array<{
      workflowId: string;
      callId: string;
      toolName: string;
    }>;
    assert.deepEqual(
      listed.map((entry) => [entry.workflowId, entry.callId, entry.toolName]),
      [[workflowId, 'delegate-1/call-1', 'write_file']],
    );
    const text = await keel(['--address', address, 'pending', workflowId]);
    assert.ok(text.stdout.includes(`${workflowId}  delegate-1/call-1  mutating  write_file`), text.stdout);
    // A call id naming no child of this goal is one line and exit 2; the child's is decided on the child.
    assert.equal(await main(['--address', address, 'approve', workflowId, 'elsewhere-1/call-1']), 2);
    assert.equal(await main(['--address', address, 'approve', workflowId, 'delegate-1/call-1']), 0);
    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    assert.equal(readFileSync(path.join(workspace, 'approved.txt'), 'utf8'), 'yes');
    const childLedger = await harness.client.workflow
      .getHandle(`${workflowId}-delegate-1`)
      .query(ledgerQuery, {});
    assert.ok(
      of(childLedger, 'approval.decided').length === 1,
      JSON.stringify(childLedger.map((e) => e.kind)),
    );
    assert.equal((await handle.query(goalStatusQuery)).childApprovals, undefined, 'nothing waits any more');
  });
});

test('a forbid rule added to the parent reaches its running child and decides the call waiting there; an allow rule never comes that way', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    const workflowId = `goal-delegate-later-rule-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        { goal: 'GOAL-DELEGATE-ASK: write', workspace, approvalPolicy: 'ask', delegation: { enabled: true } },
      ],
    });
    await eventually(
      async () => ((await handle.query(goalStatusQuery)).childApprovals ?? []).length === 1 || undefined,
    );
    const child = harness.client.workflow.getHandle(`${workflowId}-delegate-1`);
    // A signal does not say who sent it: an allow rule sent as the parent's is not taken.
    const allow = {
      id: 'rule-1',
      effect: 'allow',
      source: 'added',
      by: 'mallory',
      reason: '',
      createdAt: new Date().toISOString(),
      tool: 'write_file',
      pattern: '*',
      irreversible: false,
    } as const;
    await child.signal(parentRuleSignal, allow);
    await eventually(
      async () =>
        of(await child.query(ledgerQuery, {}), 'approval.rule_not_applied').length === 1 || undefined,
    );
    assert.deepEqual(await child.query(approvalRulesQuery), []);
    assert.equal((await child.query(goalStatusQuery)).pendingApprovals.length, 1, 'the call still waits');

    await handle.executeUpdate(addApprovalRuleUpdate, {
      args: [{ tool: 'write_file', effect: 'forbid', approver: 'ann', reason: 'no writes from here on' }],
    });
    // Bounded: without the rule the child would wait for a human for good.
    const added = await eventually(async () => {
      const summaries = of(await child.query(ledgerQuery, {}), 'approval.rule_added').map((e) => e.summary);
      return summaries.length > 0 ? summaries : undefined;
    });
    assert.equal(added.length, 1, JSON.stringify(added));
    assert.match(
      added[0] ?? '',
      new RegExp(`added by ann \\(inherited from ${workflowId}\\).*: forbid write_file: \\*$`),
    );
    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    assert.equal(existsSync(path.join(workspace, 'approved.txt')), false, 'the waiting write was refused');
  });
});

test("a grandchild's waiting call reaches the root through its parent, and is decided from the root", async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    const workflowId = `goal-delegate-tree-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-DELEGATE-TREE: write',
          workspace,
          approvalPolicy: 'ask',
          delegation: { enabled: true },
        },
      ],
    });
    const waiting = await eventually(async () => {
      const calls = (await handle.query(goalStatusQuery)).childApprovals ?? [];
      return calls.length === 1 ? calls : undefined;
    });
    assert.deepEqual(
      waiting.map((call) => [call.workflowId, call.qualifiedId]),
      [[`${workflowId}-delegate-1-delegate-1`, 'delegate-1-delegate-1/call-1']],
    );
    const address = await temporalAddress();
    assert.equal(
      await main(['--address', address, 'approve', workflowId, 'delegate-1-delegate-1/call-1']),
      0,
    );
    assert.equal((await goalResult(handle)).status, 'completed');
    assert.equal(readFileSync(path.join(workspace, 'approved.txt'), 'utf8'), 'yes');
    assert.equal((await handle.query(goalStatusQuery)).childApprovals, undefined);
  });
});

test('cancelling the parent cancels its children, even one waiting for a human', async () => {
  await harness.withWorker(async () => {
    const workflowId = `goal-delegate-cancel-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-DELEGATE-CANCEL: wait',
          workspace: tempDirectory(),
          approvalPolicy: 'ask',
          delegation: { enabled: true },
        },
      ],
    });
    const child = harness.client.workflow.getHandle(`${workflowId}-delegate-1`);
    await eventually(async () => {
      const status = await child.query(goalStatusQuery);
      assert.equal(status.pendingApprovals.length, 1);
      return true;
    });
    // The parent shows the child it waits for, and `keel status` says how to look at it.
    const parentStatus = await handle.query(goalStatusQuery);
    assert.deepEqual(childrenLines(parentStatus), [
      `child running: ${child.workflowId} (shared): CHILD-WAITER: write a file  (keel status ${child.workflowId})`,
    ]);
    await handle.cancel();
    await eventually(async () => {
      assert.equal((await child.describe()).status.name, 'CANCELLED');
      assert.equal((await handle.describe()).status.name, 'CANCELLED');
      return true;
    });
    // The child ended its own way (cancelled, its approval closed), and the parent holds nothing of it.
    assert.equal((await child.query(goalStatusQuery)).status, 'cancelled');
    await eventually(async () => {
      assert.equal((await handle.query(goalStatusQuery)).children, undefined);
      return true;
    });
  });
});

test('keel run: --delegate and its limits become the goal input; a limit without it, or out of range, is one line and exit 2', async () => {
  assert.deepEqual(delegationInput({ delegate: true, delegateDepth: 3, maxChildren: 4 } as RunOptions), {
    delegation: { enabled: true, maxDepth: 3, maxConcurrent: 4 },
  });
  assert.deepEqual(delegationInput({ delegate: true } as RunOptions), { delegation: { enabled: true } });
  assert.deepEqual(delegationInput({} as RunOptions), {});
  const refused = async (...flags: string[]): Promise<string[]> => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string) => written.push(String(chunk)) > 0;
    try {
      const argv = ['run', 'a goal', '--workspace', tempDirectory(), ...flags];
      assert.equal(await main(['--address', '127.0.0.1:1', ...argv]), 2);
    } finally {
      process.stderr.write = write;
    }
    return written;
  };
  assert.deepEqual(await refused('--max-children', '2'), [
    'keel: --delegate-depth and --max-children need --delegate\n',
  ]);
  const [line, ...more] = await refused('--delegate', '--delegate-depth', '9');
  assert.deepEqual(more, []);
  assert.match(line ?? '', /^keel: .*delegation\.maxDepth: .*5/);
});
