import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addChildSpend,
  carveChildBudget,
  type CarvableBudget as Budget,
  type ChildResultSpend,
  spendOfChild,
  withChildSpend,
} from '../../src/workflows/goal/oversight/child-budget';

const spent = { tokens: 1_000, usd: 0.5, wallTimeMs: 60_000, toolCalls: 16 };

test('a child gets what is left of each limit, not the whole budget', () => {
  const parent: Budget = {
    maxUsd: 2,
    maxTokens: 5_000,
    maxWallTimeMs: 600_000,
    maxToolCalls: 20,
    warnAt: [0.5],
  };
  const carved = carveChildBudget(parent, spent);
  assert.deepEqual(carved, {
    kind: 'carved',
    budget: { maxUsd: 1.5, maxTokens: 4_000, maxWallTimeMs: 540_000, maxToolCalls: 4, warnAt: [0.5] },
  });
});

test('nothing left of any one limit starts no child', () => {
  const base: Budget = { maxUsd: 2, maxToolCalls: 20, warnAt: [] };
  assert.deepEqual(carveChildBudget({ ...base, maxToolCalls: 16 }, spent), {
    kind: 'exhausted',
    dimension: 'tool-calls',
  });
  assert.deepEqual(carveChildBudget({ ...base, maxUsd: 0.5 }, spent), {
    kind: 'exhausted',
    dimension: 'usd',
  });
  // less than one whole token, call or millisecond left is nothing left
  assert.deepEqual(carveChildBudget({ ...base, maxTokens: 1_000.5 }, spent), {
    kind: 'exhausted',
    dimension: 'tokens',
  });
  assert.equal(carveChildBudget({ ...base, maxToolCalls: 17 }, spent).kind, 'carved');
});

test("keel's token backstop is not carved once the goal's cost is priced (it counts only while unpriced)", () => {
  const parent: Budget = { maxUsd: 5, maxTokens: 800, tokensUnpriced: true, warnAt: [] };
  const carved = carveChildBudget(parent, spent);
  assert.deepEqual(carved, { kind: 'carved', budget: { ...parent, maxUsd: 4.5 } });
  assert.deepEqual(carveChildBudget(parent, { ...spent, usd: 0 }), {
    kind: 'exhausted',
    dimension: 'tokens',
  });
});

test('a parent without a budget gives none', () => {
  assert.deepEqual(carveChildBudget(undefined, spent), { kind: 'carved', budget: undefined });
});

test("children's spend adds up, a child without a result is counted and named", () => {
  const result = {
    usage: { inputTokens: 10, outputTokens: 5, cacheCreationInputTokens: 3, cacheReadInputTokens: 2 },
    counters: { toolCalls: 3 },
    stats: { usdEstimate: 0.25 },
  } satisfies ChildResultSpend;
  const one = addChildSpend(undefined, spendOfChild(result));
  assert.deepEqual(one, { children: 1, tokens: 20, usd: 0.25, toolCalls: 3, unknown: 0 });
  const two = addChildSpend(one, spendOfChild(undefined));
  assert.deepEqual(two, { children: 2, tokens: 20, usd: 0.25, toolCalls: 3, unknown: 1 });
  assert.deepEqual(withChildSpend(spent, two), {
    tokens: 1_020,
    usd: 0.75,
    wallTimeMs: 60_000,
    toolCalls: 19,
  });
  assert.equal(withChildSpend(spent, undefined), spent);
});
