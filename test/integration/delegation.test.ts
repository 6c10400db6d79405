import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approvalRulesQuery, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { KeelSearchAttributes } from '../../src/workflows/goal/views/search-attribute-values';
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

/** The delegate tool (issue 47): child goals with some of the parent's tools and a slice of its budget. */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');

/** The CLI as users run it, in a process of its own. */
function keel(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [KEEL, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const list = { name: 'list_dir', input: { path: '.' } };
const delegate = (task: string, extra: Record<string, unknown> = {}) => ({
  name: 'delegate',
  input: { task, ...extra },
});

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'three-readers',
        match: 'GOAL-DELEGATE-THREE',
        turns: [
          {
            toolCalls: ['ALPHA', 'BRAVO', 'CHARLIE'].map((name) =>
              delegate(`CHILD-${name}: list the workspace and say what is there`, {
                workspace: 'read-only',
                tools: ['list_dir', 'read_file'],
                budget: { maxToolCalls: 2, maxUsd: 0.5 },
              }),
            ),
          },
          { text: 'the three children reported' },
        ],
      },
      ...['ALPHA', 'BRAVO', 'CHARLIE'].map((name) => ({
        name: `child-${name.toLowerCase()}`,
        match: `CHILD-${name}`,
        turns: [{ toolCalls: [list] }, { text: `${name.toLowerCase()} saw notes.md` }],
      })),
      {
        name: 'over-budget',
        match: 'GOAL-DELEGATE-OVER',
        turns: [
          { toolCalls: [delegate('CHILD-GREEDY: list forever', { budget: { maxToolCalls: 1 } })] },
          // A child may get only its parent's tools; the model is told, and goes on.
          { toolCalls: [delegate('CHILD-GREEDY: with a tool I lack', { tools: ['launch_rockets'] })] },
          { text: 'went on without the greedy child' },
        ],
      },
      {
        name: 'greedy',
        match: 'CHILD-GREEDY',
        turns: [{ toolCalls: [list] }, { toolCalls: [list] }, { toolCalls: [list] }, { text: 'never' }],
      },
      {
        name: 'two-writers',
        match: 'GOAL-DELEGATE-WRITERS',
        turns: [
          {
            toolCalls: [
              delegate('CHILD-WRITER-ONE: write one.txt'),
              delegate('CHILD-WRITER-TWO: write two.txt'),
            ],
          },
          { text: 'both written' },
        ],
      },
      ...['ONE', 'TWO'].map((name) => ({
        name: `writer-${name.toLowerCase()}`,
        match: `CHILD-WRITER-${name}`,
        turns: [
          {
            toolCalls: [{ name: 'write_file', input: { path: `${name.toLowerCase()}.txt`, content: name } }],
          },
          { text: `${name.toLowerCase()}.txt written` },
        ],
      })),
      {
        name: 'delegate-loop',
        match: 'GOAL-DELEGATE-LOOP',
        turns: [
          ...Array.from({ length: 4 }, () => ({ toolCalls: [delegate('CHILD-ECHO: say the same thing')] })),
          { text: 'stopped repeating' },
        ],
      },
      { name: 'echo', match: 'CHILD-ECHO', turns: [{ text: 'the same thing' }] },
      {
        name: 'rules-parent',
        match: 'GOAL-DELEGATE-RULES',
        turns: [
          { toolCalls: [delegate('CHILD-FORBIDDEN: write a file')] },
          { text: 'the child was refused' },
        ],
      },
      {
        name: 'forbidden',
        match: 'CHILD-FORBIDDEN',
        turns: [
          { toolCalls: [{ name: 'write_file', input: { path: 'forbidden.txt', content: 'x' } }] },
          { text: 'could not write' },
        ],
      },
      {
        name: 'asking-parent',
        match: 'GOAL-DELEGATE-ASK',
        turns: [{ toolCalls: [delegate('CHILD-ASKER: write approved.txt')] }, { text: 'the child wrote it' }],
      },
      {
        name: 'asker',
        match: 'CHILD-ASKER',
        turns: [
          { toolCalls: [{ name: 'write_file', input: { path: 'approved.txt', content: 'yes' } }] },
          { text: 'approved.txt written' },
        ],
      },
      {
        name: 'grand-parent',
        match: 'GOAL-DELEGATE-TREE',
        turns: [{ toolCalls: [delegate('CHILD-MIDDLE: pass it on')] }, { text: 'the tree wrote it' }],
      },
      {
        name: 'middle',
        match: 'CHILD-MIDDLE',
        turns: [{ toolCalls: [delegate('CHILD-ASKER: write approved.txt')] }, { text: 'passed on' }],
      },
      {
        name: 'limited-parent',
        match: 'GOAL-DELEGATE-LIMIT',
        turns: [{ toolCalls: [delegate('CHILD-GREEDY: list on')] }, { text: 'the child hit the limit' }],
      },
      {
        name: 'limit-two-at-once',
        match: 'GOAL-DELEGATE-HELD-LIMIT',
        turns: [
          {
            toolCalls: [
              delegate('CHILD-GREEDY: list on', { workspace: 'read-only' }),
              delegate('CHILD-GREEDY: list more', { workspace: 'read-only' }),
            ],
          },
          { text: 'one child had the calls' },
        ],
      },
      {
        name: 'waiting-parent',
        match: 'GOAL-DELEGATE-CANCEL',
        turns: [{ toolCalls: [delegate('CHILD-WAITER: write a file')] }, { text: 'never reached' }],
      },
      {
        name: 'waiter',
        match: 'CHILD-WAITER',
        turns: [
          { toolCalls: [{ name: 'write_file', input: { path: 'waiting.txt', content: 'x' } }] },
          { text: 'never reached either' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function of(ledger: LedgerEvent[], kind: string): LedgerEvent[] {
  return ledger.filter((event) => event.kind === kind);
}

test('three read-only children run at once on budget slices, and their spend adds up to the parent', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    writeFileSync(path.join(workspace, 'notes.md'), 'notes');
    const workflowId = `goal-delegate-three-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: 'GOAL-DELEGATE-THREE: survey', workspace, delegation: { enabled: true } }],
    });
    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'the three children reported');
    const ledger = await handle.query(ledgerQuery, {});
    const started = of(ledger, 'delegate.started');
    const finished = of(ledger, 'delegate.finished');
    assert.equal(started.length, 3);
    // All three began before the first ended: read-only children do not wait for each other.
    assert.ok(Math.max(...started.map((e) => e.sequence)) < Math.min(...finished.map((e) => e.sequence)));
    for (const event of started) {
      const budget = event.data.budget as { maxToolCalls: number; maxUsd: number };
      assert.equal(budget.maxToolCalls, 2, 'the slice, below what the parent has left');
      assert.equal(budget.maxUsd, 0.5);
      assert.deepEqual((event.data.tools as string[]).sort(), ['list_dir', 'read_file']);
    }
    // Each child's answer is its call's result for the parent's model.
    const second = harness.scripted.requests.find((r) => r.scenario === 'three-readers' && r.turnIndex === 1);
    const results = JSON.stringify(second?.body.messages?.at(-1));
    for (const name of ['alpha', 'bravo', 'charlie'])
      assert.match(results, new RegExp(`${name} saw notes.md`));
    // The totals: the parent's child spend is exactly the sum of its children's own results.
    const children = await Promise.all(
      finished.map((event) => goalResult(harness.client.workflow.getHandle(String(event.data.workflowId)))),
    );
    const sum = (pick: (r: (typeof children)[number]) => number) => children.reduce((t, r) => t + pick(r), 0);
    assert.equal(result.childSpend?.children, 3);
    assert.equal(
      result.childSpend?.toolCalls,
      sum((r) => r.counters.toolCalls),
    );
    assert.equal(result.childSpend?.toolCalls, 3);
    const tokens = sum(
      (r) =>
        r.usage.inputTokens +
        r.usage.outputTokens +
        r.usage.cacheCreationInputTokens +
        r.usage.cacheReadInputTokens,
    );
    assert.equal(result.childSpend?.tokens, tokens);
    assert.ok(Math.abs((result.childSpend?.usd ?? 0) - sum((r) => r.stats.usdEstimate)) < 1e-9);
    // The Web UI can filter on the whole tree's spend: KeelCostUsd is the parent's and its children's.
    const attributes = (await handle.describe()).typedSearchAttributes;
    const costUsd = attributes.get(KeelSearchAttributes.costUsd) ?? 0;
    assert.ok(
      costUsd > (result.childSpend?.usd ?? 0),
      `KeelCostUsd ${costUsd} holds the children's spend and the parent's`,
    );
    assert.ok(
      Math.abs(costUsd - result.stats.usdEstimate) < 1e-4,
      `${costUsd} vs ${result.stats.usdEstimate}`,
    );
    // Each child is linked to its parent (the Web UI shows both ways) and ran one level deeper.
    const described = await harness.client.workflow
      .getHandle(String(finished[0]?.data.workflowId))
      .describe();
    assert.equal(described.parentExecution?.workflowId, workflowId);
    assert.match(
      (await described.staticSummary()) ?? '',
      new RegExp(`^delegated by ${workflowId}: CHILD-[A-Z]+: list the workspace`),
    );
    const childRequest = harness.scripted.requests.find((r) => r.scenario === 'child-alpha');
    const offered = (childRequest?.body.tools ?? []).map((tool) => (tool as { name: string }).name);
    assert.deepEqual(
      offered.sort(),
      ['delegate', 'list_dir', 'read_file'],
      'depth 1 of 2 may delegate again',
    );
  });
});

test('a child over its budget stops and the parent goes on; a child never gets a tool its parent lacks', async () => {
  await harness.withWorker(async () => {
    const workflowId = `goal-delegate-over-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-DELEGATE-OVER: try',
          workspace: tempDirectory(),
          delegation: { enabled: true, maxDepth: 1 },
          guards: { loop: { enabled: false } },
        },
      ],
    });
    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'went on without the greedy child');
    const ledger = await handle.query(ledgerQuery, {});
    const finished = of(ledger, 'delegate.finished');
    assert.equal(finished.length, 1, 'the call naming a tool the parent lacks starts no child');
    assert.equal(finished[0]?.data.status, 'budget_exhausted');
    assert.equal((finished[0]?.data.spent as { toolCalls: number }).toolCalls, 1);
    const second = harness.scripted.requests.find((r) => r.scenario === 'over-budget' && r.turnIndex === 1);
    assert.match(JSON.stringify(second?.body.messages?.at(-1)), /ended budget_exhausted/);
    const third = harness.scripted.requests.find((r) => r.scenario === 'over-budget' && r.turnIndex === 2);
    assert.match(
      JSON.stringify(third?.body.messages?.at(-1)),
      /Not delegated: Not your tools: launch_rockets/,
    );
    // At the depth limit a child is not offered delegate.
    const childRequest = harness.scripted.requests.find((r) => r.scenario === 'greedy');
    const offered = (childRequest?.body.tools ?? []).map((tool) => (tool as { name: string }).name);
    assert.ok(offered.length > 0 && !offered.includes('delegate'));
  });
});

test('the guards see delegate calls: the same task delegated again and again is a loop', async () => {
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-delegate-loop-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-DELEGATE-LOOP: repeat',
          workspace: tempDirectory(),
          delegation: { enabled: true, maxDepth: 1 },
          guards: { loop: { warnAt: 3, stopAt: 10 } },
          judge: { enabled: false },
        },
      ],
    });
    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    const ledger = await handle.query(ledgerQuery, {});
    const warned = of(ledger, 'guard.warned').filter((event) => event.data.guard === 'loop');
    assert.equal(warned.length, 1, JSON.stringify(ledger.map((event) => event.summary)));
    assert.equal(result.childSpend?.children, 4);
  });
});

test("the parent's tool-call limit is the tree's: a child gets only the calls left of it", async () => {
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-delegate-limit-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-DELEGATE-LIMIT: list',
          workspace: tempDirectory(),
          delegation: { enabled: true },
          limits: { maxToolCalls: 3 },
          guards: { loop: { enabled: false } },
        },
      ],
    });
    const result = await goalResult(handle);
    // 3 less the delegate call itself: the child stops at its second listing instead of its third.
    const finished = of(await handle.query(ledgerQuery, {}), 'delegate.finished');
    assert.deepEqual(
      [finished[0]?.data.status, (finished[0]?.data.spent as { toolCalls: number }).toolCalls],
      ['limit', 2],
    );
    assert.equal(result.counters.toolCalls + (result.childSpend?.toolCalls ?? 0), 3);
  });
});

test('a child holds the calls of the limit it was given: a sibling started beside it waits, and gets only what is left', async () => {
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-delegate-held-limit-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-DELEGATE-HELD-LIMIT: list twice over',
          workspace: tempDirectory(),
          delegation: { enabled: true },
          limits: { maxToolCalls: 5 },
          guards: { loop: { enabled: false } },
        },
      ],
    });
    const result = await goalResult(handle);
    // 5 less the two delegate calls: the first child holds the 3 left and spends them; the second
    // waits for it instead of taking the same 3, and then finds none left.
    const ledger = await handle.query(ledgerQuery, {});
    assert.equal(of(ledger, 'delegate.started').length, 1);
    const next = harness.scripted.requests.find(
      (r) => r.scenario === 'limit-two-at-once' && r.turnIndex === 1,
    );
    assert.match(JSON.stringify(next?.body.messages?.at(-1)), /Not delegated: your tool-call limit is spent/);
    assert.equal(
      result.counters.toolCalls + (result.childSpend?.toolCalls ?? 0),
      5,
      'the tree made 5 calls, not 8',
    );
  });
});

test('children that may change the shared workspace run one after another', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-delegate-writers-${Date.now()}`,
      args: [{ goal: 'GOAL-DELEGATE-WRITERS: write', workspace, delegation: { enabled: true } }],
    });
    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    const ledger = await handle.query(ledgerQuery, {});
    const kinds = ledger
      .filter((event) => event.kind.startsWith('delegate.'))
      .map((event) => event.kind.replace('delegate.', ''));
    assert.deepEqual(kinds, ['started', 'finished', 'started', 'finished']);
    assert.equal(result.childSpend?.toolCalls, 2);
  });
});

test("a parent's rules bind its children; a goal no parent started takes no inherited rules", async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    const workflowId = `goal-delegate-rules-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-DELEGATE-RULES: try',
          workspace,
          delegation: { enabled: true },
          approvalRules: [{ tool: 'write_file', effect: 'forbid', reason: 'no writes in this test' }],
        },
      ],
    });
    assert.equal((await goalResult(handle)).status, 'completed');
    const child = harness.client.workflow.getHandle(`${workflowId}-delegate-1`);
    const childLedger = await child.query(ledgerQuery, {});
    const added = of(childLedger, 'approval.rule_added');
    assert.equal(added.length, 1, JSON.stringify(childLedger.map((event) => event.kind)));
    assert.ok((added[0]?.summary ?? '').includes(`(inherited from ${workflowId})`), added[0]?.summary);
    assert.equal(existsSync(path.join(workspace, 'forbidden.txt')), false, "the parent's forbid rule held");
    const refused = harness.scripted.requests.find((r) => r.scenario === 'forbidden' && r.turnIndex === 1);
    assert.match(JSON.stringify(refused?.body.messages?.at(-1)), /no writes in this test/);

    // The same input from a client: no parent, so the rules it claims to inherit are not applied.
    const rules = (await handle.query(approvalRulesQuery)).filter((rule) => rule.effect === 'forbid');
    const direct = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-delegate-no-parent-${Date.now()}`,
      args: [
        { goal: 'CHILD-FORBIDDEN: write a file', workspace, inherited: { rules, rememberedDenials: [] } },
      ],
    });
    assert.equal((await goalResult(direct)).status, 'completed');
    const directLedger = await direct.query(ledgerQuery, {});
    assert.match(
      of(directLedger, 'approval.rule_not_applied')[0]?.summary ?? '',
      /1 inherited rules were not applied: this goal has no parent goal/,
    );
    assert.equal(existsSync(path.join(workspace, 'forbidden.txt')), true);
  });
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
