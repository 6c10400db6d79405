import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_STAGNATION_SETTINGS,
  detectEndlessExploration,
  detectStagnation,
  explorationPrompt,
  stagnationPrompt,
} from '../../src/workflows/principles/stagnation-guard';

/** `nothing` calls that brought nothing new after `fresh` that did, in the latest calls. */
const calls = (fresh: number, nothing: number) => [
  ...Array.from({ length: fresh }, () => true),
  ...Array.from({ length: nothing }, () => false),
];
const input = (recent: boolean[], warned = false, read = warned, turnsWithoutNew = 0) => ({
  recent,
  warned,
  warnedAndRead: read,
  turnsWithoutNew,
});

test('defaults: a prompt at 7 of the last 10 calls bringing nothing new, a stop at 9 once the model read it', () => {
  const settings = DEFAULT_STAGNATION_SETTINGS;
  assert.equal(settings.window, 10);
  assert.equal(detectStagnation(input(calls(4, 6)), settings).kind, 'none');
  assert.deepEqual(detectStagnation(input(calls(3, 7)), settings), {
    kind: 'warn',
    callsWithoutNew: 7,
    window: 10,
    turnsWithoutNew: 0,
    limit: 7,
  });
  assert.equal(detectStagnation(input(calls(2, 8), true), settings).kind, 'none');
  assert.deepEqual(detectStagnation(input(calls(1, 9), true), settings), {
    kind: 'stop',
    callsWithoutNew: 9,
    window: 10,
    turnsWithoutNew: 0,
    limit: 9,
  });
});

test('a share, not a run: one new thing every few calls does not reset it', () => {
  // a scratch write every 5th call among re-reads: 8 of 10 still bring nothing new
  const recent = [false, false, false, false, true, false, false, false, false, true];
  assert.equal(detectStagnation(input(recent), DEFAULT_STAGNATION_SETTINGS).kind, 'warn');
  // only the latest `window` calls count
  assert.equal(
    detectStagnation(input([...calls(0, 20), ...calls(10, 0)]), DEFAULT_STAGNATION_SETTINGS).kind,
    'none',
  );
});

test('a stop needs a warning the model has read', () => {
  // warned in this very turn: not read yet, so no stop however bad
  assert.equal(detectStagnation(input(calls(0, 10), true, false), DEFAULT_STAGNATION_SETTINGS).kind, 'none');
  // never warned: warned first
  assert.equal(detectStagnation(input(calls(0, 10)), DEFAULT_STAGNATION_SETTINGS).kind, 'warn');
});

test('16 turns without anything new stop too (many calls per turn or few)', () => {
  const stop = detectStagnation(input(calls(5, 5), true, true, 16), DEFAULT_STAGNATION_SETTINGS);
  assert.equal(stop.kind, 'stop');
  assert.equal(
    detectStagnation(input(calls(5, 5), true, true, 15), DEFAULT_STAGNATION_SETTINGS).kind,
    'none',
  );
});

test('exploration: a prompt at 30 calls without a change, a stop at 45 after it was read', () => {
  const settings = DEFAULT_STAGNATION_SETTINGS;
  const at = (callsWithoutChange: number, warned = false, warnedAndRead = warned) => ({
    callsWithoutChange,
    warned,
    warnedAndRead,
  });
  assert.equal(detectEndlessExploration(at(29), settings).kind, 'none');
  assert.deepEqual(detectEndlessExploration(at(30), settings), {
    kind: 'warn',
    callsWithoutChange: 30,
    limit: 30,
  });
  assert.equal(detectEndlessExploration(at(44, true), settings).kind, 'none');
  assert.equal(detectEndlessExploration(at(45, true, false), settings).kind, 'none');
  assert.deepEqual(detectEndlessExploration(at(45, true), settings), {
    kind: 'stop',
    callsWithoutChange: 45,
    limit: 45,
  });
});

test('switched off: neither guard fires, even at 10 of 10 calls and 99 calls without a change', () => {
  const off = { ...DEFAULT_STAGNATION_SETTINGS, enabled: false };
  assert.equal(detectStagnation(input(calls(0, 10)), off).kind, 'none');
  assert.equal(detectStagnation(input(calls(0, 10), true, true, 50), off).kind, 'none');
  for (const warned of [false, true]) {
    const exploring = { callsWithoutChange: 99, warned, warnedAndRead: warned };
    assert.equal(detectEndlessExploration(exploring, off).kind, 'none');
  }
});

test('a limit of 0 switches off its own rule only (10 of 10 calls, 50 turns, 99 calls without a change)', () => {
  const base = DEFAULT_STAGNATION_SETTINGS;
  const stagnation = (
    kind: 'warn' | 'stop',
    callsWithoutNew: number,
    turnsWithoutNew: number,
    limit: number,
  ) => ({
    kind,
    callsWithoutNew,
    window: 10,
    turnsWithoutNew,
    limit,
  });
  // warnAfterCalls 0: no warning, even with nothing new in any call; a warning already read still
  // leads to both stops (at 9 of 10 calls, at 16 turns). In a goal no such warning is then given,
  // so neither stop comes either: every stop follows a warning the model has read.
  const noWarn = { ...base, warnAfterCalls: 0 };
  assert.deepEqual(detectStagnation(input(calls(0, 10)), noWarn), { kind: 'none' });
  assert.deepEqual(
    detectStagnation(input(calls(0, 10), true, true, 0), noWarn),
    stagnation('stop', 10, 0, 9),
  );
  assert.deepEqual(
    detectStagnation(input(calls(10, 0), true, true, 16), noWarn),
    stagnation('stop', 0, 16, 16),
  );
  // stopAfterCalls 0: 10 of 10 does not stop; the turns rule still stops at 16, the warning still comes.
  const noCallStop = { ...base, stopAfterCalls: 0 };
  assert.deepEqual(detectStagnation(input(calls(0, 10), true, true, 0), noCallStop), { kind: 'none' });
  assert.deepEqual(
    detectStagnation(input(calls(0, 10), true, true, 16), noCallStop),
    stagnation('stop', 10, 16, 16),
  );
  assert.deepEqual(detectStagnation(input(calls(0, 10)), noCallStop), stagnation('warn', 10, 0, 7));
  // stopAfterTurns 0: 50 turns do not stop; the calls rule still stops at 9, the warning still comes.
  const noTurnStop = { ...base, stopAfterTurns: 0 };
  assert.deepEqual(detectStagnation(input(calls(10, 0), true, true, 50), noTurnStop), { kind: 'none' });
  assert.deepEqual(
    detectStagnation(input(calls(1, 9), true, true, 50), noTurnStop),
    stagnation('stop', 9, 50, 9),
  );
  assert.deepEqual(
    detectStagnation(input(calls(0, 10), false, false, 50), noTurnStop),
    stagnation('warn', 10, 50, 7),
  );
  // All three 0: nothing fires, warned or not.
  const zero = { ...base, warnAfterCalls: 0, stopAfterCalls: 0, stopAfterTurns: 0 };
  assert.deepEqual(detectStagnation(input(calls(0, 10), false, false, 50), zero), { kind: 'none' });
  assert.deepEqual(detectStagnation(input(calls(0, 10), true, true, 50), zero), { kind: 'none' });
  // Exploration: a limit of 0 switches off its warning or its stop, not the other (here too, in a
  // goal without the warning the stop never comes).
  const fresh = { callsWithoutChange: 99, warned: false, warnedAndRead: false };
  const read = { callsWithoutChange: 99, warned: true, warnedAndRead: true };
  assert.deepEqual(detectEndlessExploration(fresh, { ...base, exploreWarnAfterCalls: 0 }), { kind: 'none' });
  assert.deepEqual(detectEndlessExploration(read, { ...base, exploreWarnAfterCalls: 0 }), {
    kind: 'stop',
    callsWithoutChange: 99,
    limit: 45,
  });
  assert.deepEqual(detectEndlessExploration(read, { ...base, exploreStopAfterCalls: 0 }), { kind: 'none' });
  assert.deepEqual(detectEndlessExploration(fresh, { ...base, exploreStopAfterCalls: 0 }), {
    kind: 'warn',
    callsWithoutChange: 99,
    limit: 30,
  });
});

test('the prompts say what counts, what to do, and what happens next', () => {
  const prompt = stagnationPrompt({
    callsWithoutNew: 7,
    window: 10,
    stopAfterCalls: 9,
    consequence: 'stops the goal as stuck',
  });
  assert.match(prompt, /7 of your last 10 tool calls brought nothing new/);
  assert.match(prompt, /If 9 of your latest 10 calls bring nothing new, keel stops the goal as stuck/);
  assert.doesNotMatch(prompt, /npm|cargo|grep/i);
  assert.match(
    explorationPrompt({
      callsWithoutChange: 30,
      stopAfterCalls: 45,
      consequence: 'fails the active plan step',
    }),
    /30 tool calls since anything in the workspace last changed[\s\S]*At 45 calls without a change, keel fails the active plan step/,
  );
});
