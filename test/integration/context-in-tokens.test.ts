import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RecordedRequest } from '../../src/scripted-model/scripted-messages-server';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * The context budget in tokens (issue 42 item 5), against the strict loopback server, which
 * counts dense text as tokenizers do (token-count.ts: minified JSON about two characters a token)
 * and refuses a request over its window ("prompt is too long") or stops an answer at it
 * (model_context_window_exceeded). The window is small here so a few files fill it.
 */

const WINDOW = 24_000;
/** Files of about 3,000 tokens each (6,000 characters of minified JSON) read one a turn. */
const SMALL_FILES = 10;
/** Files of about 6,000 tokens each. */
const LARGE_FILES = 3;

function denseJson(seed: number, rows: number): string {
  const entries = Array.from({ length: rows }, (_, index) => ({
    id: `${seed}-${index}`,
    sha: ((seed + 1) * 2_654_435_761 * (index + 1)).toString(36).padStart(12, 'q'),
    tags: ['α', 'b', 'c'].map((tag) => `${tag}${index % 7}`),
  }));
  return JSON.stringify(entries);
}

const LONG_ANSWER = Array.from(
  { length: 440 },
  (_, index) => `Finding ${index + 1} is written out in full.`,
).join(' ');

let harness: Harness;

before(async () => {
  harness = await createHarness({
    contextWindowTokens: WINDOW,
    scenarios: [
      {
        name: 'dense-reads',
        match: 'GOAL-DENSE-READS',
        turns: [
          ...Array.from({ length: SMALL_FILES }, (_, index) => ({
            toolCalls: [{ name: 'read_file', input: { path: `small-${index}.json` } }],
          })),
          { text: 'read them all' },
        ],
      },
      {
        name: 'window-full',
        match: 'GOAL-WINDOW-FULL',
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: 'data-0.json' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'data-1.json' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'data-2.json' } }] },
          { text: LONG_ANSWER },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function workspaceWithDenseFiles(): string {
  const workspace = tempDirectory();
  for (let index = 0; index < SMALL_FILES; index += 1)
    writeFileSync(path.join(workspace, `small-${index}.json`), denseJson(index, 90));
  for (let index = 0; index < LARGE_FILES; index += 1)
    writeFileSync(path.join(workspace, `data-${index}.json`), denseJson(index, 180));
  return workspace;
}

function start(goal: string, extra: Partial<GoalInput>) {
  return harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${goal.split(':')[0]?.toLowerCase()}-${Date.now()}`,
    args: [{ goal, workspace: workspaceWithDenseFiles(), ...extra }],
  });
}

function requestsOf(scenario: string): RecordedRequest[] {
  return harness.scripted.requests.filter((request) => request.scenario === scenario);
}

function inputTokens(request: RecordedRequest): number {
  const usage = request.usage;
  return usage ? usage.inputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens : 0;
}

test(
  'a transcript of dense JSON never exceeds the window: the budget counts tokens, not characters',
  { timeout: 60_000 },
  async () => {
    await harness.withWorker(async () => {
      // The character budget alone (400,000) would send all ten files: some 32,000 tokens.
      const handle = await start('GOAL-DENSE-READS: read the data files', {
        model: { contextWindowTokens: WINDOW, maxTokens: 2048 },
      });
      const result = await handle.result();
      assert.equal(result.status, 'completed');
      assert.equal(result.finalText, 'read them all');
      const requests = requestsOf('dense-reads');
      assert.deepEqual(
        requests.map((request) => request.rejection ?? request.status),
        requests.map(() => 200),
        'no request refused as too long',
      );
      const largest = Math.max(...requests.map(inputTokens));
      assert.ok(largest <= WINDOW - 2048, `the largest request held ${largest} tokens`);
      const ledger = await handle.query(ledgerQuery, {});
      const trims = ledger.filter((event) => event.kind === 'context.trimmed');
      assert.ok(trims.length >= 1, 'the context was trimmed');
      assert.match(
        trims[0]?.summary ?? '',
        /to fit the model's window: about \d+ tokens expected, \d+ allowed/,
      );
      // Each trim leaves a quarter of the allowance free: the next comes turns later.
      assert.ok(trims.length <= 3, `trimmed rarely, in large steps: ${trims.length} trims in 11 turns`);
      // Without a fleet-wide request limit, model calls stay on the goal's own queue, where the
      // SDK starts them without another poll (goal/model-turn/retry-policy.ts).
      const { events } = await handle.fetchHistory();
      const queues = (events ?? []).flatMap((event) => {
        const scheduled = event.activityTaskScheduledEventAttributes;
        return scheduled?.activityType?.name === 'callModel' ? [scheduled.taskQueue?.name] : [];
      });
      assert.deepEqual([...new Set(queues)], [harness.taskQueue]);
    });
  },
);

test(
  'a window the goal was not told of: one refusal, then one large trim by its figures, and the goal goes on',
  { timeout: 60_000 },
  async () => {
    await harness.withWorker(async () => {
      // keel takes the model's window to be 200,000 tokens; the endpoint's is 24,000.
      const handle = await start('GOAL-DENSE-READS: read the data files', { model: { maxTokens: 2048 } });
      const result = await handle.result();
      assert.equal(result.status, 'completed');
      const refused = requestsOf('dense-reads').filter((request) => request.status === 400);
      assert.ok(refused.length >= 1, 'the endpoint refused at least once');
      for (const request of refused) assert.match(request.rejection ?? '', /prompt is too long/);
      const ledger = await handle.query(ledgerQuery, {});
      const trims = ledger.filter((event) => /too long for its context window/.test(event.summary));
      assert.equal(trims.length, refused.length, 'each refusal trimmed once, and that was enough');
    });
  },
);

test(
  'an answer that runs into the end of the window: the request is trimmed once and asked again, never with more room',
  { timeout: 60_000 },
  async () => {
    await harness.withWorker(async () => {
      // Told a larger window than the endpoint's, so the request goes; the long answer then
      // does not fit behind it.
      const handle = await start('GOAL-WINDOW-FULL: read and report', {
        model: { contextWindowTokens: 40_000, maxTokens: 4096 },
      });
      const result = await handle.result();
      assert.equal(result.status, 'completed');
      assert.equal(result.finalText, LONG_ANSWER, 'the answer came whole, not as a continued cut');
      const last = requestsOf('window-full').filter((request) => request.turnIndex === 3);
      assert.equal(last.length, 2, 'asked once more');
      assert.deepEqual(
        last.map((request) => request.body.max_tokens),
        [4096, 4096],
        'no more output room',
      );
      const [full, retried] = last.map(inputTokens);
      assert.ok((retried ?? 0) < (full ?? 0), `trimmed: ${full} → ${retried} tokens`);
      const ledger = await handle.query(ledgerQuery, {});
      assert.ok(
        ledger.some((event) => /ran into the end of its context window/.test(event.summary)),
        'the ledger says why it was trimmed',
      );
      assert.ok(!ledger.some((event) => event.kind === 'model.answer_cut'), 'never read as max_tokens');
    });
  },
);
