import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import { estimateUsd } from '../../src/workflows/principles/cost';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Fallback models (issue 42 item 2) on the real dev server: the scripted endpoint answers 529 to
 * every request for the primary during turns 1 and 2 (a fault for one model: bad-days.ts), so
 * the first turn goes to the fallback after fallbackAfterMs, the second stays there (the primary
 * rests), and the third goes back to the primary once its cool-down is over. Seconds, not minutes.
 */

const PRIMARY = 'claude-sonnet-4-6';
const FALLBACK = 'claude-3-haiku';
const AFTER_MS = 4000;
const COOLDOWN_MS = 2500;
/** The fallback's second turn takes this long: the primary's cool-down is over by the third. */
const SLOW_ANSWER_MS = 2800;
const overloadedPrimary = { kind: 'overloaded' as const, model: PRIMARY, forMs: 600_000 };
const list = { name: 'list_dir', input: { path: '.' } };

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'fallback',
        match: 'GOAL-FALLBACK',
        turns: [
          { toolCalls: [list], faults: [overloadedPrimary] },
          { toolCalls: [list], faults: [overloadedPrimary], delayMs: SLOW_ANSWER_MS },
          { text: 'fallback goal done', thinking: 'the primary thinks again' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test(
  'a fallback takes turns while the primary is overloaded; the primary returns after its cool-down',
  { timeout: 90_000 },
  async () => {
    const workflowId = `model-fallback-${Date.now()}`;
    const { result, events } = await harness.withWorker(async () => {
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [
          {
            goal: 'GOAL-FALLBACK: list the files',
            workspace: tempDirectory(),
            model: {
              name: PRIMARY,
              // Above Claude 3 Haiku's 4,096: its turns are sent its own limit (the server refuses more).
              maxTokens: 8000,
              thinking: { budgetTokens: 2048 },
              fallbacks: [FALLBACK],
              fallbackAfterMs: AFTER_MS,
              fallbackCooldownMs: COOLDOWN_MS,
              patienceMs: 60_000,
            },
            timing: { heartbeatTimeoutMs: 3000, modelRetryCapMs: 200, modelTimeoutMs: 10_000 },
          },
        ],
      });
      const result = await handle.result();
      return { result, events: await handle.query(ledgerQuery, {}) };
    });
    assert.equal(result.status, 'completed', result.reason);
    assert.equal(result.finalText, 'fallback goal done');

    const requests = harness.scripted.requests.filter((request) => request.scenario === 'fallback');
    const answered = requests.filter((request) => request.status === 200);
    assert.deepEqual(
      answered.map((request) => [request.turnIndex, request.body.model]),
      [
        [0, FALLBACK],
        [1, FALLBACK],
        [2, PRIMARY],
      ],
    );
    // The primary was asked for the first turn only until fallbackAfterMs, not for the second.
    const primaryFirst = requests.filter((r) => r.turnIndex === 0 && r.body.model === PRIMARY);
    assert.ok(primaryFirst.length > 1 && primaryFirst.every((r) => r.status === 529));
    const spent = (primaryFirst.at(-1)?.receivedAt ?? 0) - (primaryFirst[0]?.receivedAt ?? 0);
    assert.ok(spent < AFTER_MS + 1000, `the primary was asked for ${spent} ms`);
    assert.equal(requests.filter((r) => r.turnIndex === 1 && r.body.model === PRIMARY).length, 0);
    // The fallback's rules: its output limit, no thinking (Claude 3 Haiku has none); the
    // primary's first turn back continues a tool-use loop the fallback answered: no thinking.
    for (const request of answered.slice(0, 2)) {
      assert.equal(request.body.max_tokens, 4096);
      assert.equal(request.body.thinking, undefined);
    }
    assert.equal(answered[2]?.body.max_tokens, 8000);
    assert.equal(answered[2]?.body.thinking, undefined);

    // The ledger and the result name each turn's model.
    const switches = events.filter((event) => event.kind === 'model.switched');
    assert.deepEqual(
      switches.map((event) => [event.data.turn, event.data.to, event.data.fallback]),
      [
        [1, FALLBACK, true],
        [3, PRIMARY, false],
      ],
    );
    assert.equal(switches[0]?.data.why, 'overloaded');
    assert.deepEqual(result.models?.runs, [
      { model: FALLBACK, fallback: true, firstTurn: 1, lastTurn: 2 },
      { model: PRIMARY, fallback: false, firstTurn: 3, lastTurn: 3 },
    ]);

    // Each turn priced at its own model's rates.
    const usdOf = (model: string) =>
      answered
        .filter((request) => request.body.model === model)
        .reduce((sum, request) => {
          const usage = request.usage;
          if (usage === undefined) return sum;
          return sum + estimateUsd({ usage: { ...usage }, model }).usd;
        }, 0);
    const expected = { [FALLBACK]: usdOf(FALLBACK), [PRIMARY]: usdOf(PRIMARY) };
    for (const [model, usd] of Object.entries(expected)) {
      assert.ok(Math.abs((result.models?.usdByModel[model] ?? -1) - usd) < 1e-9, `${model}: ${usd}`);
    }
    assert.ok(Math.abs(result.stats.usdEstimate - (expected[FALLBACK] + expected[PRIMARY])) < 1e-9);
    const allAtPrimary = estimateUsd({ usage: result.usage, model: PRIMARY }).usd;
    assert.ok(result.stats.usdEstimate < allAtPrimary, 'cheaper than pricing every turn at the primary');
  },
);
