import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalResult } from '../../src/client/goal-client';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { DEFAULT_MAX_USD } from '../../src/workflows/principles/budget';
import { JUDGE_TOOL_NAME } from '../../src/workflows/principles/progress-judge';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

// Issue 44: runaways the counting guards see as progress (a new attempt-N.txt at every call). With
// success criteria the progress judge stops one; with no budget set anywhere, keel's default cost
// budget does, after its 70% and 90% warnings. Checkpoints are off so that only these act.

const CRITERIA = ['src/main.ts calls renamed() instead of old()'];

/** A new attempt file at every call, with narration that never repeats; `filler` makes turns long. */
function attemptsForever(filler: string): ScenarioInput['turns'] {
  return [
    ...Array.from({ length: 45 }, (_, index) => ({
      text: `Attempt ${index + 1}: trying approach ${index * 7 + 3}. ${filler}`,
      toolCalls: [
        {
          name: 'write_file',
          input: {
            path: `attempt-${index + 1}.txt`,
            content: `attempt ${index + 1}, approach ${index * 7 + 3}\n`,
          },
        },
      ],
    })),
    { text: 'never reached' },
  ];
}

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'judged-runaway',
        match: 'GOAL-JUDGED-RUNAWAY',
        turns: attemptsForever(''),
        structured: [
          {
            tool: JUDGE_TOOL_NAME,
            when: 'attempt-',
            input: { advanced: false, confidence: 0.95, reason: 'only new attempt files; main.ts untouched' },
          },
        ],
      },
      {
        name: 'budget-runaway',
        match: 'GOAL-BUDGET-RUNAWAY',
        // About 2,000 tokens of narration a turn: on claude-opus-4-1 the goal's spend grows by under
        // 10% of the default budget per turn, so each warning comes in a turn of its own.
        turns: attemptsForever('Weighing the options once more. '.repeat(240)),
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function workspace(): string {
  const directory = tempDirectory('keel-runaway-');
  writeFileSync(path.join(directory, 'main.ts'), 'export const main = () => old();\n');
  return directory;
}

async function run(goal: string, extra: Partial<GoalInput>) {
  return harness.withWorker(async () => {
    const workflowId = `${goal.toLowerCase()}-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: `${goal}: rename old() to renamed()`,
          workspace: workspace(),
          principles: { cadence: { every: 0 } },
          ...extra,
        },
      ],
    });
    const result = await goalResult(handle);
    const ledger = await harness.client.workflow.getHandle(workflowId).query(ledgerQuery, {});
    return { result, ledger };
  });
}

const requestsOf = (scenario: string) =>
  harness.scripted.requests.filter((request) => request.scenario === scenario);
const sentText = (scenario: string) =>
  JSON.stringify(requestsOf(scenario).map((request) => request.body.messages));

test('a runaway writing attempt-N.txt forever is warned, then stopped by the progress judge; its verdicts are in the ledger', async () => {
  const { result, ledger } = await run('GOAL-JUDGED-RUNAWAY', { successCriteria: CRITERIA });
  assert.equal(result.status, 'stuck');
  assert.match(
    result.reason ?? '',
    /stopped by a guard: judge: \d+ more calls advanced no success criterion/,
  );
  assert.ok(result.counters.toolCalls <= 12, `stopped after ${result.counters.toolCalls} calls`);

  const verdicts = ledger.filter((event) => event.kind === 'judge.verdict');
  assert.equal(verdicts.length, 2);
  for (const verdict of verdicts) {
    assert.equal(verdict.data.advanced, false);
    assert.equal(verdict.data.confidence, 0.95);
    assert.equal(verdict.data.model, 'claude-haiku-4-5');
    assert.ok(Number(verdict.data.tokens) > 0, 'what the verdict cost is measured');
  }
  assert.deepEqual(
    verdicts.map((verdict) => verdict.data.action),
    ['warn', 'stop'],
  );
  const judged = ledger.filter((event) => event.kind.startsWith('guard.') && event.data.guard === 'judge');
  assert.deepEqual(
    judged.map((event) => event.kind),
    ['guard.warned', 'guard.stopped'],
  );
  // The warning reached the model before the stop.
  assert.match(
    sentText('judged-runaway'),
    /\[Guard: progress judge\] An independent review of your last \d+ tool calls/,
  );

  // The judge's calls: the cheaper model, its forced tool, and under 5% of the goal's tokens.
  const judgeCalls = requestsOf('judged-runaway').filter(
    (request) => request.structuredTool === JUDGE_TOOL_NAME,
  );
  assert.equal(judgeCalls.length, 2);
  for (const call of judgeCalls) assert.equal(call.body.model, 'claude-haiku-4-5');
  const judgeTokens = verdicts.reduce((sum, verdict) => sum + Number(verdict.data.tokens), 0);
  const goalTokens =
    result.usage.inputTokens +
    result.usage.outputTokens +
    result.usage.cacheCreationInputTokens +
    result.usage.cacheReadInputTokens;
  assert.ok(judgeTokens < goalTokens * 0.05, `judge ${judgeTokens} of ${goalTokens} tokens`);
});

test('with no budget set anywhere, the default cost budget warns at 70% and 90% and then ends the runaway', async () => {
  // An expensive model, so the default's $5 comes within the turn limit.
  const { result, ledger } = await run('GOAL-BUDGET-RUNAWAY', { model: { name: 'claude-opus-4-1' } });
  assert.equal(result.status, 'budget_exhausted');
  assert.match(result.reason ?? '', new RegExp(`usd budget exhausted \\([\\d.]+ of ${DEFAULT_MAX_USD}\\)`));
  assert.ok(result.counters.modelTurns < 45, 'ended by the budget, not by the turn limit');
  const budgetEvents = ledger.filter((event) => event.kind.startsWith('budget.'));
  assert.deepEqual(
    budgetEvents.map((event) => `${event.kind} ${String(event.data.key ?? event.data.dimension)}`),
    ['budget.warning usd@0.7', 'budget.warning usd@0.9', 'budget.exhausted usd'],
  );
  // Each warning was given in a turn of its own, and the model received both.
  const atCall = budgetEvents.map((event) => Number(event.data.atToolCall));
  assert.ok(atCall[0]! < atCall[1]! && atCall[1]! < atCall[2]!, atCall.join(' < '));
  const sent = sentText('budget-runaway');
  assert.match(sent, /\[budget\] cost budget [78]\d% used \(\$[\d.]+ of \$5\.00\)/);
  assert.match(sent, /\[budget\] cost budget 9\d% used \(\$[\d.]+ of \$5\.00\)/);
  // No success criteria: the judge watched nothing and cost nothing.
  assert.equal(ledger.filter((event) => event.kind === 'judge.verdict').length, 0);
  assert.equal(
    requestsOf('budget-runaway').filter((request) => request.structuredTool !== undefined).length,
    0,
  );
});
