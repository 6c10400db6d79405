import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approvalRulesQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { KeelSearchAttributes } from '../../src/workflows/goal/views/search-attribute-values';
import { goalResult } from '../../src/client/goal-client';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';
import { delegationScenarios, of } from '../support/delegation-scenarios';

/** The delegate tool (issue 47): child goals with some of the parent's tools and a slice of its budget. */

let harness: Harness;

before(async () => {
  harness = await createHarness({ scenarios: delegationScenarios });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

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
    // Each result says what the child changed in the shared workspace.
    const next = harness.scripted.requests.find((r) => r.scenario === 'two-writers' && r.turnIndex === 1);
    const told = JSON.stringify(next?.body.messages?.at(-1));
    assert.match(told, /It changed in your workspace: one\.txt\./);
    assert.match(told, /It changed in your workspace: two\.txt\./);
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
