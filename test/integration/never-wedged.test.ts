import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

const READS = 20;
let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'big-reads',
        match: 'GOAL-BIG-READS',
        turns: [
          ...Array.from({ length: READS }, () => ({
            toolCalls: [{ name: 'read_file', input: { path: 'big.txt' } }],
          })),
          { text: 'Read it twenty times.' },
        ],
      },
      { name: 'huge-answer', match: 'GOAL-HUGE-ANSWER', turns: [{ text: `START${'z'.repeat(3_000_000)}` }] },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test(
  'twenty reads of a 93 KB file complete: the context stays within budget, no request near 2 MB',
  { timeout: 240_000 },
  async () => {
    const workspace = tempDirectory('keel-big-reads-');
    // 1,000 lines of 92 characters: about 93 KB, which read_file returns whole.
    writeFileSync(path.join(workspace, 'big.txt'), `${'b'.repeat(92)}\n`.repeat(1000));
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `big-reads-${Date.now()}`,
      // The same read twenty times is what the loop guard exists to stop; here it is the load.
      args: [{ goal: 'GOAL-BIG-READS: read big.txt again and again', workspace, guards: { enabled: false } }],
    });
    const result = await harness.withWorker(() => handle.result());
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'Read it twenty times.');
    assert.equal(result.counters.toolCalls, READS);

    const requests = harness.scripted.requests.filter((request) => request.scenario === 'big-reads');
    const sizes = requests.map((request) => JSON.stringify(request.body).length);
    // Without the budget the last requests carried ~1.9 MB of transcript and the goal wedged.
    assert.ok(Math.max(...sizes) < 600_000, `largest request ${Math.max(...sizes)} characters`);
    const lastRequest = JSON.stringify(requests.at(-1)?.body.messages);
    assert.match(lastRequest, /Elided by keel to keep the context within its budget/);
    const trimmed = (await harness.withWorker(() => handle.query(ledgerQuery))).filter(
      (event) => event.kind === 'context.trimmed',
    );
    assert.ok(trimmed.length >= 1);
    assert.ok(Number(trimmed[0]?.data.charsAfter) <= 400_000);
  },
);

test(
  'a 3 MB model answer is cut once and recorded: no repeated model calls',
  { timeout: 120_000 },
  async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `huge-answer-${Date.now()}`,
      // A 3 MB answer alone costs more than keel's default $5 budget: what is under test is the cut.
      args: [
        {
          goal: 'GOAL-HUGE-ANSWER: say a lot',
          workspace: tempDirectory('keel-huge-answer-'),
          principles: { budget: { unlimited: true } },
        },
      ],
    });
    const result = await harness.withWorker(() => handle.result());
    assert.equal(result.status, 'completed');
    assert.match(result.finalText ?? '', /^STARTz+/);
    assert.match(result.finalText ?? '', /over the 200000-character limit, and was cut/);
    const calls = harness.scripted.requests.filter((request) => request.scenario === 'huge-answer');
    assert.equal(calls.length, 1, 'the model was asked once');
  },
);
