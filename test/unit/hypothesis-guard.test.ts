import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_HYPOTHESIS_GUARD_SETTINGS as settings,
  hypothesisStreakPrompt,
  observeHypothesis,
} from '../../src/workflows/principles/hypothesis-guard';

function run(mismatches: boolean[]): string[] {
  let streak = 0;
  let warned = false;
  return mismatches.map((mismatch) => {
    const observed = observeHypothesis({ streak, warned, mismatch, settings });
    streak = observed.streak;
    if (streak === 0) warned = false;
    if (observed.verdict.kind === 'warn') warned = true;
    return observed.verdict.kind;
  });
}

test('3 mismatches in a row earn a prompt, 6 a stop', () => {
  assert.deepEqual(run([true, true, true, true, true, true]), [
    'none',
    'none',
    'warn',
    'none',
    'none',
    'stop',
  ]);
});

test('a matching hypothesis ends the streak', () => {
  assert.ok(run([true, true, false, true, true, false, true, true]).every((kind) => kind === 'none'));
});

test('switched off, nothing fires', () => {
  const observed = observeHypothesis({
    streak: 10,
    warned: true,
    mismatch: true,
    settings: { ...settings, enabled: false },
  });
  assert.equal(observed.verdict.kind, 'none');
});

test('the prompt asks which assumption is wrong', () => {
  const prompt = hypothesisStreakPrompt({ streak: 3, stopAfter: 6, consequence: 'stops the goal as stuck' });
  assert.match(prompt, /last 3 stated hypotheses did not match/);
  assert.match(prompt, /At 6 mismatches in a row, keel stops the goal as stuck/);
});
