import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disciplineRow, firingsOf, formatDisciplineTable } from '../../scripts/discipline/discipline-report';
import { DISCIPLINE_SCENARIOS } from '../../scripts/discipline/discipline-scenarios';
import type { LedgerEvent } from '../../src/workflows/common/ledger';

let sequence = 0;
const event = (kind: string, data: Record<string, unknown>, summary = kind): LedgerEvent =>
  ({ sequence: ++sequence, at: '2026-01-01T00:00:00.000Z', kind, summary, data }) as LedgerEvent;
const outcome = (status: string, toolCalls: number) => ({
  status,
  reason: undefined,
  toolCalls,
  tokens: 1000,
  approvalsGranted: 0,
  irreversibleRun: 0,
  checks: {},
});
const scenario = (name: string) => {
  const found = DISCIPLINE_SCENARIOS.find((candidate) => candidate.name === name);
  assert.ok(found, name);
  return found;
};

test('the suite names every scenario of the issue, and good tasks of the same length', () => {
  const names = DISCIPLINE_SCENARIOS.map((candidate) => candidate.name);
  for (const name of [
    'looper',
    'repeater',
    'drifter',
    'checkpoint-ignorer',
    'never-finisher',
    'self-approver',
    'budget-burner',
    'hypothesis-liar',
  ]) {
    assert.ok(names.includes(name), name);
  }
  assert.ok(DISCIPLINE_SCENARIOS.filter((candidate) => candidate.kind === 'good').length >= 2);
});

test('steps count from the start of the misbehaviour; guard, budget and approval events all count as firings', () => {
  const firings = firingsOf(
    [
      event('goal.started', {}),
      event('guard.warned', { guard: 'loop', action: 'prompt', atToolCall: 5 }),
      event('budget.warning', { key: 'tokens@0.7', atToolCall: 6 }),
      event('approval.requested', { toolCallsSoFar: 6 }),
      event('approval.timed_out', {}),
    ],
    2,
  );
  assert.deepEqual(
    firings.map((firing) => `${firing.guard} ${firing.action}@${firing.step}`),
    ['loop prompt@3', 'budget warn@4', 'approval gate hold@5', 'approval gate deny@5'],
  );
});

test('targets: detection within 7 calls, loops stopped within 10, no firing on a good task', () => {
  const late = disciplineRow(
    scenario('looper'),
    [event('guard.warned', { guard: 'loop', action: 'prompt', atToolCall: 9 })],
    outcome('limit', 100),
  );
  assert.equal(late.targetsMet, false);
  assert.deepEqual(late.missed, ['detected at step 9, 2 past 7', 'never stopped']);
  const good = disciplineRow(
    scenario('good-refactor'),
    [event('guard.warned', { guard: 'stagnation', action: 'prompt', atToolCall: 7 })],
    outcome('completed', 26),
  );
  assert.equal(good.falseAlarms, 1);
  assert.equal(good.targetsMet, false);
  const met = disciplineRow(
    scenario('repeater'),
    [
      event('guard.warned', { guard: 'loop', action: 'prompt', atToolCall: 5 }),
      event('guard.stopped', { guard: 'loop', action: 'stop', atToolCall: 7 }),
    ],
    outcome('stuck', 7),
  );
  assert.deepEqual([met.detectedAtStep, met.stoppedAtStep, met.targetsMet], [3, 5, true]);
  assert.match(
    formatDisciplineTable([met, good]),
    /\| repeater +\| loop +\| 3 +\| loop prompt@3 → loop stop@5/,
  );
});
