import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_PRICE_TABLE,
  EMPTY_USAGE,
  addUsage,
  cacheHitRate,
  estimateUsd,
  findModelPrice,
  priceTableSchema,
  tokenUsageSchema,
  totalTokens,
  usageFromMessagesApi,
  type TokenUsage,
} from '../../src/workflows/principles/cost';

const million = 1_000_000;

function usage(partial: Partial<TokenUsage>): TokenUsage {
  return tokenUsageSchema.parse(partial);
}

test('the usage schema defaults missing counts to 0 and rejects negative or fractional ones', () => {
  assert.deepEqual(usage({ inputTokens: 5 }), { ...EMPTY_USAGE, inputTokens: 5 });
  assert.equal(tokenUsageSchema.safeParse({ inputTokens: -1 }).success, false);
  assert.equal(tokenUsageSchema.safeParse({ outputTokens: 1.5 }).success, false);
});

test('addUsage sums every field and leaves its inputs alone', () => {
  const first = usage({
    inputTokens: 10,
    outputTokens: 2,
    cacheCreationInputTokens: 3,
    cacheReadInputTokens: 4,
  });
  const second = usage({
    inputTokens: 1,
    outputTokens: 20,
    cacheCreationInputTokens: 30,
    cacheReadInputTokens: 40,
  });
  const sum = addUsage(first, second);
  assert.deepEqual(sum, {
    inputTokens: 11,
    outputTokens: 22,
    cacheCreationInputTokens: 33,
    cacheReadInputTokens: 44,
  });
  assert.equal(first.inputTokens, 10);
  assert.deepEqual(addUsage(EMPTY_USAGE, first), first);
  assert.equal(totalTokens(sum), 110);
});

test('usage from the Messages API maps snake_case and null cache fields', () => {
  assert.deepEqual(
    usageFromMessagesApi({
      input_tokens: 7,
      output_tokens: 8,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: 9,
    }),
    { inputTokens: 7, outputTokens: 8, cacheCreationInputTokens: 0, cacheReadInputTokens: 9 },
  );
  assert.deepEqual(usageFromMessagesApi({ input_tokens: 1, output_tokens: 2 }), {
    ...EMPTY_USAGE,
    inputTokens: 1,
    outputTokens: 2,
  });
});

test('each kind of token is priced at its own rate', () => {
  const model = 'claude-sonnet-4-5';
  const cases: Array<[Partial<TokenUsage>, number]> = [
    [{ inputTokens: million }, 3],
    [{ outputTokens: million }, 15],
    [{ cacheCreationInputTokens: million }, 3.75],
    [{ cacheReadInputTokens: million }, 0.3],
  ];
  for (const [partial, expected] of cases) {
    const estimate = estimateUsd({ usage: usage(partial), model });
    assert.ok(Math.abs(estimate.usd - expected) < 1e-9, `${JSON.stringify(partial)} → ${estimate.usd}`);
    assert.equal(estimate.priced, true);
  }
  const mixed = estimateUsd({
    usage: usage({ inputTokens: 20_000, outputTokens: 2_000 }),
    model: 'claude-opus-4-1',
  });
  assert.ok(Math.abs(mixed.usd - (0.3 + 0.15)) < 1e-9);
});

test('dated and provider-prefixed model ids match their table entry by prefix', () => {
  const cases: Array<[string, string]> = [
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-opus-4-1-20250805', 'claude-opus-4-1'],
    ['claude-opus-4-20250514', 'claude-opus-4'],
    ['claude-haiku-4-5', 'claude-haiku-4-5'],
    ['claude-3-5-haiku-latest', 'claude-3-5-haiku'],
    ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['us.anthropic.claude-haiku-4-5-20251001-v1:0', 'claude-haiku-4-5'],
    ['Claude-Sonnet-4-5', 'claude-sonnet-4-5'],
  ];
  for (const [model, key] of cases) {
    assert.equal(estimateUsd({ usage: usage({ inputTokens: 1 }), model }).priceKey, key, model);
  }
});

test('the longest fitting key wins', () => {
  assert.equal(findModelPrice('claude-opus-4-1-20250805', DEFAULT_PRICE_TABLE)?.key, 'claude-opus-4-1');
  const custom = { 'my-model': { input: 1, output: 1, cacheWrite: 1, cacheRead: 1 } };
  assert.equal(findModelPrice('my-model-20250101', custom)?.key, 'my-model');
});

test('an unknown model, or a newer version of a known family, is unpriced at 0', () => {
  for (const model of ['gpt-5', 'claude-opus-4-7', 'claude-sonnet-4-5x', 'claude', '']) {
    assert.deepEqual(
      estimateUsd({ usage: usage({ inputTokens: million }), model }),
      { usd: 0, priced: false },
      model,
    );
  }
});

test('a configured table overrides the default', () => {
  const prices = priceTableSchema.parse({
    ...DEFAULT_PRICE_TABLE,
    'claude-sonnet-4-5': { input: 1, output: 2, cacheWrite: 3, cacheRead: 4 },
    'local-model': { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 },
  });
  assert.equal(
    estimateUsd({ usage: usage({ outputTokens: million }), model: 'claude-sonnet-4-5', prices }).usd,
    2,
  );
  assert.deepEqual(estimateUsd({ usage: usage({ outputTokens: million }), model: 'local-model', prices }), {
    usd: 0,
    priced: true,
    priceKey: 'local-model',
  });
  assert.equal(
    priceTableSchema.safeParse({ x: { input: -1, output: 0, cacheWrite: 0, cacheRead: 0 } }).success,
    false,
  );
});

test('the default table parses and covers current Claude models', () => {
  const table = priceTableSchema.parse(DEFAULT_PRICE_TABLE);
  for (const key of ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5', 'claude-opus-4-5']) {
    assert.ok(table[key], key);
  }
});

test('1-hour cache writes are priced at their own rate (2× input unless the table says), and the hit rate counts every input kind', () => {
  const written = usage({ cacheCreationInputTokens: million, cacheCreation1hInputTokens: million });
  assert.ok(Math.abs(estimateUsd({ usage: written, model: 'claude-sonnet-4-5' }).usd - 6) < 1e-9);
  const mixed = usage({ cacheCreationInputTokens: 2 * million, cacheCreation1hInputTokens: million });
  assert.ok(Math.abs(estimateUsd({ usage: mixed, model: 'claude-sonnet-4-5' }).usd - (3.75 + 6)) < 1e-9);
  const table = { 'my-model': { input: 1, output: 1, cacheWrite: 1.25, cacheWrite1h: 1.5, cacheRead: 0.1 } };
  assert.ok(Math.abs(estimateUsd({ usage: written, model: 'my-model', prices: table }).usd - 1.5) < 1e-9);
  assert.equal(
    cacheHitRate(usage({ inputTokens: 10, cacheCreationInputTokens: 10, cacheReadInputTokens: 80 })),
    0.8,
  );
  assert.equal(cacheHitRate(EMPTY_USAGE), 0);
  // The Claude 5 rows carry their 1-hour rate; a 5.5 model is never priced as its 5 sibling.
  const sonnet55 = estimateUsd({ usage: written, model: 'claude-sonnet-5-5-20261001' });
  assert.equal(sonnet55.priceKey, 'claude-sonnet-5-5');
  assert.ok(Math.abs(sonnet55.usd - 4) < 1e-9);
});
