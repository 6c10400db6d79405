import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_STAGNATION_SETTINGS,
  detectEndlessExploration,
  detectStagnation,
  explorationPrompt,
  stagnationPrompt,
} from '../../src/workflows/principles/stagnation-guard';

/**
 * The stagnation and exploration guards' rules at their edges (issue 27: mutation testing):
 * stagnation-guard.test.ts walks the defaults; these pin what the verdict reports when fewer
 * calls than the window were made, the turns limit at 15 and 16, that a warned stretch is never
 * warned again, and the prompts' whole text (the model reads every line of it).
 */

const settings = DEFAULT_STAGNATION_SETTINGS;

test('the defaults: window 10, a prompt at 7, a stop at 9 calls or 16 turns, exploration 30 and 45', () => {
  assert.deepEqual(DEFAULT_STAGNATION_SETTINGS, {
    enabled: true,
    window: 10,
    warnAfterCalls: 7,
    stopAfterCalls: 9,
    stopAfterTurns: 16,
    exploreWarnAfterCalls: 30,
    exploreStopAfterCalls: 45,
  });
});

test('fewer calls than the window: the share is over the calls made (7 of 7 warns, 6 of 6 does not)', () => {
  const none = (count: number) => Array.from({ length: count }, () => false);
  assert.deepEqual(
    detectStagnation({ recent: none(6), turnsWithoutNew: 2, warned: false, warnedAndRead: false }, settings),
    {
      kind: 'none',
    },
  );
  assert.deepEqual(
    detectStagnation({ recent: none(7), turnsWithoutNew: 2, warned: false, warnedAndRead: false }, settings),
    {
      kind: 'warn',
      callsWithoutNew: 7,
      window: 7,
      turnsWithoutNew: 2,
      limit: 7,
    },
  );
});

test('16 turns without anything new stop after a read warning, 15 do not, however few calls were empty', () => {
  const recent = [true, true, true, true, true, false, false, false, false, false];
  const at = (turnsWithoutNew: number) => ({ recent, turnsWithoutNew, warned: true, warnedAndRead: true });
  assert.deepEqual(detectStagnation(at(15), settings), { kind: 'none' });
  assert.deepEqual(detectStagnation(at(16), settings), {
    kind: 'stop',
    callsWithoutNew: 5,
    window: 10,
    turnsWithoutNew: 16,
    limit: 16,
  });
  // Warned but not yet read: 16 turns do not stop.
  assert.deepEqual(detectStagnation({ ...at(16), warnedAndRead: false }, settings), { kind: 'none' });
});

test('a stretch already warned about is not warned again, read or not (8 of 10, past the prompt at 7)', () => {
  const recent = [true, true, false, false, false, false, false, false, false, false];
  for (const warnedAndRead of [false, true]) {
    assert.deepEqual(
      detectStagnation({ recent, turnsWithoutNew: 3, warned: true, warnedAndRead }, settings),
      {
        kind: 'none',
      },
    );
  }
});

test('exploration: warned and read at 44 calls is no stop yet, and a warned stretch is not warned again', () => {
  assert.deepEqual(
    detectEndlessExploration({ callsWithoutChange: 44, warned: true, warnedAndRead: true }, settings),
    {
      kind: 'none',
    },
  );
  assert.deepEqual(
    detectEndlessExploration({ callsWithoutChange: 99, warned: true, warnedAndRead: false }, settings),
    {
      kind: 'none',
    },
  );
});

test('the stagnation prompt, whole: what counts as nothing new, three ways out, and the stop at its numbers', () => {
  const prompt = stagnationPrompt({
    callsWithoutNew: 8,
    window: 10,
    stopAfterCalls: 9,
    consequence: 'fails the active plan step',
  });
  assert.equal(
    prompt,
    [
      '[No progress] 8 of your last 10 tool calls brought nothing new: results you had already seen, the same failure again, or a change that undid or only repeated an earlier one.',
      'Repeating what you have already done will not finish the task. Do one of these next:',
      '1. Make the change the task asks for, using what you already found',
      '2. Look somewhere you have not looked yet, if something is still missing',
      '3. Give your final answer now, or say in plain text what blocks the task',
      'If 9 of your latest 10 calls bring nothing new, keel fails the active plan step.',
    ].join('\n'),
  );
});

test('the exploration prompt, whole: the calls since a change, what to decide, and the stop at its number', () => {
  const prompt = explorationPrompt({
    callsWithoutChange: 31,
    stopAfterCalls: 45,
    consequence: 'stops the goal as stuck',
  });
  assert.equal(
    prompt,
    [
      '[Still exploring] 31 tool calls since anything in the workspace last changed. Reading is useful, but the task needs an outcome.',
      'Decide now what the change is and make it, or give your final answer with what you found, or say in plain text what blocks the task.',
      'At 45 calls without a change, keel stops the goal as stuck.',
    ].join('\n'),
  );
});

test('a stop turned off (limit 0) is never threatened: the turns limit is named instead, or no stop at all', () => {
  const last = (stopAfterCalls: number, stopAfterTurns?: number) =>
    stagnationPrompt({
      callsWithoutNew: 7,
      window: 10,
      stopAfterCalls,
      stopAfterTurns,
      consequence: 'stops the goal as stuck',
    })
      .split('\n')
      .slice(5);
  assert.deepEqual(last(9, 16), [
    'If 9 of your latest 10 calls bring nothing new, keel stops the goal as stuck.',
  ]);
  assert.deepEqual(last(0, 16), [
    'If 16 of your turns in a row bring nothing new, keel stops the goal as stuck.',
  ]);
  assert.deepEqual(last(0, 0), []);
  assert.deepEqual(last(0), []);
  assert.equal(
    explorationPrompt({ callsWithoutChange: 30, stopAfterCalls: 0, consequence: 'stops the goal as stuck' }),
    [
      '[Still exploring] 30 tool calls since anything in the workspace last changed. Reading is useful, but the task needs an outcome.',
      'Decide now what the change is and make it, or give your final answer with what you found, or say in plain text what blocks the task.',
    ].join('\n'),
  );
});
