import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addUsage,
  cacheHitRate,
  DEFAULT_PRICE_TABLE,
  EMPTY_USAGE,
  estimateUsd,
  findModelPrice,
  inputTokensOfAllKinds,
  modelPriceSchema,
  priceTableSchema,
  tokenUsageSchema,
  totalTokens,
  usageFromMessagesApi,
  type TokenUsage,
} from '../../src/workflows/principles/cost';

/**
 * Cost's rules (cost.ts; issue 27: mutation testing): usage sums field by field (the 1-hour cache
 * writes only when either side has them), the Messages API's usage mapped, the whole price table,
 * which model ids a key prices (exact, dated, -latest, provider-versioned, provider-prefixed; the
 * longest key; never another model), and the USD estimate with 1-hour writes at their own rate.
 */

const usage = (input: number, output: number, write: number, read: number, write1h?: number): TokenUsage => ({
  inputTokens: input,
  outputTokens: output,
  cacheCreationInputTokens: write,
  cacheReadInputTokens: read,
  ...(write1h === undefined ? {} : { cacheCreation1hInputTokens: write1h }),
});
const p = (input: number, output: number, cacheWrite: number, cacheRead: number) => ({
  input,
  output,
  cacheWrite,
  cacheRead,
});

test('the usage schema: whole non-negative counts defaulting to 0, the 1-hour writes optional', () => {
  assert.deepEqual(tokenUsageSchema.parse({}), usage(0, 0, 0, 0));
  assert.deepEqual(tokenUsageSchema.parse(usage(1, 2, 3, 4, 2)), usage(1, 2, 3, 4, 2));
  for (const bad of [
    { inputTokens: -1 },
    { outputTokens: 1.5 },
    { cacheReadInputTokens: -1 },
    { cacheCreationInputTokens: 0.5 },
    { cacheCreation1hInputTokens: -1 },
    { cacheCreation1hInputTokens: 1.5 },
  ]) {
    assert.equal(tokenUsageSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
  assert.deepEqual(EMPTY_USAGE, usage(0, 0, 0, 0));
  assert.equal(Object.isFrozen(EMPTY_USAGE), true);
});

test('addUsage sums each field; the 1-hour writes appear when either side has them', () => {
  assert.deepEqual(addUsage(usage(1, 2, 3, 4), usage(10, 20, 30, 40)), usage(11, 22, 33, 44));
  assert.deepEqual(addUsage(usage(1, 2, 3, 4, 2), usage(10, 20, 30, 40)), usage(11, 22, 33, 44, 2));
  assert.deepEqual(addUsage(usage(1, 2, 3, 4), usage(10, 20, 30, 40, 5)), usage(11, 22, 33, 44, 5));
  assert.deepEqual(addUsage(usage(1, 2, 3, 4, 2), usage(10, 20, 30, 40, 5)), usage(11, 22, 33, 44, 7));
});

test('input of all kinds, the cache hit rate (0 when nothing was sent) and total tokens', () => {
  const used = usage(10, 100, 20, 70);
  assert.equal(inputTokensOfAllKinds(used), 100);
  assert.equal(cacheHitRate(used), 0.7);
  assert.equal(cacheHitRate(usage(0, 100, 0, 0)), 0);
  assert.equal(totalTokens(used), 200);
  assert.equal(totalTokens(usage(1, 2, 4, 8)), 15);
  assert.equal(inputTokensOfAllKinds(usage(1, 2, 4, 8)), 13);
});

test('the Messages API usage: cache fields null or missing are 0; 1-hour writes kept only when positive', () => {
  assert.deepEqual(usageFromMessagesApi({ input_tokens: 1, output_tokens: 2 }), usage(1, 2, 0, 0));
  assert.deepEqual(
    usageFromMessagesApi({
      input_tokens: 1,
      output_tokens: 2,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      cache_creation: null,
    }),
    usage(1, 2, 0, 0),
  );
  assert.deepEqual(
    usageFromMessagesApi({
      input_tokens: 1,
      output_tokens: 2,
      cache_creation_input_tokens: 3,
      cache_read_input_tokens: 4,
      cache_creation: { ephemeral_1h_input_tokens: 3 },
    }),
    usage(1, 2, 3, 4, 3),
  );
  assert.deepEqual(
    usageFromMessagesApi({
      input_tokens: 1,
      output_tokens: 2,
      cache_creation: { ephemeral_1h_input_tokens: 0 },
    }),
    usage(1, 2, 0, 0),
  );
  assert.deepEqual(
    usageFromMessagesApi({
      input_tokens: 1,
      output_tokens: 2,
      cache_creation: { ephemeral_1h_input_tokens: null },
    }),
    usage(1, 2, 0, 0),
  );
});

test('the price schemas: non-negative prices, the 1-hour write optional; table keys not empty', () => {
  assert.deepEqual(modelPriceSchema.parse(p(1, 2, 3, 4)), p(1, 2, 3, 4));
  for (const bad of [
    { ...p(1, 2, 3, 4), input: -1 },
    { ...p(1, 2, 3, 4), cacheWrite1h: -1 },
    { input: 1, output: 2, cacheWrite: 3 },
  ]) {
    assert.equal(modelPriceSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
  assert.equal(priceTableSchema.safeParse({ m: p(1, 2, 3, 4) }).success, true);
  assert.equal(priceTableSchema.safeParse({ '': p(1, 2, 3, 4) }).success, false);
});

test('the default price table, whole (USD per million: input, output, 5-minute write, read; 1-hour write for Claude 5)', () => {
  assert.deepEqual(DEFAULT_PRICE_TABLE, {
    'claude-opus-5-5': { ...p(4, 20, 5, 0.4), cacheWrite1h: 8 },
    'claude-opus-5': { ...p(5, 25, 6.25, 0.5), cacheWrite1h: 10 },
    'claude-sonnet-5-5': { ...p(2, 10, 2.5, 0.2), cacheWrite1h: 4 },
    'claude-sonnet-5': { ...p(2, 10, 2.5, 0.2), cacheWrite1h: 4 },
    'claude-opus-4-6': p(5, 25, 6.25, 0.5),
    'claude-opus-4-5': p(5, 25, 6.25, 0.5),
    'claude-opus-4-1': p(15, 75, 18.75, 1.5),
    'claude-opus-4-0': p(15, 75, 18.75, 1.5),
    'claude-opus-4': p(15, 75, 18.75, 1.5),
    'claude-sonnet-4-6': p(3, 15, 3.75, 0.3),
    'claude-sonnet-4-5': p(3, 15, 3.75, 0.3),
    'claude-sonnet-4-0': p(3, 15, 3.75, 0.3),
    'claude-sonnet-4': p(3, 15, 3.75, 0.3),
    'claude-3-7-sonnet': p(3, 15, 3.75, 0.3),
    'claude-3-5-sonnet': p(3, 15, 3.75, 0.3),
    'claude-haiku-4-5': p(1, 5, 1.25, 0.1),
    'claude-3-5-haiku': p(0.8, 4, 1, 0.08),
    'claude-3-opus': p(15, 75, 18.75, 1.5),
    'claude-3-haiku': p(0.25, 1.25, 0.3, 0.03),
  });
});

test('a key prices the exact id (any case, spaces around), a date after - or @, -latest, and a provider version', () => {
  const key = (model: string) => findModelPrice(model, DEFAULT_PRICE_TABLE)?.key;
  for (const model of [
    'claude-opus-4-1',
    '  CLAUDE-Opus-4-1 ',
    'claude-opus-4-1-20250805',
    'claude-opus-4-1@20250805',
    'claude-opus-4-1-latest',
    'claude-opus-4-1-v1',
    'claude-opus-4-1-v1:0',
    'claude-opus-4-1-v12:10',
    'claude-opus-4-1-20250805-v12:10',
    'claude-opus-4-1-20250805-v1:0',
    'claude-opus-4-1-20250805-v2',
    'anthropic.claude-opus-4-1-20250805-v1:0',
    'us.anthropic.claude-opus-4-1-20250805-v1:0',
    'global.anthropic.claude-opus-4-1',
  ]) {
    assert.equal(key(model), 'claude-opus-4-1', model);
  }
  assert.deepEqual(findModelPrice('claude-opus-4-1', DEFAULT_PRICE_TABLE), {
    key: 'claude-opus-4-1',
    price: p(15, 75, 18.75, 1.5),
  });
});

test('another model or a malformed suffix is not priced: opus-4-7, a 7-digit date, -v, -vx, a trailing text, a prefix not first', () => {
  const key = (model: string) => findModelPrice(model, DEFAULT_PRICE_TABLE)?.key;
  for (const model of [
    'claude-opus-4-7',
    'claude-opus-4-1-2025080',
    'claude-opus-4-1-202508051',
    'claude-opus-4-1_20250805',
    'claude-opus-4-1-v',
    'claude-opus-4-1-v1:',
    'claude-opus-4-1-latestx',
    'claude-opus-4-1x-latest',
    'claude-opus-4-1x-20250805',
    'claude-opus-4-1-20250805-v1:0x',
    'claude-opus-4-1-20250805x',
    'xclaude-opus-4-1',
    'claude-opus-4-1anthropic.',
    'us-east.anthropic.claude-opus-4-1',
    'x.us.anthropic.claude-opus-4-1',
    'gpt-5',
  ]) {
    assert.equal(key(model), undefined, model);
  }
});

test('the longest fitting key wins, in any table order (a tie: the first); a key matches in any case and is returned as written', () => {
  const table = { 'Model-A': p(1, 1, 1, 1), 'model-a-b': p(2, 2, 2, 2) };
  assert.deepEqual(findModelPrice('model-a-b-20250101', table), { key: 'model-a-b', price: p(2, 2, 2, 2) });
  assert.deepEqual(findModelPrice('MODEL-A-latest', table), { key: 'Model-A', price: p(1, 1, 1, 1) });
  const reversed = { 'model-a-b': p(2, 2, 2, 2), 'model-a': p(1, 1, 1, 1) };
  assert.equal(findModelPrice('model-a-b', reversed)?.key, 'model-a-b');
  assert.equal(findModelPrice('model-a', reversed)?.key, 'model-a');
  const dated = { m: p(1, 1, 1, 1), 'm-20250101': p(2, 2, 2, 2) };
  assert.equal(findModelPrice('m-20250101', dated)?.key, 'm-20250101');
  const datedFirst = { 'm-20250101': p(2, 2, 2, 2), m: p(1, 1, 1, 1) };
  assert.equal(findModelPrice('m-20250101', datedFirst)?.key, 'm-20250101');
  // keys of one length that both fit: the first in table order
  assert.equal(findModelPrice('m', { M: p(1, 1, 1, 1), m: p(2, 2, 2, 2) })?.key, 'M');
  assert.equal(findModelPrice('model-a', {}), undefined);
  assert.equal(findModelPrice('claude-opus-4-5-20251101', DEFAULT_PRICE_TABLE)?.key, 'claude-opus-4-5');
});

test('the estimate: each kind of token at its rate per million; 1-hour writes at their own rate, else twice the input', () => {
  const table = { m: { ...p(1, 10, 100, 1000), cacheWrite1h: 10_000 }, n: p(1, 10, 100, 1000) };
  assert.deepEqual(estimateUsd({ usage: usage(1_000_000, 0, 0, 0), model: 'm', prices: table }), {
    usd: 1,
    priced: true,
    priceKey: 'm',
  });
  assert.equal(estimateUsd({ usage: usage(0, 1_000_000, 0, 0), model: 'm', prices: table }).usd, 10);
  assert.equal(estimateUsd({ usage: usage(0, 0, 1_000_000, 0), model: 'm', prices: table }).usd, 100);
  assert.equal(estimateUsd({ usage: usage(0, 0, 0, 1_000_000), model: 'm', prices: table }).usd, 1000);
  assert.equal(
    estimateUsd({ usage: usage(0, 0, 1_000_000, 0, 250_000), model: 'm', prices: table }).usd,
    75 + 2500,
  );
  assert.equal(
    estimateUsd({ usage: usage(0, 0, 1_000_000, 0, 250_000), model: 'n', prices: table }).usd,
    75 + 0.5,
  );
  assert.equal(estimateUsd({ usage: usage(0, 0, 100, 0, 1_000_000), model: 'm', prices: table }).usd, 1);
  assert.equal(
    estimateUsd({ usage: usage(2, 3, 5, 7), model: 'n', prices: table }).usd,
    (2 + 30 + 500 + 7000) / 1_000_000,
  );
});

test('the estimate uses the default table; an unpriced model costs 0 and says so', () => {
  assert.deepEqual(
    estimateUsd({ usage: usage(1_000_000, 1_000_000, 0, 0), model: 'claude-sonnet-4-5-20250929' }),
    {
      usd: 18,
      priced: true,
      priceKey: 'claude-sonnet-4-5',
    },
  );
  assert.deepEqual(estimateUsd({ usage: usage(1_000_000, 0, 0, 0), model: 'gpt-5' }), {
    usd: 0,
    priced: false,
  });
});
