import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_MAX_LEDGER_EVENTS,
  LedgerEventKind,
  LedgerSchema,
  appendEvent,
  emptyLedger,
  eventsAfter,
  type Ledger,
} from '../../src/workflows/common/ledger';

const at = '2025-01-02T03:04:05.000Z';

function appendMany(ledger: Ledger, count: number, maxEvents?: number): Ledger {
  let result = ledger;
  for (let index = 0; index < count; index++) {
    result = appendEvent(
      result,
      { at, kind: LedgerEventKind.BudgetWarning, summary: `event ${index}` },
      { maxEvents },
    );
  }
  return result;
}

test('an empty ledger is valid and versioned', () => {
  const ledger = emptyLedger();
  assert.deepEqual(LedgerSchema.parse(ledger), {
    schemaVersion: 1,
    events: [],
    nextSequence: 1,
    dropped: 0,
  });
});

test('appendEvent assigns monotonic sequences and defaults data', () => {
  const first = appendEvent(emptyLedger(), { at, kind: LedgerEventKind.PlanCreated, summary: 'plan' });
  const second = appendEvent(first, {
    at,
    kind: LedgerEventKind.TaskReflected,
    summary: 'reflected',
    data: { runCount: 2 },
  });
  assert.deepEqual(
    second.events.map((event) => [event.sequence, event.kind, event.data]),
    [
      [1, 'plan.created', {}],
      [2, 'task.reflected', { runCount: 2 }],
    ],
  );
  assert.equal(second.nextSequence, 3);
  assert.doesNotThrow(() => LedgerSchema.parse(second));
});

test('appendEvent never mutates its input', () => {
  const before = appendEvent(emptyLedger(), { at, kind: LedgerEventKind.PlanCreated, summary: 'a' });
  const snapshot = structuredClone(before);
  appendEvent(before, { at, kind: LedgerEventKind.PlanFailed, summary: 'b' }, { maxEvents: 1 });
  assert.deepEqual(before, snapshot);
});

test('the ledger keeps only the newest maxEvents and counts the dropped ones', () => {
  const ledger = appendMany(emptyLedger(), 10, 3);
  assert.deepEqual(
    ledger.events.map((event) => event.sequence),
    [8, 9, 10],
  );
  assert.equal(ledger.dropped, 7);
  assert.equal(ledger.nextSequence, 11);
});

test('the default bound is 500 events', () => {
  assert.equal(DEFAULT_MAX_LEDGER_EVENTS, 500);
  const ledger = appendMany(emptyLedger(), 503);
  assert.equal(ledger.events.length, 500);
  assert.equal(ledger.dropped, 3);
  assert.equal(ledger.events[0]?.sequence, 4);
});

test('sequences stay monotonic across continue-as-new (a serialised round trip)', () => {
  const beforeContinue = appendMany(emptyLedger(), 5, 2);
  // Continue-as-new hands the ledger to the next run as JSON input.
  const carried = LedgerSchema.parse(JSON.parse(JSON.stringify(beforeContinue)));
  const afterContinue = appendMany(carried, 2, 2);
  assert.deepEqual(
    afterContinue.events.map((event) => event.sequence),
    [6, 7],
  );
  assert.equal(afterContinue.dropped, 5);
});

test('eventsAfter returns only newer events', () => {
  const ledger = appendMany(emptyLedger(), 4);
  assert.deepEqual(
    eventsAfter(ledger, 2).map((event) => event.sequence),
    [3, 4],
  );
  assert.deepEqual(eventsAfter(ledger, 4), []);
});

test('an invalid maxEvents is rejected', () => {
  assert.throws(
    () =>
      appendEvent(emptyLedger(), { at, kind: LedgerEventKind.PlanCreated, summary: 'x' }, { maxEvents: 0 }),
    RangeError,
  );
});

test('the schema rejects unknown kinds, non-ISO times and a wrong version', () => {
  const valid = appendMany(emptyLedger(), 1);
  const withKind = { ...valid, events: [{ ...valid.events[0], kind: 'plan.exploded' }] };
  const withTime = { ...valid, events: [{ ...valid.events[0], at: 'yesterday' }] };
  assert.equal(LedgerSchema.safeParse(withKind).success, false);
  assert.equal(LedgerSchema.safeParse(withTime).success, false);
  assert.equal(LedgerSchema.safeParse({ ...valid, schemaVersion: 2 }).success, false);
});

test('every kind the issue names is defined', () => {
  const kinds = new Set<string>(Object.values(LedgerEventKind));
  for (const kind of [
    'plan.created',
    'plan.failed',
    'plan.backtracked',
    'reflection.checkpoint',
    'agent.reflected',
    'task.reflected',
    'approval.requested',
    'approval.decided',
    'approval.timed_out',
    'budget.warning',
    'budget.exhausted',
    'hypothesis.mismatch',
    'assessment.completed',
    'goal.completed',
  ]) {
    assert.ok(kinds.has(kind), kind);
  }
});
