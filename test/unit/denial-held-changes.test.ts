import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardSettingsSchema, type GuardedCall } from '../../src/workflows/principles/guards';
import { deniedIntentOf } from '../../src/workflows/principles/denial-record';
import { CallEffect } from '../../src/workflows/principles/progress';
import { command, fired, fresh, turn } from './guards-test-helpers';

/**
 * A denied call's held changes reach the denial guard (issue 44 review): the human refused what
 * the copy-on-write layer held, so each new spelling of the same deletion (a script, a one-liner)
 * is the same refused intent, counted toward the denials stop, not a new question.
 */

const heldBuild = { deleted: ['build/a.txt', 'build/b.txt'], modified: [] };

const denied = (line: string, atToolCall: number, held?: GuardedCall['held']): GuardedCall =>
  command(line, atToolCall, {
    resultText: 'Denied by alice',
    effect: CallEffect.Denied,
    ...(held === undefined ? {} : { held }),
  });

test("a denied call's intent takes the changes its layer held as its effects", () => {
  const intent = deniedIntentOf(denied('python3 wipe.py', 1, heldBuild));
  assert.deepEqual(intent.effects, ['build/a.txt', 'build/b.txt']);
  // without held changes, an opaque script has no visible effect: matched by its text alone
  assert.equal(deniedIntentOf(denied('python3 wipe.py', 1)).effects, undefined);
});

test('respellings of one held deletion are one denied intent: warned once, stopped at the third', () => {
  const state = fresh();
  const decisions = [
    turn(state, 1, [denied('python3 wipe.py', 1, heldBuild)]),
    turn(state, 2, [denied('node scripts/clean.js', 2, heldBuild)]),
    turn(state, 3, [denied('ruby -e "load \'tidy.rb\'"', 3, { deleted: ['build/b.txt'], modified: [] })]),
  ];
  assert.deepEqual(fired(decisions), ['1:denials:warn', '3:denials:stop']);
  assert.equal(state.denied.length, 1);
  assert.equal(state.denied[0]?.denials, 3);
  assert.equal(decisions[2]?.[0]?.data.denials, 3);
});

test('the same spellings without held changes are three intents: each only warned', () => {
  const state = fresh();
  const decisions = [
    turn(state, 1, [denied('python3 wipe.py', 1)]),
    turn(state, 2, [denied('node scripts/clean.js', 2)]),
    turn(state, 3, [denied('ruby -e "load \'tidy.rb\'"', 3)]),
  ];
  assert.deepEqual(fired(decisions), ['1:denials:warn', '2:denials:warn', '3:denials:warn']);
  assert.equal(state.denied.length, 3);
});

test('held changes are recorded with the guards off too', () => {
  const state = fresh();
  turn(state, 1, [denied('python3 wipe.py', 1, heldBuild)], guardSettingsSchema.parse({ enabled: false }));
  assert.deepEqual(state.denied[0]?.intent.effects, ['build/a.txt', 'build/b.txt']);
});
