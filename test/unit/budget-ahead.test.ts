import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetSchema, type BudgetSpent } from '../../src/workflows/principles/budget';
import { exhaustedAhead } from '../../src/workflows/principles/budget-ahead';

const spent = (tokens: number, usd = 0): BudgetSpent => ({ tokens, usd, wallTimeMs: 0, toolCalls: 0 });

test('a request that would take the goal past its token limit is stopped ahead of it', () => {
  const budget = budgetSchema.parse({ maxTokens: 300_000 });
  assert.deepEqual(exhaustedAhead(budget, spent(282_000), 80_000), {
    dimension: 'tokens',
    spent: 282_000,
    limit: 300_000,
    expected: 80_000,
  });
});

test('a request that lands exactly on the limit, or below it, is sent', () => {
  const budget = budgetSchema.parse({ maxTokens: 300_000 });
  assert.equal(exhaustedAhead(budget, spent(220_000), 80_000), undefined);
  assert.equal(exhaustedAhead(budget, spent(0), 299_999), undefined);
  assert.deepEqual(exhaustedAhead(budget, spent(220_001), 80_000)?.limit, 300_000);
});

test('no token limit, or a backstop for unpriced models on a priced goal: nothing is stopped ahead', () => {
  assert.equal(
    exhaustedAhead(budgetSchema.parse({ maxUsd: 5 }), spent(10_000_000, 4.99), 1_000_000),
    undefined,
  );
  const backstop = budgetSchema.parse({ maxUsd: 5, maxTokens: 100, tokensUnpriced: true });
  assert.equal(exhaustedAhead(backstop, spent(90, 0.01), 1_000), undefined);
  // Unpriced (usd 0): the backstop counts.
  assert.equal(exhaustedAhead(backstop, spent(90, 0), 11)?.dimension, 'tokens');
  assert.equal(exhaustedAhead(backstop, spent(90, 0), 10), undefined);
});
