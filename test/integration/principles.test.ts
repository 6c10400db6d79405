import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { CHECKPOINT_MARKER } from '../../src/workflows/principles/cadence';
import { totalTokens } from '../../src/workflows/principles/cost';
import { HYPOTHESIS_MISMATCH_MARKER } from '../../src/workflows/principles/hypothesis';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import { goalResult } from '../../src/client/goal-client';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

const list = { name: 'list_dir', input: { path: '.' } };
const answers =
  '1. The plan still matches the task. 2. The listing proved the file exists. 3. Next output: the summary.';

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'hypothesis',
        match: 'GOAL-HYPOTHESIS',
        turns: [
          {
            toolCalls: [
              { name: 'search', input: { pattern: 'TODO', hypothesis: 'I expect to find a match for TODO' } },
            ],
          },
          { text: 'No TODOs after all.' },
        ],
      },
      {
        name: 'cadence',
        match: 'GOAL-CADENCE',
        turns: [
          { toolCalls: [list] },
          { toolCalls: [list, list] },
          { text: answers, toolCalls: [list] },
          { text: 'done' },
        ],
      },
      {
        name: 'enforced',
        match: 'GOAL-ENFORCED',
        turns: [
          { toolCalls: [list, list] },
          { text: 'Carrying on.', toolCalls: [list] },
          { text: answers, toolCalls: [list] },
          { text: 'done' },
        ],
      },
      {
        name: 'budget-ahead',
        match: 'GOAL-AHEAD',
        turns: [{ toolCalls: [{ name: 'read_file', input: { path: 'big.log' } }] }, { text: 'never asked' }],
      },
      {
        name: 'budget',
        match: 'GOAL-BUDGET',
        turns: [{ toolCalls: [list, list] }, { toolCalls: [list] }, { text: 'never asked' }],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function run(goal: string, extra: Partial<GoalInput> = {}) {
  const workspace = tempDirectory('keel-principles-');
  writeFileSync(path.join(workspace, 'notes.md'), 'nothing to do here\n');
  writeFileSync(
    path.join(workspace, 'big.log'),
    'a long log line that says nothing at all, again\n'.repeat(1200),
  );
  return harness.withWorker(async () => {
    const workflowId = `${goal.toLowerCase()}-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: `${goal}: exercise a principle`, workspace, ...extra }],
    });
    const result = await goalResult(handle); // an exhausted budget fails the workflow, result in its details
    const ledger = await harness.client.workflow.getHandle(workflowId).query(ledgerQuery, {});
    return { result, ledger };
  });
}

/** The last message of the request for one scenario turn, among requests from index `since` on. */
const requestFor = (scenario: string, turnIndex: number, since = 0) =>
  JSON.stringify(
    harness.scripted.requests
      .slice(since)
      .find((r) => r.scenario === scenario && r.turnIndex === turnIndex)
      ?.body.messages?.at(-1),
  );

test('hypothesis-first: a clear mismatch injects a reflection prompt and is counted', async () => {
  const { result, ledger } = await run('GOAL-HYPOTHESIS');
  assert.equal(result.stats.hypothesesGiven, 1);
  assert.equal(result.stats.hypothesisMismatches, 1);
  const next = requestFor('hypothesis', 1);
  assert.ok(next.includes(HYPOTHESIS_MISMATCH_MARKER), next);
  assert.ok(ledger.some((event) => event.kind === 'hypothesis.mismatch'));
});

test('actionable failure: a failed tool result carries its candidate next actions, and can be switched off', async () => {
  await run('GOAL-HYPOTHESIS');
  assert.match(requestFor('hypothesis', 1), /Candidate next actions:/);
  const since = harness.scripted.requests.length;
  await run('GOAL-HYPOTHESIS', { principles: { actionableFailure: false } });
  assert.doesNotMatch(requestFor('hypothesis', 1, since), /Candidate next actions:/);
});

test('cadence 3: the checkpoint follows the third tool call, quotes the task, and the answer is tracked', async () => {
  const { result, ledger } = await run('GOAL-CADENCE', {
    principles: { cadence: { every: 3, trackResponses: true } },
  });
  assert.ok(!requestFor('cadence', 1).includes(CHECKPOINT_MARKER), 'not after the first call');
  const afterThird = requestFor('cadence', 2);
  assert.ok(afterThird.includes(CHECKPOINT_MARKER), 'right after the third call');
  assert.match(afterThird, /3 tool calls since the last checkpoint/);
  assert.match(afterThird, /GOAL-CADENCE: exercise a principle/);
  // the checkpoint comes after that turn's tool results, in the same user message
  assert.ok(afterThird.indexOf('tool_result') < afterThird.indexOf(CHECKPOINT_MARKER));
  assert.equal(result.stats.checkpoints, 1);
  assert.equal(result.stats.reflectionResponseRate, 1);
  assert.ok(ledger.some((event) => event.kind === 'reflection.checkpoint'));
  // read-only to mutating ratio is recorded (nothing mutated here)
  assert.equal(result.stats.explorationRatio, null);
});

test('cadence 0 disables checkpoints', async () => {
  const { result } = await run('GOAL-CADENCE', { principles: { cadence: { every: 0 } } });
  assert.equal(result.stats.checkpoints, 0);
});

test('hard enforcement: tool calls are returned unexecuted until the checkpoint is answered', async () => {
  const { result } = await run('GOAL-ENFORCED', { principles: { cadence: { every: 2, enforce: true } } });
  assert.match(requestFor('enforced', 2), /checkpoint/i);
  // 2 calls, then 1 held back, then 1 run once the reply answered the questions
  assert.equal(result.counters.toolCalls, 3);
  assert.equal(result.stats.checkpointsAddressed, 1);
});

test('cost awareness: a warning rides on a tool result, and the budget ends the goal at 100%', async () => {
  const { result, ledger } = await run('GOAL-BUDGET', {
    principles: { budget: { maxToolCalls: 3, warnAt: [0.6] } },
  });
  assert.equal(result.status, 'budget_exhausted');
  assert.match(result.reason ?? '', /tool-calls budget exhausted/);
  assert.match(requestFor('budget', 1), /\[budget\] /);
  assert.equal(
    harness.scripted.requests.filter((r) => r.scenario === 'budget' && r.turnIndex === 2).length,
    0,
    'the model is not asked again',
  );
  assert.ok(ledger.some((event) => event.kind === 'budget.warning'));
  assert.ok(ledger.some((event) => event.kind === 'budget.exhausted'));
  assert.ok(result.stats.usdEstimate > 0, 'token cost is estimated from usage');
});

test('a model request that alone would cross the token budget is not sent: the goal ends ahead of it', async () => {
  const maxTokens = 12_000;
  const { result, ledger } = await run('GOAL-AHEAD', { principles: { budget: { maxTokens } } });
  assert.equal(result.status, 'budget_exhausted');
  assert.match(
    result.reason ?? '',
    /tokens budget exhausted ahead of the next model request \(\d+ spent and about \d+ to send, of 12000\)/,
  );
  // The first request was sent and answered; the second, with the 57 KB file in it, never was.
  const sent = harness.scripted.requests.filter((request) => request.scenario === 'budget-ahead');
  assert.deepEqual(
    sent.map((request) => request.turnIndex),
    [0],
  );
  const spent = totalTokens(result.usage);
  assert.ok(spent <= maxTokens, `spent ${spent} of ${maxTokens}`);
  const exhausted = ledger.find((event) => event.kind === 'budget.exhausted');
  assert.equal(exhausted?.data.ahead, true);
  assert.ok(Number(exhausted?.data.expected) > 12_000 - Number(exhausted?.data.spent));
});
