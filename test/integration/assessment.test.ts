import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { BELIEF_MARKER } from '../../src/workflows/planning/consolidation';
import { denySignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalResult } from '../../src/client/goal-client';
import { budgetLines } from '../../src/cli/budget-lines';
import { formatAmount } from '../../src/workflows/goal/views/details';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

const list = { name: 'list_dir', input: { path: '.' } };

let harness: Harness;

before(async () => {
  harness = await createHarness({
    // this worker's own default cadence, as KEEL_REFLECTION_CADENCE would set it
    reflectionCadence: 2,
    scenarios: [
      {
        name: 'long-context',
        match: 'GOAL-LONG-CONTEXT',
        turns: [
          ...Array.from({ length: 6 }, () => ({ text: 'x'.repeat(400), toolCalls: [list] })),
          { text: 'done' },
        ],
        structured: [
          {
            tool: 'submit_belief',
            input: { kind: 'agent.reflected', text: 'The workspace holds one file.' },
          },
        ],
      },
      {
        name: 'stalled',
        match: 'GOAL-STALLED',
        turns: [
          // The first listing is new information (progress at cycle 1, issue 44's one notion of
          // progress), so the assessment at 8 sees progress; the one at 16 sees 15 stagnant cycles.
          ...Array.from({ length: 16 }, () => ({ toolCalls: [list] })),
          { text: 'finished after the sub-goals' },
        ],
        structured: [
          {
            tool: 'submit_subgoals',
            input: {
              subGoals: [{ goal: 'GOAL-SUB-ONE: first half' }, { goal: 'GOAL-SUB-TWO: second half' }],
            },
          },
        ],
      },
      {
        // As 'stalled', on a budget of 20 tool calls: 16 spent before the split, 4 left to carve.
        name: 'stalled-budget',
        match: 'GOAL-BUDGET-SPLIT',
        turns: [
          ...Array.from({ length: 16 }, () => ({ toolCalls: [list] })),
          { text: 'went on past the budget' },
        ],
        structured: [
          {
            tool: 'submit_subgoals',
            input: {
              subGoals: [{ goal: 'GOAL-SUB-THRIFTY: three listings' }, { goal: 'GOAL-SUB-HUNGRY: many' }],
            },
          },
        ],
      },
      {
        name: 'sub-thrifty',
        match: 'GOAL-SUB-THRIFTY',
        turns: [{ toolCalls: [list] }, { toolCalls: [list] }, { toolCalls: [list] }, { text: 'three done' }],
      },
      {
        name: 'sub-hungry',
        match: 'GOAL-SUB-HUNGRY',
        turns: [...Array.from({ length: 6 }, () => ({ toolCalls: [list] })), { text: 'hungry done' }],
      },
      { name: 'sub-one', match: 'GOAL-SUB-ONE', turns: [{ text: 'first half done' }] },
      { name: 'sub-two', match: 'GOAL-SUB-TWO', turns: [{ text: 'second half done' }] },
      {
        name: 'ineffective',
        match: 'GOAL-INEFFECTIVE',
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: 'missing-one.md' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'missing-two.md' } }] },
          { text: 'giving up on those files' },
        ],
      },
      {
        // Two commands whose text names no deletion: each runs on a layer and waits with the
        // deletion it made held there (a command that names one waits before it runs).
        name: 'denied-held',
        match: 'GOAL-DENIED-HELD',
        turns: [
          {
            toolCalls: [{ name: 'run_command', input: { command: 'touch made-one.txt && rm old-one.txt' } }],
          },
          {
            toolCalls: [{ name: 'run_command', input: { command: 'touch made-two.txt && rm old-two.txt' } }],
          },
          { text: 'left the files alone' },
        ],
      },
      {
        name: 'worker-cadence',
        match: 'GOAL-WORKER-CADENCE',
        turns: [{ toolCalls: [list] }, { toolCalls: [list] }, { text: 'done' }],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function run(goal: string, extra: Record<string, unknown> = {}) {
  return harness.withWorker(async () => {
    const workflowId = `${goal.toLowerCase()}-${Date.now()}`;
    const result = await harness.client.workflow.execute(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: `${goal}: keep listing`, workspace: tempDirectory(), ...extra }],
    });
    return { result, ledger: await harness.client.workflow.getHandle(workflowId).query(ledgerQuery, {}) };
  });
}

test('self-assessment under memory pressure condenses old turns into one belief, keeping a valid conversation', async () => {
  const { result, ledger } = await run('GOAL-LONG-CONTEXT', {
    assessment: { interval: 2, contextBudgetChars: 3000, keepLatestMessages: 2 },
    principles: { cadence: { every: 0 } },
    // the filler repeats one listing on purpose; the loop guard would rightly stop it at the 5th
    guards: { loop: { enabled: false } },
  });
  assert.equal(result.status, 'completed');
  assert.ok(result.stats.assessments >= 2);
  assert.ok(result.stats.consolidations >= 1);
  const belief = ledger.find((event) => event.kind === 'agent.reflected');
  assert.equal(belief?.data.text, 'The workspace holds one file.');
  assert.ok(ledger.some((event) => event.kind === 'assessment.completed'));

  const requests = harness.scripted.requests.filter((r) => r.scenario === 'long-context' && r.turnIndex >= 0);
  const condensed = requests.find((r) => JSON.stringify(r.body.messages?.[0]).includes(BELIEF_MARKER));
  assert.ok(condensed, 'a later request carries the belief in its first message');
  const messages = (condensed.body.messages ?? []) as Array<{
    role: string;
    content: Array<{ type: string; id?: string; tool_use_id?: string }>;
  }>;
  assert.ok(messages.length < 1 + 2 * 6, 'fewer messages than without consolidation');
  // roles alternate and every tool_result answers a tool_use of the message before it
  messages.forEach((message, index) => {
    assert.equal(message.role, index % 2 === 0 ? 'user' : 'assistant');
    const previous = messages[index - 1];
    for (const block of message.content.filter((b) => b.type === 'tool_result')) {
      assert.ok(
        previous?.content.some((b) => b.type === 'tool_use' && b.id === block.tool_use_id),
        'paired tool_result',
      );
    }
  });
});

test("the worker's default cadence applies when the goal sets none; the goal's own 0 overrides it", async () => {
  const byWorker = await run('GOAL-WORKER-CADENCE');
  assert.equal(byWorker.ledger.find((event) => event.kind === 'goal.started')?.data.cadence, 2);
  assert.equal(byWorker.result.stats.checkpoints, 1);
  const disabled = await run('GOAL-WORKER-CADENCE', { principles: { cadence: { every: 0 } } });
  assert.equal(disabled.ledger.find((event) => event.kind === 'goal.started')?.data.cadence, 0);
  assert.equal(disabled.result.stats.checkpoints, 0);
});

test('a stalled goal with spawnSubGoals pursues its sub-goals as child goal workflows', async () => {
  const { result, ledger } = await run('GOAL-STALLED', {
    assessment: { interval: 8, spawnSubGoals: true },
    principles: { cadence: { every: 0 } },
    // stalling by repeating one listing is the point here; the loop guard would stop it at the 5th,
    // the stagnation guard at the 10th
    guards: { loop: { enabled: false }, stagnation: { enabled: false } },
    approvalRules: [{ tool: 'write_file', effect: 'forbid', reason: 'nothing written in this test' }],
  });
  assert.equal(result.status, 'completed');
  assert.equal(result.finalText, 'finished after the sub-goals');
  const spawned = ledger.find((event) => event.kind === 'subgoals.spawned');
  const children = (spawned?.data.subGoals ?? []) as Array<{ workflowId: string }>;
  assert.equal(children.length, 2);
  // A worker answers the children's ledger queries (run's has stopped).
  await harness.withWorker(async () => {
    for (const child of children) {
      const handle = harness.client.workflow.getHandle(child.workflowId);
      const description = await handle.describe();
      assert.equal(description.status.name, 'COMPLETED');
      assert.ok(description.parentExecution, 'a child of the stalled goal');
      // Sub-goals are delegated children (issue 47, one mechanism): the parent's rules bind them.
      const inherited = (await handle.query(ledgerQuery, {})).filter(
        (event) => event.kind === 'approval.rule_added' && event.summary.includes('inherited from'),
      );
      assert.equal(inherited.length, 1, `${child.workflowId} took the parent's forbid rule`);
    }
  });
  assert.deepEqual(
    ledger.filter((event) => event.kind === 'subgoal.finished').map((event) => event.data.status),
    ['completed', 'completed'],
  );
  // The split comes at the assessment of cycle 16: the next request tells the model the outcome.
  const afterSplit = harness.scripted.requests.find((r) => r.scenario === 'stalled' && r.turnIndex === 16);
  const told = JSON.stringify(afterSplit?.body.messages?.at(-1));
  assert.match(told, /first half done/);
  assert.match(told, /second half done/);
});

test("sub-goals run on what is left of the parent's budget, and their spend is the parent's (issue 47)", async () => {
  await harness.withWorker(async () => {
    const workflowId = `goal-stalled-budget-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-BUDGET-SPLIT: keep listing',
          workspace: tempDirectory(),
          assessment: { interval: 8, spawnSubGoals: true },
          principles: { cadence: { every: 0 }, budget: { maxToolCalls: 20 } },
          guards: { loop: { enabled: false }, stagnation: { enabled: false } },
        },
      ],
    });
    const result = await goalResult(handle);
    const ledger = await handle.query(ledgerQuery, {});
    const finished = ledger.filter((event) => event.kind === 'subgoal.finished').map((event) => event.data);
    // The first child was given the 4 calls left and used 3; the second the 1 left, and its
    // budget ended it there instead of at its sixth listing.
    const spent = finished.map((data) => data.spent as { tokens: number; usd: number; toolCalls: number });
    const budgets = finished.map((data) => data.budget as { maxToolCalls: number; maxUsd: number });
    assert.deepEqual(
      finished.map((data, index) => [data.status, budgets[index]?.maxToolCalls, spent[index]?.toolCalls]),
      [
        ['completed', 4, 3],
        ['budget_exhausted', 1, 1],
      ],
    );
    // keel's default $5 is carved too: the second child started on what the parent and the first left.
    const [first, second] = spent;
    assert.ok(first && second && first.usd > 0 && second.usd > 0);
    assert.ok(budgets[0] && budgets[1] && budgets[1].maxUsd < budgets[0].maxUsd - first.usd + 1e-9);
    // 16 own calls and 4 of its children's: the parent's budget is spent, whatever its model says.
    assert.equal(result.status, 'budget_exhausted');
    assert.match(result.reason ?? '', /tool-calls budget exhausted \(20 of 20\)/);
    assert.equal(result.counters.toolCalls, 16, "the parent's own counter counts its own calls");
    assert.deepEqual(
      { children: result.childSpend?.children, toolCalls: result.childSpend?.toolCalls },
      { children: 2, toolCalls: 4 },
    );
    const status = await handle.query(goalStatusQuery);
    assert.ok(
      status.budget?.some((use) => use.dimension === 'tool-calls' && use.spent === 20 && use.limit === 20),
    );
    assert.ok((status.childSpend?.tokens ?? 0) > 0, "the children's tokens are counted");
    // The Web UI's details say it too, beside the goal's own counts.
    const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    assert.match(
      currentDetails,
      /- Sub-goals 2: tool calls 4, tokens [\d,]+, ~[\d.]+ USD \(in the cost and the budget\)/,
    );
    // `keel status` says which part of the spend was the sub-goals'.
    assert.deepEqual(
      budgetLines(status).filter((line) => line.startsWith('of which')),
      [
        `of which sub-goals (2): usd ${formatAmount('usd', status.childSpend?.usd ?? 0)}; tokens ${formatAmount('tokens', status.childSpend?.tokens ?? 0)}; tool-calls 4`,
      ],
    );
  });
});

test('the self-assessment tells the model which tools keep failing, not only the ledger', async () => {
  const { result, ledger } = await run('GOAL-INEFFECTIVE', {
    assessment: { interval: 2 },
    principles: { cadence: { every: 0 } },
  });
  assert.equal(result.status, 'completed');
  const assessed = ledger.find((event) => event.kind === 'assessment.completed');
  assert.deepEqual((assessed?.data.findings as { ineffectiveTools: string[] }).ineffectiveTools, [
    'read_file',
  ]);
  const third = harness.scripted.requests.find((r) => r.scenario === 'ineffective' && r.turnIndex === 2);
  assert.match(
    JSON.stringify(third?.body.messages?.at(-1)),
    /\[Self-assessment\] These tools keep failing: read_file \(0 of 2 calls succeeded\)/,
  );
});

test('denied calls are no failures: not "keep failing", not a tighter cadence twice, not the step\'s failures (issue 44)', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    for (const name of ['old-one.txt', 'old-two.txt']) writeFileSync(path.join(workspace, name), 'old');
    const workflowId = `goal-denied-held-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-DENIED-HELD: tidy up',
          workspace,
          sandbox: { network: false },
          assessment: { interval: 2 },
          // From 4, each denial halves the cadence once (4 → 2 → 1): the first checkpoint comes
          // after the second call. A denial also counted as a failed call would halve it twice
          // (4 → 1) and bring a checkpoint after the first.
          principles: { cadence: { every: 4, dynamic: { min: 1, max: 8 } } },
        },
      ],
    });
    for (const command of ['touch made-one.txt && rm old-one.txt', 'touch made-two.txt && rm old-two.txt']) {
      const waiting = await eventually(async () => {
        const view = await handle.query(goalStatusQuery);
        return view.pendingApprovals.find((approval) => approval.summary === `run_command: ${command}`);
      });
      await handle.signal(denySignal, { callId: waiting?.callId ?? '', approver: 'carol' });
    }
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.counters.approvalsDenied, 2);
    const ledger = await handle.query(ledgerQuery, {});
    const assessed = ledger.find((event) => event.kind === 'assessment.completed');
    assert.ok(assessed, 'the assessment at cycle 2 ran');
    assert.deepEqual((assessed.data.findings as { ineffectiveTools: string[] }).ineffectiveTools, []);

    const checkpoints = ledger.filter((event) => event.kind === 'reflection.checkpoint');
    assert.deepEqual(
      checkpoints.map((event) => event.data.atToolCall),
      [2],
      'one halving per denial: the first checkpoint after the second call',
    );
    const third = harness.scripted.requests.find((r) => r.scenario === 'denied-held' && r.turnIndex === 2);
    assert.doesNotMatch(JSON.stringify(third?.body.messages), /keep failing/);
  });
});
