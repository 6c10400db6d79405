import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disciplineRow, type ScenarioOutcome } from '../../scripts/discipline/discipline-report';
import { DISCIPLINE_SCENARIOS } from '../../scripts/discipline/discipline-scenarios';
import type { LedgerEvent } from '../../src/workflows/common/ledger';

// Issue 44's target: with no budget set, no runaway scenario spends more than the default budget.
const burner = DISCIPLINE_SCENARIOS.find((scenario) => scenario.name === 'budget-burner');
const good = DISCIPLINE_SCENARIOS.find((scenario) => scenario.kind === 'good');
const events: LedgerEvent[] = [
  {
    sequence: 1,
    at: '2026-01-01T00:00:00.000Z',
    kind: 'budget.warning',
    summary: '',
    data: { atToolCall: 4 },
  },
  {
    sequence: 2,
    at: '2026-01-01T00:00:01.000Z',
    kind: 'budget.exhausted',
    summary: '',
    data: { atToolCall: 5 },
  },
] as LedgerEvent[];
const outcome = (status: string, tokens: number): ScenarioOutcome => ({
  status,
  reason: undefined,
  toolCalls: 5,
  tokens,
  approvalsGranted: 0,
  irreversibleRun: 0,
  humanDenials: 0,
  checks: {},
});

test('a runaway that ends past the default budget misses its target, one within it meets it', () => {
  assert.ok(burner);
  const over = disciplineRow(burner, events, outcome('budget_exhausted', 361_968), 300_000);
  assert.equal(over.targetsMet, false);
  assert.deepEqual(over.missed, ['spent 361968 tokens, past the budget of 300000']);
  const within = disciplineRow(burner, events, outcome('budget_exhausted', 257_915), 300_000);
  assert.deepEqual([within.targetsMet, within.missed], [true, []]);
});

test('good scenarios are held to their own targets, not to the budget', () => {
  assert.ok(good);
  const row = disciplineRow(good, [], outcome('completed', 400_000), 300_000);
  assert.deepEqual(row.missed, []);
});
