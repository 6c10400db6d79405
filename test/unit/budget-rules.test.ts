import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  budgetUses,
  evaluateBudget,
  formatElapsed,
  formatInteger,
  metaNoteLine,
  type Budget,
  type BudgetSpent,
  type BudgetWarning,
} from '../../src/workflows/principles/budget';

/**
 * The budgets' rules at their edges (issue 27: mutation testing): budget.test.ts walks each
 * dimension through its warnings; these pin what a zero limit, the order of warnAt, the
 * tolerance and the meta note's choice do.
 */

const spentNothing: BudgetSpent = { tokens: 0, usd: 0, wallTimeMs: 0, toolCalls: 0 };

test('what is spent is listed per limited dimension, in a fixed order; a zero limit counts as none', () => {
  // Built directly, not parsed: the schema refuses a zero limit, a budget from elsewhere may hold one.
  const budget: Budget = { maxToolCalls: 20, maxTokens: 1000, maxUsd: 0, warnAt: [0.7] };
  const spent = { tokens: 10, usd: 5, wallTimeMs: 99, toolCalls: 3 };
  assert.deepEqual(budgetUses(budget, spent), [
    { dimension: 'tokens', spent: 10, limit: 1000 },
    { dimension: 'tool-calls', spent: 3, limit: 20 },
  ]);
  // Nothing spent against a zero limit warns or ends the goal (spent / 0 would be Infinity).
  assert.deepEqual(evaluateBudget({ budget: { maxUsd: 0, warnAt: [0.5] }, spent, alreadyWarned: [] }), {
    warnings: [],
  });
});

test('warnings come lowest fraction first, however warnAt is ordered, each fraction once', () => {
  const result = evaluateBudget({
    budget: { maxTokens: 100, warnAt: [0.9, 0.5, 0.9, 0.7] },
    spent: { ...spentNothing, tokens: 95 },
    alreadyWarned: [],
  });
  assert.deepEqual(
    result.warnings.map((warning) => warning.key),
    ['tokens@0.5', 'tokens@0.7', 'tokens@0.9'],
  );
});

test('spent within the 1e-9 tolerance below a fraction or the limit counts as reaching it', () => {
  const budget: Budget = { maxUsd: 1, warnAt: [0.5] };
  const atHalf = evaluateBudget({ budget, spent: { ...spentNothing, usd: 0.5 - 1e-9 }, alreadyWarned: [] });
  assert.deepEqual(
    atHalf.warnings.map((warning) => warning.key),
    ['usd@0.5'],
  );
  const atLimit = evaluateBudget({
    budget,
    spent: { ...spentNothing, usd: 1 - 1e-9 },
    alreadyWarned: ['usd@0.5'],
  });
  assert.deepEqual(atLimit.exhausted, { dimension: 'usd', spent: 1 - 1e-9, limit: 1 });
  // Further below, not yet.
  const below = evaluateBudget({ budget, spent: { ...spentNothing, usd: 0.5 - 1e-6 }, alreadyWarned: [] });
  assert.deepEqual(below, { warnings: [] });
});

test('the meta note shows, per dimension, the note of the highest fraction crossed, the first of equals', () => {
  const warning = (fraction: number, note: string): BudgetWarning => ({
    key: `tokens@${fraction}`,
    dimension: 'tokens',
    fraction,
    used: fraction,
    note,
  });
  assert.equal(metaNoteLine([warning(0.7, 'seventy'), warning(0.9, 'ninety')]), '[budget] ninety');
  assert.equal(metaNoteLine([warning(0.9, 'ninety'), warning(0.7, 'seventy')]), '[budget] ninety');
  assert.equal(metaNoteLine([warning(0.9, 'first'), warning(0.9, 'second')]), '[budget] first');
});

test('a minute is "1m", not "60s"; a negative integer keeps its sign and its commas', () => {
  assert.equal(formatElapsed(59_999), '59s');
  assert.equal(formatElapsed(60_000), '1m');
  assert.equal(formatInteger(-1234), '-1,234');
  assert.equal(formatInteger(-0.4), '0');
});
