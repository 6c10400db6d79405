import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_HYPOTHESIS_GUARD_SETTINGS as settings,
  hypothesisStreakPrompt,
  observeHypothesis,
} from '../../src/workflows/principles/hypothesis-guard';

// The streak rules stated with their numbers (issue 27): the verdicts whole, streak and limit
// included, since the workflow's prompt and ledger show them.

test('defaults: the guard is on, a prompt at 3 mismatches in a row and a stop at 6', () => {
  assert.deepEqual(settings, { enabled: true, warnAfter: 3, stopAfter: 6 });
});

test('the 3rd mismatch in a row earns a warning that says 3 of a limit of 3; the 2nd earns nothing', () => {
  assert.deepEqual(observeHypothesis({ streak: 1, warned: false, mismatch: true, settings }), {
    streak: 2,
    verdict: { kind: 'none' },
  });
  assert.deepEqual(observeHypothesis({ streak: 2, warned: false, mismatch: true, settings }), {
    streak: 3,
    verdict: { kind: 'warn', streak: 3, limit: 3 },
  });
});

test('after the warning, the 6th mismatch in a row stops with 6 of a limit of 6; the 5th does not', () => {
  assert.deepEqual(observeHypothesis({ streak: 4, warned: true, mismatch: true, settings }), {
    streak: 5,
    verdict: { kind: 'none' },
  });
  assert.deepEqual(observeHypothesis({ streak: 5, warned: true, mismatch: true, settings }), {
    streak: 6,
    verdict: { kind: 'stop', streak: 6, limit: 6 },
  });
});

test('without a warning, even 6 mismatches in a row are warned about first, never stopped', () => {
  assert.deepEqual(observeHypothesis({ streak: 5, warned: false, mismatch: true, settings }), {
    streak: 6,
    verdict: { kind: 'warn', streak: 6, limit: 3 },
  });
});

test('a match resets the streak to 0 with no verdict, even after 5 warned mismatches', () => {
  assert.deepEqual(observeHypothesis({ streak: 5, warned: true, mismatch: false, settings }), {
    streak: 0,
    verdict: { kind: 'none' },
  });
  // With limits of 0 a streak of 0 would reach them: a match still earns nothing.
  const zero = { ...settings, warnAfter: 0, stopAfter: 0 };
  for (const warned of [false, true]) {
    assert.deepEqual(observeHypothesis({ streak: 5, warned, mismatch: false, settings: zero }), {
      streak: 0,
      verdict: { kind: 'none' },
    });
  }
});

test('switched off, the streak still counts (7 after 6) but no verdict comes, warned or not', () => {
  const off = { ...settings, enabled: false };
  for (const warned of [false, true]) {
    assert.deepEqual(observeHypothesis({ streak: 6, warned, mismatch: true, settings: off }), {
      streak: 7,
      verdict: { kind: 'none' },
    });
  }
});

test('the streak prompt: the count, the three steps, and what happens at the limit', () => {
  const prompt = hypothesisStreakPrompt({
    streak: 4,
    stopAfter: 6,
    consequence: 'fails the active plan step',
  });
  assert.deepEqual(prompt.split('\n'), [
    '[Hypotheses keep missing] Your last 4 stated hypotheses did not match what the calls returned.',
    'Your picture of the workspace is wrong somewhere. Before the next call:',
    '1. Say in plain text which assumption the results contradict',
    '2. Make a call that checks that assumption directly',
    '3. State a hypothesis only when you have a reason to expect it',
    'At 6 mismatches in a row, keel fails the active plan step.',
  ]);
});
