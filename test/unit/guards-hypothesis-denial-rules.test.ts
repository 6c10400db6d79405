import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardSettingsSchema, type GuardedCall } from '../../src/workflows/principles/guards';
import { CallEffect } from '../../src/workflows/principles/progress';
import { command, fresh, oneByOne, read, STUCK, turn } from './guards-test-helpers';

/**
 * guardTurn's decisions per call, continued (guards.ts, issue 27: mutation testing): the
 * hypothesis and denial guards — each decision whole with its prompt's whole text, a stop only
 * once the model has read the warning — the newest 40 warnings remembered, the order of a turn's
 * decisions, and all guards off. The loop and cycle guards are in guards-rules.test.ts.
 */

/** A command a human denied: a failed call that ran nothing. */
const denied = (line: string): GuardedCall =>
  command(line, 0, { resultText: 'Denied by alice', effect: CallEffect.Denied });

const hypothesisPromptText = (streak: number, stopAfter: number, consequence = STUCK) =>
  [
    `[Hypotheses keep missing] Your last ${streak} stated hypotheses did not match what the calls returned.`,
    'Your picture of the workspace is wrong somewhere. Before the next call:',
    '1. Say in plain text which assumption the results contradict',
    '2. Make a call that checks that assumption directly',
    '3. State a hypothesis only when you have a reason to expect it',
    `At ${stopAfter} mismatches in a row, keel ${consequence}.`,
  ].join('\n');

const missed = (n: number, mismatch: boolean | undefined = true) =>
  read(`h${n}`, n, { hypothesisMismatch: mismatch });

test('hypotheses: warned at 3 mismatches in a row (decision whole), stopped at the 6th with the turn of the warning', () => {
  const state = fresh();
  const decisions = oneByOne(
    state,
    [1, 2, 3, 4, 5, 6].map((n) => missed(n)),
  );
  assert.deepEqual(decisions, [
    [],
    [],
    [
      {
        guard: 'hypotheses',
        action: 'warn',
        summary: 'hypotheses: 3 in a row did not match the results',
        prompt: hypothesisPromptText(3, 6),
        data: { streak: 3, limit: 3, atToolCall: 3, call: 'read_file: h3' },
      },
    ],
    [],
    [],
    [
      {
        guard: 'hypotheses',
        action: 'stop',
        summary: 'hypotheses: 6 in a row did not match the results, after a warning',
        data: { streak: 6, limit: 6, atToolCall: 6, call: 'read_file: h6', warnedAtTurn: 3 },
      },
    ],
  ]);
  assert.deepEqual(state.hypotheses, { streak: 6, warned: true });
  assert.deepEqual(state.warnings, [{ about: 'hypotheses', atTurn: 3 }]);
});

test('hypotheses: a call without one neither breaks nor extends the streak; a match ends it', () => {
  const state = fresh();
  const decisions = oneByOne(state, [missed(1), read('h2', 2), missed(3), missed(4)]);
  assert.deepEqual(
    decisions.map((list) => list.map((decision) => [decision.guard, decision.data.streak])),
    [[], [], [], [['hypotheses', 3]]],
  );
  const ended = fresh();
  assert.deepEqual(
    oneByOne(ended, [missed(1), missed(2), missed(3, false), missed(4), missed(5)]).flat(),
    [],
  );
  assert.deepEqual(ended.hypotheses, { streak: 2, warned: false });
});

test('hypotheses: a match after the warning starts afresh: the next streak is warned again before any stop', () => {
  const state = fresh();
  const calls = [1, 2, 3].map((n) => missed(n));
  calls.push(missed(4, false), ...[5, 6, 7, 8, 9, 10].map((n) => missed(n)));
  const fired = oneByOne(state, calls).flatMap((list, index) =>
    list.map((decision) => `${index + 1}:${decision.guard}:${decision.action}`),
  );
  assert.deepEqual(fired, ['3:hypotheses:warn', '7:hypotheses:warn', '10:hypotheses:stop']);
  assert.deepEqual(state.warnings, [{ about: 'hypotheses', atTurn: 7 }]);
});

test('hypotheses: 7 mismatches in one turn are warned once, never stopped in that turn; the next mismatch stops', () => {
  const state = fresh();
  const first = turn(
    state,
    1,
    [1, 2, 3, 4, 5, 6, 7].map((n) => missed(n)),
  );
  assert.deepEqual(
    first.map((decision) => [decision.guard, decision.action, decision.data.streak]),
    [['hypotheses', 'warn', 3]],
  );
  const second = turn(state, 2, [missed(8)]);
  assert.deepEqual(
    second.map((decision) => [
      decision.guard,
      decision.action,
      decision.data.streak,
      decision.data.warnedAtTurn,
    ]),
    [['hypotheses', 'stop', 8, 1]],
  );
});

test('hypotheses: switched off, a streak is counted but never decided on', () => {
  const settings = guardSettingsSchema.parse({ hypotheses: { enabled: false } });
  const state = fresh();
  assert.deepEqual(
    oneByOne(
      state,
      [1, 2, 3, 4, 5, 6, 7].map((n) => missed(n)),
      settings,
    ).flat(),
    [],
  );
  assert.deepEqual(state.hypotheses, { streak: 7, warned: false });
});

const denialPromptText = (summary: string, intent: string, stopAfter = 3) =>
  [
    `[Denied] This call was not approved, and nothing of it reached the workspace: ${summary}`,
    `Do not ask for it again, and do not ask for the same thing another way (${intent}): what was refused is what the call would do, so any other tool, a script or another command that would delete or overwrite the same paths waits for a human too and counts as asking again.`,
    'Reach the goal without it, or give your final answer and say plainly what is blocked and what a human would need to do.',
    `If this request is denied ${stopAfter} times, keel ${STUCK}.`,
  ].join('\n');

test('denials: the first denial warned (decision whole), the 2nd nothing, the 3rd (in other words) stopped with the turn of the warning', () => {
  const state = fresh();
  const decisions = ['rm -rf build', 'rm -r ./build', 'find build -delete'].map((line, index) =>
    turn(state, index + 1, [denied(line)]),
  );
  assert.deepEqual(decisions, [
    [
      {
        guard: 'denials',
        action: 'warn',
        summary: 'denials: run_command: rm -rf build was denied',
        prompt: denialPromptText('run_command: rm -rf build', 'run_command on build'),
        data: {
          call: 'run_command: rm -rf build',
          intent: 'run_command on build',
          denials: 1,
          limit: 3,
          atToolCall: 0,
        },
      },
    ],
    [],
    [
      {
        guard: 'denials',
        action: 'stop',
        summary: 'denials: run_command on build asked for again and denied 3 times, after a warning',
        data: {
          call: 'run_command: find build -delete',
          intent: 'run_command on build',
          denials: 3,
          limit: 3,
          atToolCall: 0,
          warnedAtTurn: 1,
        },
      },
    ],
  ]);
  assert.deepEqual(state.warnings, [{ about: 'denial run_command on build', atTurn: 1 }]);
  assert.deepEqual(state.recentCalls, []);
  assert.deepEqual(state.recentProgress, [false, false, false]);
});

test('denials: three in one turn are warned once and not stopped (the warning is unread); the 4th, next turn, stops', () => {
  const state = fresh();
  const first = turn(state, 1, [denied('rm -rf build'), denied('rm -rf build'), denied('rm -rf build')]);
  assert.deepEqual(
    first.map((decision) => [decision.guard, decision.action]),
    [['denials', 'warn']],
  );
  const second = turn(state, 2, [denied('rm -rf build')]);
  assert.deepEqual(
    second.map((decision) => [
      decision.guard,
      decision.action,
      decision.data.denials,
      decision.data.warnedAtTurn,
    ]),
    [['denials', 'stop', 4, 1]],
  );
});

test('denials: a denied call is no loop, cycle or hypothesis: it did not run', () => {
  const settings = guardSettingsSchema.parse({ denials: { stopAfterDenials: 100 } });
  const state = fresh();
  const calls = Array.from({ length: 6 }, (_, index) => ({
    ...denied(index % 2 === 0 ? 'rm -rf build' : 'rm -rf dist'),
    hypothesisMismatch: true,
  }));
  const decisions = turn(state, 1, calls, settings);
  assert.deepEqual(
    decisions.map((decision) => [decision.guard, decision.action, decision.data.call]),
    [
      ['denials', 'warn', 'run_command: rm -rf build'],
      ['denials', 'warn', 'run_command: rm -rf dist'],
    ],
  );
  assert.deepEqual(state.hypotheses, { streak: 0, warned: false });
  assert.deepEqual(state.loopWarnedKeys, []);
});

test('denials: the limit comes from the settings', () => {
  const settings = guardSettingsSchema.parse({ denials: { stopAfterDenials: 2 } });
  const state = fresh();
  const first = turn(state, 1, [denied('rm -rf build')], settings);
  assert.equal(first[0]?.prompt, denialPromptText('run_command: rm -rf build', 'run_command on build', 2));
  assert.equal(first[0]?.data.limit, 2);
  const second = turn(state, 2, [denied('rm -rf build')], settings);
  assert.deepEqual(
    second.map((decision) => [decision.action, decision.data.limit]),
    [['stop', 2]],
  );
});

test('the newest 40 warnings are remembered: the 41st pushes out the oldest', () => {
  const state = fresh();
  const settings = guardSettingsSchema.parse({ stagnation: { enabled: false } });
  const calls = Array.from({ length: 41 }, (_, index) => denied(`rm -rf dir-${index}`));
  const decisions = turn(state, 1, calls, settings);
  assert.equal(decisions.filter((decision) => decision.guard === 'denials').length, 41);
  assert.deepEqual(
    state.warnings.map((warning) => warning.about),
    Array.from({ length: 40 }, (_, index) => `denial run_command on dir-${index + 1}`),
  );
});

test('a turn’s decisions come in order: per call loop, cycle, hypotheses; then stagnation, then exploration; all counted', () => {
  const settings = guardSettingsSchema.parse({
    loop: { warnAt: 2, stopAt: 2, window: 4, maxCycleLength: 2 },
    stagnation: { window: 4, warnAfterCalls: 2, stopAfterCalls: 4, exploreWarnAfterCalls: 4 },
    hypotheses: { warnAfter: 1, stopAfter: 1 },
  });
  const state = fresh();
  const decisions = turn(
    state,
    1,
    [read('a', 1), read('b', 2), read('a', 3), read('b', 4, { hypothesisMismatch: true })],
    settings,
  );
  assert.deepEqual(
    decisions.map((decision) => [decision.guard, decision.action, decision.data.atToolCall]),
    [
      ['loop', 'warn', 3],
      ['loop', 'warn', 4],
      ['cycle', 'warn', 4],
      ['hypotheses', 'warn', 4],
      ['stagnation', 'warn', 4],
      ['exploration', 'warn', 4],
    ],
  );
  assert.equal(state.decisions, 6);
});

test('all guards off: no decision, and nothing is remembered but the denials the approvals read', () => {
  const settings = guardSettingsSchema.parse({ enabled: false });
  const state = fresh();
  const before = structuredClone(state);
  assert.deepEqual(
    turn(state, 1, [read('a', 1), read('a', 2), read('a', 3), denied('rm -rf build')], settings),
    [],
  );
  // the denied intent is recorded, as with the guards on, so a later call with its effect is held
  const intent = { tool: 'run_command', targets: ['build'], call: '', effects: ['build'] };
  assert.deepEqual(state, { ...before, denied: [{ intent, denials: 1 }] });
  assert.deepEqual(turn(state, 2, [denied('rm -rf build'), denied('rm -rf build')], settings), []);
  assert.deepEqual(state.denied, [{ intent, denials: 3 }]);
  assert.deepEqual(state.warnings, []);
  assert.equal(state.decisions, 0);
});
