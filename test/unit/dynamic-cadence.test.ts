import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CadenceEvent,
  DEFAULT_DYNAMIC_CADENCE_SETTINGS,
  dynamicCadenceSettingsSchema,
  nextCadence,
} from '../../src/workflows/principles/dynamic-cadence';

const settings = { base: 8, min: 3, max: 12 };

test('a failed call or a denied approval halves the cadence', () => {
  assert.equal(nextCadence({ current: 8, settings, event: CadenceEvent.ToolFailed }), 4);
  assert.equal(nextCadence({ current: 10, settings, event: CadenceEvent.ApprovalDenied }), 5);
  assert.equal(nextCadence({ current: 9, settings, event: CadenceEvent.ToolFailed }), 4);
});

test('tightening never goes below min', () => {
  assert.equal(nextCadence({ current: 4, settings, event: CadenceEvent.ToolFailed }), 3);
  assert.equal(nextCadence({ current: 3, settings, event: CadenceEvent.ApprovalDenied }), 3);
});

test('a successful mutating step loosens by 2, never above max', () => {
  assert.equal(nextCadence({ current: 8, settings, event: CadenceEvent.MutatingSucceeded }), 10);
  assert.equal(nextCadence({ current: 11, settings, event: CadenceEvent.MutatingSucceeded }), 12);
  assert.equal(nextCadence({ current: 12, settings, event: CadenceEvent.MutatingSucceeded }), 12);
});

test('a new task resets to base', () => {
  assert.equal(nextCadence({ current: 3, settings, event: CadenceEvent.TaskStarted }), 8);
  assert.equal(nextCadence({ current: 12, settings, event: CadenceEvent.TaskStarted }), 8);
});

test('the result is always inside [min, max], even from an out-of-range current or base', () => {
  assert.equal(nextCadence({ current: 100, settings, event: CadenceEvent.ToolFailed }), 12);
  assert.equal(nextCadence({ current: 0, settings, event: CadenceEvent.MutatingSucceeded }), 3);
  const lowBase = { base: 1, min: 3, max: 12 };
  assert.equal(nextCadence({ current: 5, settings: lowBase, event: CadenceEvent.TaskStarted }), 3);
  for (const event of Object.values(CadenceEvent)) {
    for (let current = 0; current <= 30; current++) {
      const next = nextCadence({ current, settings, event });
      assert.ok(next >= settings.min && next <= settings.max, `${event} from ${current} gave ${next}`);
    }
  }
});

test('a base of 0 keeps checkpoints off whatever happens', () => {
  for (const event of Object.values(CadenceEvent)) {
    assert.equal(nextCadence({ current: 0, settings: { base: 0, min: 3, max: 12 }, event }), 0);
  }
});

test('the settings schema rejects min above max and accepts the defaults', () => {
  assert.equal(dynamicCadenceSettingsSchema.safeParse({ base: 7, min: 9, max: 4 }).success, false);
  assert.equal(dynamicCadenceSettingsSchema.safeParse({ base: 7, min: 0, max: 4 }).success, false);
  assert.deepEqual(dynamicCadenceSettingsSchema.parse(DEFAULT_DYNAMIC_CADENCE_SETTINGS), {
    base: 7,
    min: 3,
    max: 14,
  });
});
