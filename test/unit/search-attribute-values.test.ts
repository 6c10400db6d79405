import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common';
import { KEEL_SEARCH_ATTRIBUTES } from '../../src/dev-server/search-attributes';
import {
  changedSearchAttributes,
  dueFields,
  KeelSearchAttributes,
  searchAttributeUpdates,
  searchAttributeUpdatesOf,
  searchAttributeValuesFrom,
  TOOL_CALLS_REFRESH_STEP,
  type SearchAttributeValues,
} from '../../src/workflows/goal/views/search-attribute-values';

const values: SearchAttributeValues = {
  status: 'running',
  phase: 'awaiting-approval',
  toolCalls: 4,
  planAttempt: 2,
  pendingApprovals: 1,
  priority: 0.75,
};

/** Pairs as plain name → value, easy to compare. */
function asRecord(pairs: ReturnType<typeof searchAttributeUpdates>): Record<string, unknown> {
  return Object.fromEntries(pairs.map((pair) => [pair.key.name, pair.value]));
}

test('the typed keys match the attributes the dev server registers', () => {
  const typeNames = { Keyword: 'KEYWORD', Int: 'INT', Double: 'DOUBLE' } as const;
  const registered = Object.entries(KEEL_SEARCH_ATTRIBUTES).map(([name, type]) => [name, typeNames[type]]);
  const typed = Object.values(KeelSearchAttributes).map((key) => [key.name, key.type]);
  assert.deepEqual(typed.sort(), registered.sort());
});

test('searchAttributeUpdates sets all six attributes with their typed keys', () => {
  const pairs = searchAttributeUpdates(values);
  assert.deepEqual(asRecord(pairs), {
    KeelStatus: 'running',
    KeelPhase: 'awaiting-approval',
    KeelToolCalls: 4,
    KeelPlanAttempt: 2,
    KeelPendingApprovals: 1,
    KeelPriority: 0.75,
  });
  assert.equal(pairs[0]?.key, KeelSearchAttributes.status);
  assert.equal(pairs.find((pair) => pair.key.name === 'KeelPriority')?.key.type, 'DOUBLE');
});

test('KeelHost is written once the goal has a host, and again only when it is rebound', () => {
  assert.equal(asRecord(searchAttributeUpdates(values)).KeelHost, undefined, 'no host: nothing written');
  const bound = { ...values, host: 'h1' };
  assert.deepEqual(asRecord(changedSearchAttributes(values, bound)), { KeelHost: 'h1' });
  assert.deepEqual(changedSearchAttributes(bound, { ...bound }), []);
  assert.deepEqual(asRecord(changedSearchAttributes(bound, { ...bound, host: 'h2' })), { KeelHost: 'h2' });
  const carried = new TypedSearchAttributes(searchAttributeUpdates(bound) as SearchAttributePair[]);
  assert.equal(searchAttributeValuesFrom(carried).host, 'h1');
});

test('Int attributes get whole numbers and non-finite numbers become 0', () => {
  const record = asRecord(
    searchAttributeUpdates({ ...values, toolCalls: 2.6, planAttempt: Number.NaN, priority: Infinity }),
  );
  assert.equal(record.KeelToolCalls, 3);
  assert.equal(record.KeelPlanAttempt, 0);
  assert.equal(record.KeelPriority, 0);
});

test('the updates are accepted by TypedSearchAttributes, as upsertSearchAttributes will use them', () => {
  const attributes = new TypedSearchAttributes().updateCopy(searchAttributeUpdates(values));
  assert.equal(attributes.get(KeelSearchAttributes.pendingApprovals), 1);
  assert.equal(attributes.get(KeelSearchAttributes.phase), 'awaiting-approval');
});

test('changedSearchAttributes: everything the first time, then only what changed', () => {
  assert.equal(changedSearchAttributes(undefined, values).length, 6);
  assert.deepEqual(changedSearchAttributes(values, { ...values }), []);
  const next = { ...values, phase: 'running-tools' as const, pendingApprovals: 0, toolCalls: 5 };
  assert.deepEqual(asRecord(changedSearchAttributes(values, next)), {
    KeelPhase: 'running-tools',
    KeelToolCalls: 5,
    KeelPendingApprovals: 0,
  });
});

test('changedSearchAttributes compares normalised values and fills in what was missing before', () => {
  assert.deepEqual(changedSearchAttributes({ ...values, toolCalls: 4.2 }, values), []);
  assert.deepEqual(asRecord(changedSearchAttributes({ status: 'running' }, values)), {
    KeelPhase: 'awaiting-approval',
    KeelToolCalls: 4,
    KeelPlanAttempt: 2,
    KeelPendingApprovals: 1,
    KeelPriority: 0.75,
  });
});

test('searchAttributeValuesFrom reads back what a previous run set', () => {
  const carried = new TypedSearchAttributes(searchAttributeUpdates(values) as SearchAttributePair[]);
  assert.deepEqual(searchAttributeValuesFrom(carried), values);
  assert.deepEqual(changedSearchAttributes(searchAttributeValuesFrom(carried), values), []);
  assert.deepEqual(searchAttributeValuesFrom(new TypedSearchAttributes()), {});
});

test('dueFields: a tool-call count that changed alone waits until it lags by the refresh step', () => {
  const step = TOOL_CALLS_REFRESH_STEP;
  assert.deepEqual(dueFields(values, { ...values, toolCalls: values.toolCalls + 1 }), []);
  assert.deepEqual(dueFields(values, { ...values, toolCalls: values.toolCalls + step - 1 }), []);
  assert.deepEqual(dueFields(values, { ...values, toolCalls: values.toolCalls + step }), ['toolCalls']);
  // Five parallel calls a turn: written at the turn that reaches the step, not later.
  assert.deepEqual(dueFields({ ...values, toolCalls: 0 }, { ...values, toolCalls: 10 }, 10), ['toolCalls']);
  assert.deepEqual(dueFields({ ...values, toolCalls: 0 }, { ...values, toolCalls: 5 }, 10), []);
  assert.deepEqual(dueFields(values, { ...values, toolCalls: values.toolCalls + 4.2 }, 5), []);
});

test('dueFields: every other attribute is written as it changes, and the count rides along', () => {
  const later = { ...values, toolCalls: values.toolCalls + 1 };
  assert.deepEqual(dueFields(values, { ...later, phase: 'running-tools' }), ['phase', 'toolCalls']);
  assert.deepEqual(dueFields(values, { ...later, pendingApprovals: 0 }), ['toolCalls', 'pendingApprovals']);
  assert.deepEqual(dueFields(values, { ...values, status: 'completed' }), ['status']);
  assert.deepEqual(dueFields(values, { ...values, planAttempt: 3 }), ['planAttempt']);
  assert.deepEqual(dueFields(values, { ...later, priority: 0.5 }), ['toolCalls', 'priority']);
  assert.deepEqual(dueFields(values, { ...values }), []);
});

test('dueFields: a count never written is written at once, like every field the first time', () => {
  assert.equal(dueFields(undefined, values).length, 6);
  const { toolCalls: _toolCalls, ...withoutCount } = values;
  assert.deepEqual(dueFields(withoutCount, values), ['toolCalls']);
});

test('searchAttributeUpdatesOf writes only the fields named, in the fixed order', () => {
  assert.deepEqual(asRecord(searchAttributeUpdatesOf(['pendingApprovals', 'phase'], values)), {
    KeelPhase: 'awaiting-approval',
    KeelPendingApprovals: 1,
  });
  assert.deepEqual(
    searchAttributeUpdatesOf(['pendingApprovals', 'phase'], values).map((pair) => pair.key.name),
    ['KeelPhase', 'KeelPendingApprovals'],
  );
});
