import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BUDGET_NOTE_PREFIX,
  BudgetDimension,
  budgetNote,
  budgetSchema,
  evaluateBudget,
  formatElapsed,
  formatInteger,
  formatUsd,
  metaNoteLine,
  type BudgetDimension as Dimension,
  type BudgetSpent,
} from '../../src/workflows/principles/budget';

const nothingSpent: BudgetSpent = { tokens: 0, usd: 0, wallTimeMs: 0, toolCalls: 0 };

/** One limited dimension at a time, spent as a fraction of its limit. */
const dimensions: Array<{
  dimension: Dimension;
  limits: object;
  spend: (amount: number) => BudgetSpent;
  limit: number;
}> = [
  {
    dimension: BudgetDimension.Tokens,
    limits: { maxTokens: 20_000 },
    limit: 20_000,
    spend: (tokens) => ({ ...nothingSpent, tokens }),
  },
  {
    dimension: BudgetDimension.Usd,
    limits: { maxUsd: 0.6 },
    limit: 0.6,
    spend: (usd) => ({ ...nothingSpent, usd }),
  },
  {
    dimension: BudgetDimension.WallTime,
    limits: { maxWallTimeMs: 300_000 },
    limit: 300_000,
    spend: (wallTimeMs) => ({ ...nothingSpent, wallTimeMs }),
  },
  {
    dimension: BudgetDimension.ToolCalls,
    limits: { maxToolCalls: 20 },
    limit: 20,
    spend: (toolCalls) => ({ ...nothingSpent, toolCalls }),
  },
];

test('the schema defaults warnAt to 70% and 90% and rejects nonsense', () => {
  assert.deepEqual(budgetSchema.parse({}).warnAt, [0.7, 0.9]);
  assert.deepEqual(budgetSchema.parse({ warnAt: [0.5] }).warnAt, [0.5]);
  assert.equal(budgetSchema.safeParse({ maxTokens: 0 }).success, false);
  assert.equal(budgetSchema.safeParse({ maxUsd: -1 }).success, false);
  assert.equal(budgetSchema.safeParse({ warnAt: [1] }).success, false);
  assert.equal(budgetSchema.safeParse({ warnAt: [0] }).success, false);
});

for (const { dimension, limits, limit, spend } of dimensions) {
  test(`${dimension}: warns once at 70% and 90%, exhausted at 100%`, () => {
    const budget = budgetSchema.parse(limits);
    const warned: string[] = [];
    const step = (fraction: number) => {
      const result = evaluateBudget({ budget, spent: spend(limit * fraction), alreadyWarned: warned });
      warned.push(...result.warnings.map((warning) => warning.key));
      return result;
    };

    assert.deepEqual(step(0.69), { warnings: [] });
    const at70 = step(0.7);
    assert.deepEqual(
      at70.warnings.map((warning) => [warning.key, warning.dimension, warning.fraction]),
      [[`${dimension}@0.7`, dimension, 0.7]],
    );
    assert.equal(at70.exhausted, undefined);
    assert.deepEqual(step(0.8).warnings, [], 'the 70% warning is not repeated');
    assert.deepEqual(
      step(0.9).warnings.map((warning) => warning.key),
      [`${dimension}@0.9`],
    );
    assert.deepEqual(step(0.99), { warnings: [] });
    const full = step(1);
    assert.deepEqual(full.warnings, []);
    assert.deepEqual(full.exhausted, { dimension, spent: limit, limit });
    assert.deepEqual(step(1.3).exhausted, { dimension, spent: limit * 1.3, limit });
  });
}

test('a jump past both fractions gives both warnings, and the line shows the highest', () => {
  const budget = budgetSchema.parse({ maxTokens: 20_000 });
  const result = evaluateBudget({ budget, spent: { ...nothingSpent, tokens: 19_000 }, alreadyWarned: [] });
  assert.deepEqual(
    result.warnings.map((warning) => warning.key),
    ['tokens@0.7', 'tokens@0.9'],
  );
  assert.equal(metaNoteLine(result.warnings), '[budget] token budget 95% used (19,000 of 20,000)');
});

test('floating sums of USD exactly at a threshold or the limit count', () => {
  const budget = budgetSchema.parse({ maxUsd: 0.3, warnAt: [0.5] });
  const result = evaluateBudget({
    budget,
    spent: { ...nothingSpent, usd: 0.1 + 0.1 + 0.1 },
    alreadyWarned: [],
  });
  assert.ok(0.1 + 0.1 + 0.1 !== 0.3, 'the float sum really is off');
  assert.equal(result.exhausted?.dimension, BudgetDimension.Usd);
  const half = evaluateBudget({ budget, spent: { ...nothingSpent, usd: 0.15 }, alreadyWarned: [] });
  assert.deepEqual(
    half.warnings.map((warning) => warning.key),
    ['usd@0.5'],
  );
});

test('an unbudgeted goal never warns nor ends', () => {
  const result = evaluateBudget({
    budget: budgetSchema.parse({}),
    spent: { tokens: 1e9, usd: 1e6, wallTimeMs: 1e10, toolCalls: 1e6 },
    alreadyWarned: [],
  });
  assert.deepEqual(result, { warnings: [] });
});

test('several dimensions: warnings per dimension, the first exhausted one reported', () => {
  const budget = budgetSchema.parse({ maxTokens: 1000, maxUsd: 1, maxWallTimeMs: 60_000, maxToolCalls: 10 });
  const result = evaluateBudget({
    budget,
    spent: { tokens: 700, usd: 0.2, wallTimeMs: 60_000, toolCalls: 12 },
    alreadyWarned: ['tokens@0.7'],
  });
  assert.deepEqual(
    result.warnings.map((warning) => warning.key),
    ['wall-time@0.7', 'wall-time@0.9', 'tool-calls@0.7', 'tool-calls@0.9'],
  );
  assert.deepEqual(result.exhausted, { dimension: 'wall-time', spent: 60_000, limit: 60_000 });
});

test('notes name the dimension, the percentage and the amounts', () => {
  assert.equal(
    budgetNote({ dimension: 'tokens', spent: 14_000, limit: 20_000 }),
    'token budget 70% used (14,000 of 20,000)',
  );
  assert.equal(
    budgetNote({ dimension: 'usd', spent: 0.42, limit: 0.6 }),
    'cost budget 70% used ($0.42 of $0.60)',
  );
  assert.equal(
    budgetNote({ dimension: 'wall-time', spent: 210_000, limit: 300_000 }),
    'time budget 70% used (elapsed 3m 30s of 5m)',
  );
  assert.equal(
    budgetNote({ dimension: 'tool-calls', spent: 18, limit: 20 }),
    'tool-call budget 90% used (18 of 20 calls)',
  );
});

test('the meta note line joins one note per dimension in a fixed order, prefixed', () => {
  const budget = budgetSchema.parse({ maxTokens: 20_000, maxWallTimeMs: 300_000 });
  const { warnings } = evaluateBudget({
    budget,
    spent: { ...nothingSpent, tokens: 14_000, wallTimeMs: 270_000 },
    alreadyWarned: [],
  });
  const line = metaNoteLine(warnings);
  assert.equal(
    line,
    `${BUDGET_NOTE_PREFIX}token budget 70% used (14,000 of 20,000); time budget 90% used (elapsed 4m 30s of 5m)`,
  );
  assert.ok(!line.includes('\n'));
  assert.equal(metaNoteLine([]), undefined);
});

test('formatElapsed', () => {
  assert.equal(formatElapsed(0), '0s');
  assert.equal(formatElapsed(-5), '0s');
  assert.equal(formatElapsed(45_999), '45s');
  assert.equal(formatElapsed(180_000), '3m');
  assert.equal(formatElapsed(210_000), '3m 30s');
  assert.equal(formatElapsed(3_600_000), '1h');
  assert.equal(formatElapsed(3_723_000), '1h 2m');
});

test('formatUsd and formatInteger', () => {
  assert.equal(formatUsd(0.42), '$0.42');
  assert.equal(formatUsd(0), '$0.00');
  assert.equal(formatUsd(1234.5), '$1,234.50');
  assert.equal(formatUsd(0.0042), '$0.0042');
  assert.equal(formatUsd(0.999), '$1.00');
  assert.equal(formatUsd(-2), '-$2.00');
  assert.equal(formatInteger(14_000), '14,000');
  assert.equal(formatInteger(999), '999');
  assert.equal(formatInteger(1_234_567), '1,234,567');
});
