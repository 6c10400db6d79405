import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_GUARD_SETTINGS,
  guardSettingsSchema,
  initialGuardsState,
} from '../../src/workflows/principles/guards';

/**
 * The guards' settings (guards.ts, issue 27: mutation testing): goal input's `guards`, its
 * defaults whole, each limit's bounds at both edges, each cross-field rule at its boundary with
 * its message, unknown keys refused at every level, and the guard state a goal starts with.
 */

/** The refusals of a settings input, as path and message (an empty list: accepted). */
function refusals(input: unknown): { path: string; message: string }[] {
  const parsed = guardSettingsSchema.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

const accepted = (input: unknown) => assert.deepEqual(refusals(input), [], JSON.stringify(input));
const refused = (input: unknown) =>
  assert.equal(guardSettingsSchema.safeParse(input).success, false, `accepted: ${JSON.stringify(input)}`);

test('the defaults, whole: every guard on, loop 3/5 in 10 with cycles up to 4, stagnation 7/9 in 10 or 16 turns, exploration 30/45, denials 3, checkpoints 0.5 from 2 and 3 held turns at 0.8 similarity, hypotheses 3/6', () => {
  const expected = {
    enabled: true,
    loop: { enabled: true, window: 10, warnAt: 3, stopAt: 5, matchResults: true, maxCycleLength: 4 },
    stagnation: {
      enabled: true,
      window: 10,
      warnAfterCalls: 7,
      stopAfterCalls: 9,
      stopAfterTurns: 16,
      exploreWarnAfterCalls: 30,
      exploreStopAfterCalls: 45,
    },
    denials: { enabled: true, stopAfterDenials: 3 },
    checkpoints: {
      enabled: true,
      minResponseRate: 0.5,
      minCheckpoints: 2,
      stopAfterHeldTurns: 3,
      repeatSimilarity: 0.8,
    },
    hypotheses: { enabled: true, warnAfter: 3, stopAfter: 6 },
  };
  assert.deepEqual(DEFAULT_GUARD_SETTINGS, expected);
  assert.deepEqual(guardSettingsSchema.parse({}), expected);
  // a section given in part keeps the defaults of the rest
  assert.deepEqual(guardSettingsSchema.parse({ loop: { warnAt: 4 } }).loop, { ...expected.loop, warnAt: 4 });
  assert.deepEqual(guardSettingsSchema.parse({ enabled: false }), { ...expected, enabled: false });
});

test('each guard is switched off on its own, and all at once with enabled: false', () => {
  for (const section of ['loop', 'stagnation', 'denials', 'checkpoints', 'hypotheses'] as const) {
    const parsed = guardSettingsSchema.parse({ [section]: { enabled: false } });
    assert.equal(parsed[section].enabled, false, section);
    assert.equal(parsed.enabled, true, section);
  }
  refused({ enabled: 'no' });
  refused({ loop: { enabled: 0 } });
});

test('unknown keys are refused at the top and in every section', () => {
  refused({ loops: {} });
  for (const section of ['loop', 'stagnation', 'denials', 'checkpoints', 'hypotheses'])
    refused({ [section]: { unknown: 1 } });
});

test('loop: window 1..100, warnAt and stopAt whole numbers from 2, maxCycleLength 1..8', () => {
  accepted({ loop: { window: 100 } });
  refused({ loop: { window: 101 } });
  // window 2 with cycles off and 2/2: the smallest loop guard there is
  accepted({ loop: { window: 2, warnAt: 2, stopAt: 2, maxCycleLength: 1 } });
  refused({ loop: { window: 0, warnAt: 2, stopAt: 2, maxCycleLength: 1 } });
  refused({ loop: { warnAt: 1 } });
  refused({ loop: { warnAt: 2, stopAt: 1 } });
  accepted({ loop: { warnAt: 2, stopAt: 2 } });
  refused({ loop: { warnAt: 2.5 } });
  refused({ loop: { window: 10.5 } });
  accepted({ loop: { maxCycleLength: 1 } });
  refused({ loop: { maxCycleLength: 0 } });
  accepted({ loop: { window: 16, maxCycleLength: 8 } });
  refused({ loop: { window: 18, maxCycleLength: 9 } });
  refused({ loop: { maxCycleLength: 2.5 } });
});

test('loop: stopAt is refused below 2 on its own account, and must be whole', () => {
  assert.deepEqual(refusals({ loop: { warnAt: 2, stopAt: 1 } }), [
    { path: 'loop.stopAt', message: 'Too small: expected number to be >=2' },
    { path: 'loop', message: 'warnAt must not exceed stopAt' },
  ]);
  refused({ loop: { stopAt: 5.5 } });
  refused({ loop: { warnAt: 3.5 } });
});

test('loop: with cycles off (1) a window of 1 is refused for its stop limit alone', () => {
  assert.deepEqual(refusals({ loop: { window: 1, warnAt: 2, stopAt: 2, maxCycleLength: 1 } }), [
    { path: 'loop', message: 'stopAt must fit in the window' },
  ]);
});

test('loop: warnAt must not exceed stopAt (equal is fine)', () => {
  accepted({ loop: { warnAt: 5, stopAt: 5 } });
  assert.deepEqual(refusals({ loop: { warnAt: 6, stopAt: 5 } }), [
    { path: 'loop', message: 'warnAt must not exceed stopAt' },
  ]);
});

test('loop: stopAt must fit in the window (equal is fine)', () => {
  accepted({ loop: { stopAt: 10, window: 10 } });
  assert.deepEqual(refusals({ loop: { stopAt: 11, window: 10, maxCycleLength: 1 } }), [
    { path: 'loop', message: 'stopAt must fit in the window' },
  ]);
});

test('loop: two rounds of the longest cycle must fit in the window (equal is fine), unless cycles are off (1)', () => {
  accepted({ loop: { window: 8, stopAt: 5, maxCycleLength: 4 } });
  assert.deepEqual(refusals({ loop: { window: 7, stopAt: 5, maxCycleLength: 4 } }), [
    { path: 'loop', message: 'two rounds of maxCycleLength calls must fit in the window' },
  ]);
  accepted({ loop: { window: 4, warnAt: 2, stopAt: 2, maxCycleLength: 2 } });
  refused({ loop: { window: 3, warnAt: 2, stopAt: 2, maxCycleLength: 2 } });
  // cycles off: a window of 2 holds no two rounds of anything, and needs not
  accepted({ loop: { window: 2, warnAt: 2, stopAt: 2, maxCycleLength: 1 } });
  refused({ loop: { window: 3, warnAt: 2, stopAt: 2, maxCycleLength: 2 } });
});

test('stagnation: window 1..100, every limit a whole number from 0 (0: that limit off)', () => {
  accepted({ stagnation: { window: 100 } });
  refused({ stagnation: { window: 101 } });
  refused({ stagnation: { window: 0, warnAfterCalls: 0, stopAfterCalls: 0 } });
  accepted({
    stagnation: {
      window: 1,
      warnAfterCalls: 0,
      stopAfterCalls: 0,
      stopAfterTurns: 0,
      exploreWarnAfterCalls: 0,
      exploreStopAfterCalls: 0,
    },
  });
  for (const key of [
    'warnAfterCalls',
    'stopAfterCalls',
    'stopAfterTurns',
    'exploreWarnAfterCalls',
    'exploreStopAfterCalls',
  ]) {
    refused({ stagnation: { [key]: -1 } });
    refused({ stagnation: { [key]: 1.5 } });
  }
  // exploration and turn limits are not bound by the window
  accepted({ stagnation: { stopAfterTurns: 1000, exploreWarnAfterCalls: 500, exploreStopAfterCalls: 400 } });
});

test('stagnation: warnAfterCalls and stopAfterCalls must fit in the window (equal is fine)', () => {
  accepted({ stagnation: { window: 10, warnAfterCalls: 10, stopAfterCalls: 10 } });
  assert.deepEqual(refusals({ stagnation: { window: 10, warnAfterCalls: 11 } }), [
    { path: 'stagnation', message: 'warnAfterCalls must fit in the window' },
  ]);
  assert.deepEqual(refusals({ stagnation: { window: 10, stopAfterCalls: 11 } }), [
    { path: 'stagnation', message: 'stopAfterCalls must fit in the window' },
  ]);
  // warn above stop is allowed: the stop limit needs a warning first anyway
  accepted({ stagnation: { warnAfterCalls: 9, stopAfterCalls: 7 } });
});

test('denials: a stop from the 2nd denial on, whole numbers', () => {
  accepted({ denials: { stopAfterDenials: 2 } });
  refused({ denials: { stopAfterDenials: 1 } });
  refused({ denials: { stopAfterDenials: 2.5 } });
  accepted({ denials: { stopAfterDenials: 1000 } });
});

test('checkpoints: a rate 0..1, counts from 1, similarity 0.5..1', () => {
  accepted({ checkpoints: { minResponseRate: 0 } });
  accepted({ checkpoints: { minResponseRate: 1 } });
  accepted({ checkpoints: { minResponseRate: 0.25 } });
  refused({ checkpoints: { minResponseRate: -0.1 } });
  refused({ checkpoints: { minResponseRate: 1.1 } });
  accepted({ checkpoints: { minCheckpoints: 1, stopAfterHeldTurns: 1 } });
  refused({ checkpoints: { minCheckpoints: 0 } });
  refused({ checkpoints: { stopAfterHeldTurns: 0 } });
  refused({ checkpoints: { minCheckpoints: 1.5 } });
  accepted({ checkpoints: { repeatSimilarity: 0.5 } });
  accepted({ checkpoints: { repeatSimilarity: 1 } });
  refused({ checkpoints: { repeatSimilarity: 0.49 } });
  refused({ checkpoints: { repeatSimilarity: 1.01 } });
});

test('hypotheses: counts from 1, warnAfter must not exceed stopAfter (equal is fine)', () => {
  accepted({ hypotheses: { warnAfter: 1, stopAfter: 1 } });
  refused({ hypotheses: { warnAfter: 0 } });
  refused({ hypotheses: { warnAfter: 1, stopAfter: 0 } });
  accepted({ hypotheses: { warnAfter: 6, stopAfter: 6 } });
  assert.deepEqual(refusals({ hypotheses: { warnAfter: 7, stopAfter: 6 } }), [
    { path: 'hypotheses', message: 'warnAfter must not exceed stopAfter' },
  ]);
});

test('a goal starts its guards with empty windows, both stretches at the start, nothing warned or decided', () => {
  const stretch = { atToolCall: 4, atTurn: 2, warned: false };
  const empty = {
    recentCalls: [],
    loopWarnedKeys: [],
    exploration: stretch,
    memory: { results: [], states: [], learned: false },
    recentProgress: [],
    warnings: [],
    denied: [],
    replies: [],
    hypotheses: { streak: 0, warned: false },
    checkpoints: { judged: 0, answered: 0, escalated: false, heldTurns: 0 },
    decisions: 0,
  };
  assert.deepEqual(initialGuardsState({ toolCalls: 4, modelTurns: 2 }), { ...empty, progress: stretch });
  assert.deepEqual(initialGuardsState({ toolCalls: 4, modelTurns: 2, progressCycle: 3 }), {
    ...empty,
    progress: { ...stretch, cycleSeen: 3 },
  });
  assert.deepEqual(initialGuardsState({ toolCalls: 4, modelTurns: 2, progressCycle: 0 }).progress, {
    ...stretch,
    cycleSeen: 0,
  });
});
