import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CadenceEvent,
  dynamicCadenceSettingsSchema,
  LOOSEN_STEP,
  nextCadence,
} from '../../src/workflows/principles/dynamic-cadence';

/**
 * The dynamic cadence's rules at their edges (issue 27: mutation testing): dynamic-cadence.test.ts
 * walks each event; these pin the event names callers may spell out, what the settings schema
 * accepts at its bounds (and its message), a negative base, a base beyond max, and which bound
 * wins when a caller skipped the schema and min exceeds max.
 */

test('the events are named tool-failed, approval-denied, mutating-succeeded and task-started; a success loosens by 2', () => {
  assert.deepEqual(CadenceEvent, {
    ToolFailed: 'tool-failed',
    ApprovalDenied: 'approval-denied',
    MutatingSucceeded: 'mutating-succeeded',
    TaskStarted: 'task-started',
  });
  assert.equal(LOOSEN_STEP, 2);
});

test('the settings schema: a base of 0 (off) and min equal to max (a fixed cadence) are accepted', () => {
  assert.deepEqual(dynamicCadenceSettingsSchema.parse({ base: 0, min: 1, max: 1 }), {
    base: 0,
    min: 1,
    max: 1,
  });
  assert.deepEqual(dynamicCadenceSettingsSchema.parse({ base: 5, min: 5, max: 5 }), {
    base: 5,
    min: 5,
    max: 5,
  });
});

test('the settings schema refuses a negative base, a max of 0, fractions, each by its field, and min above max by name', () => {
  const refusedFields = (settings: unknown) =>
    dynamicCadenceSettingsSchema.safeParse(settings).error?.issues.map((issue) => issue.path.join('.'));
  assert.deepEqual(refusedFields({ base: -1, min: 3, max: 14 }), ['base']);
  // A max of 0 is below min too: both are said.
  assert.deepEqual(refusedFields({ base: 7, min: 3, max: 0 }), ['max', '']);
  assert.deepEqual(refusedFields({ base: 7.5, min: 3, max: 14 }), ['base']);
  assert.deepEqual(refusedFields({ base: 7, min: 2.5, max: 14 }), ['min']);
  assert.deepEqual(refusedFields({ base: 7, min: 3, max: 13.5 }), ['max']);
  const tooHigh = dynamicCadenceSettingsSchema.safeParse({ base: 7, min: 5, max: 4 });
  assert.deepEqual(
    tooHigh.error?.issues.map((issue) => issue.message),
    ['min must not exceed max'],
  );
});

test('a base below 0 keeps checkpoints off too, from any current cadence', () => {
  for (const event of Object.values(CadenceEvent)) {
    assert.equal(nextCadence({ current: 7, settings: { base: -2, min: 3, max: 14 }, event }), 0);
  }
});

test('a new task starts at base, clamped: a base of 20 with max 14 gives 14', () => {
  assert.equal(
    nextCadence({ current: 5, settings: { base: 20, min: 3, max: 14 }, event: CadenceEvent.TaskStarted }),
    14,
  );
});

test('halving rounds down: 7 becomes 3 (min 1), a cadence of 1 stays at min 1', () => {
  const settings = { base: 7, min: 1, max: 14 };
  assert.equal(nextCadence({ current: 7, settings, event: CadenceEvent.ApprovalDenied }), 3);
  assert.equal(nextCadence({ current: 1, settings, event: CadenceEvent.ToolFailed }), 1);
});

test('without the schema, min above max: min wins for every event (more checkpoints)', () => {
  const settings = { base: 7, min: 9, max: 4 };
  for (const event of Object.values(CadenceEvent)) {
    assert.equal(nextCadence({ current: 7, settings, event }), 9, event);
  }
});
