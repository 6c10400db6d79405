import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_GUARD_SETTINGS,
  guardSettingsSchema,
  guardTurn,
  initialGuardsState,
} from '../../src/workflows/principles/guards';
import { CallEffect } from '../../src/workflows/principles/progress';
import { fired, fresh, oneByOne, read, STUCK, turn, write } from './guards-test-helpers';

/**
 * guardTurn's stretches (guards.ts, issue 27: mutation testing): the stagnation and exploration
 * guards over a turn — each decision whole with its prompt's whole text, a stop only after a
 * warning the model has read — and how each call's progress moves the stretches: something new
 * moves the stagnation stretch, a new lasting state or a completed plan step also restarts
 * exploration and lets a stagnation warning be given afresh.
 */

/** A read of another file with a result already seen (new-1's, once it was read): nothing new, and no loop. */
const seen = (atToolCall: number) =>
  read(`same-${atToolCall}`, atToolCall, { resultText: 'contents of new-1' });

/** Calls 1-3 new, then reads of what was seen. */
const stagnating = (count: number) =>
  Array.from({ length: count }, (_, index) =>
    index < 3 ? read(`new-${index + 1}`, index + 1) : seen(index + 1),
  );

test('stagnation: 7 of the last 10 calls without anything new warned (decision whole); 9 stopped after the warning', () => {
  const state = fresh();
  const decisions = oneByOne(state, stagnating(12));
  assert.deepEqual(fired(decisions), ['10:stagnation:warn', '12:stagnation:stop']);
  assert.deepEqual(decisions[9], [
    {
      guard: 'stagnation',
      action: 'warn',
      summary: 'stagnation: 7 of the last 10 tool calls brought nothing new',
      prompt: [
        '[No progress] 7 of your last 10 tool calls brought nothing new: results you had already seen, the same failure again, or a change that undid or only repeated an earlier one.',
        'Repeating what you have already done will not finish the task. Do one of these next:',
        '1. Make the change the task asks for, using what you already found',
        '2. Look somewhere you have not looked yet, if something is still missing',
        '3. Give your final answer now, or say in plain text what blocks the task',
        `If 9 of your latest 10 calls bring nothing new, keel ${STUCK}.`,
      ].join('\n'),
      data: {
        callsWithoutNew: 7,
        window: 10,
        turnsWithoutNew: 7,
        limit: 7,
        lastNewAtToolCall: 3,
        atToolCall: 10,
      },
    },
  ]);
  assert.deepEqual(decisions[11], [
    {
      guard: 'stagnation',
      action: 'stop',
      summary:
        'stagnation: 9 of the last 10 tool calls brought nothing new (9 model turns since anything new), after a warning',
      data: {
        callsWithoutNew: 9,
        window: 10,
        turnsWithoutNew: 9,
        limit: 9,
        lastNewAtToolCall: 3,
        atToolCall: 12,
        warnedAtTurn: 10,
      },
    },
  ]);
  assert.deepEqual(state.progress, { atToolCall: 3, atTurn: 3, warned: true });
  assert.deepEqual(state.recentProgress, [
    true,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
});

test('stagnation: the share is taken over the settings’ window (the newest calls only)', () => {
  const settings = guardSettingsSchema.parse({
    stagnation: { window: 3, warnAfterCalls: 2, stopAfterCalls: 3 },
  });
  const state = fresh();
  turn(state, 1, [read('new-1', 1), read('b', 2), read('c', 3), read('d', 4)], settings);
  assert.deepEqual(state.recentProgress, [true, true, true]);
  const decisions = turn(state, 2, [seen(5), seen(6)], settings);
  assert.deepEqual(state.recentProgress, [true, false, false]);
  assert.deepEqual(
    decisions.map((decision) => [
      decision.guard,
      decision.action,
      decision.data.callsWithoutNew,
      decision.data.window,
    ]),
    [['stagnation', 'warn', 2, 3]],
  );
});

test('stagnation: turns without anything new are counted from the turn of the last new call, and stop at their limit', () => {
  const settings = guardSettingsSchema.parse({ stagnation: { stopAfterCalls: 0, stopAfterTurns: 4 } });
  const state = fresh();
  const calls = stagnating(12);
  // turn 1: the three new reads; then one seen call a turn
  turn(state, 1, calls.slice(0, 3), settings);
  const decisions = calls.slice(3).map((call, index) => turn(state, index + 2, [call], settings));
  // by the turn's index: the warning at turn 8, the stop at turn 9 (8 turns since anything new)
  assert.deepEqual(fired(decisions), ['7:stagnation:warn', '8:stagnation:stop', '9:stagnation:stop']);
  assert.deepEqual(decisions[6]?.[0]?.data, {
    callsWithoutNew: 7,
    window: 10,
    turnsWithoutNew: 7,
    limit: 7,
    lastNewAtToolCall: 3,
    atToolCall: 10,
  });
  // The calls' stop is off: the warning names the turns' stop, not "0 of your latest 10 calls".
  assert.equal(
    decisions[6]?.[0]?.prompt?.split('\n').at(-1),
    'If 4 of your turns in a row bring nothing new, keel stops the goal as stuck.',
  );
  assert.deepEqual(decisions[7]?.[0]?.data, {
    callsWithoutNew: 8,
    window: 10,
    turnsWithoutNew: 8,
    limit: 4,
    lastNewAtToolCall: 3,
    atToolCall: 11,
    warnedAtTurn: 8,
  });
  assert.equal(
    decisions[7]?.[0]?.summary,
    'stagnation: 8 of the last 10 tool calls brought nothing new (8 model turns since anything new), after a warning',
  );
});

test('stagnation: a warning in this turn is not read yet: no stop in the same turn', () => {
  const state = fresh();
  const decisions = turn(state, 1, stagnating(12));
  assert.deepEqual(
    decisions.map((decision) => [decision.guard, decision.action, decision.data.callsWithoutNew]),
    [['stagnation', 'warn', 9]],
  );
  assert.deepEqual(
    turn(state, 2, [seen(13)]).map((decision) => [
      decision.guard,
      decision.action,
      decision.data.warnedAtTurn,
    ]),
    [['stagnation', 'stop', 1]],
  );
});

test('stagnation: a new state clears the warning: the next stretch is warned afresh, even past the stop limit', () => {
  const state = fresh();
  oneByOne(state, stagnating(10));
  // turn 11: a new state, then two calls that bring nothing: 9 of the last 10 without anything new
  const decisions = turn(state, 11, [write('notes.md', 'plan', 11), seen(12), seen(13)]);
  assert.deepEqual(decisions, [
    {
      guard: 'stagnation',
      action: 'warn',
      summary: 'stagnation: 9 of the last 10 tool calls brought nothing new',
      prompt: [
        '[No progress] 9 of your last 10 tool calls brought nothing new: results you had already seen, the same failure again, or a change that undid or only repeated an earlier one.',
        'Repeating what you have already done will not finish the task. Do one of these next:',
        '1. Make the change the task asks for, using what you already found',
        '2. Look somewhere you have not looked yet, if something is still missing',
        '3. Give your final answer now, or say in plain text what blocks the task',
        `If 9 of your latest 10 calls bring nothing new, keel ${STUCK}.`,
      ].join('\n'),
      data: {
        callsWithoutNew: 9,
        window: 10,
        turnsWithoutNew: 0,
        limit: 7,
        lastNewAtToolCall: 11,
        atToolCall: 13,
      },
    },
  ]);
  assert.deepEqual(state.warnings, [{ about: 'stagnation', atTurn: 11 }]);
  assert.deepEqual(
    turn(state, 12, [seen(14)]).map((decision) => [
      decision.guard,
      decision.action,
      decision.data.warnedAtTurn,
    ]),
    [['stagnation', 'stop', 11]],
  );
});

test('stagnation: something new (not a change) moves the stretch but keeps its warning', () => {
  const state = fresh();
  oneByOne(state, stagnating(10));
  assert.deepEqual(turn(state, 11, [read('new-11', 11)]), []);
  assert.deepEqual(state.progress, { atToolCall: 11, atTurn: 11, warned: true });
  assert.deepEqual(state.exploration, { atToolCall: 0, atTurn: 0, warned: false });
  // 9 of the last 10 without anything new (calls 4-10, 12, 13): a stop, not a second warning
  assert.deepEqual(
    turn(state, 12, [seen(12), seen(13)]).map((decision) => [
      decision.guard,
      decision.action,
      decision.data.turnsWithoutNew,
    ]),
    [['stagnation', 'stop', 1]],
  );
});

test('stagnation: switched off, no decision; exploration (its settings) off too', () => {
  const settings = guardSettingsSchema.parse({ stagnation: { enabled: false, exploreWarnAfterCalls: 1 } });
  const state = fresh();
  assert.deepEqual(fired(oneByOne(state, stagnating(14), settings)), []);
});

const exploring = guardSettingsSchema.parse({
  stagnation: { exploreWarnAfterCalls: 3, exploreStopAfterCalls: 5 },
});

test('exploration: warned at 3 calls without a change (decision whole), stopped at 5 after the warning', () => {
  const state = fresh();
  const decisions = oneByOne(
    state,
    [1, 2, 3, 4, 5].map((n) => read(`f${n}`, n)),
    exploring,
  );
  assert.deepEqual(decisions, [
    [],
    [],
    [
      {
        guard: 'exploration',
        action: 'warn',
        summary: 'exploration: 3 tool calls without a change to the workspace',
        prompt: [
          '[Still exploring] 3 tool calls since anything in the workspace last changed. Reading is useful, but the task needs an outcome.',
          'Decide now what the change is and make it, or give your final answer with what you found, or say in plain text what blocks the task.',
          `At 5 calls without a change, keel ${STUCK}.`,
        ].join('\n'),
        data: { callsWithoutChange: 3, limit: 3, lastChangeAtToolCall: 0, atToolCall: 3 },
      },
    ],
    [],
    [
      {
        guard: 'exploration',
        action: 'stop',
        summary: 'exploration: 5 tool calls without a change to the workspace, after a warning',
        data: { callsWithoutChange: 5, limit: 5, lastChangeAtToolCall: 0, atToolCall: 5, warnedAtTurn: 3 },
      },
    ],
  ]);
  assert.deepEqual(state.exploration, { atToolCall: 0, atTurn: 0, warned: true });
});

test('exploration: counted from the last new state; a change restarts it and a jump past the stop is warned first', () => {
  const state = fresh();
  const first = oneByOne(
    state,
    [1, 2, 3].map((n) => read(`f${n}`, n)),
    exploring,
  );
  assert.deepEqual(fired(first), ['3:exploration:warn']);
  assert.deepEqual(turn(state, 4, [write('a.ts', 'fix', 4)], exploring), []);
  assert.deepEqual(state.exploration, { atToolCall: 4, atTurn: 4, warned: false });
  assert.deepEqual(state.progress, { atToolCall: 4, atTurn: 4, warned: false });
  // five reads in one turn: 5 calls without a change, but the old warning is not this stretch's
  const decisions = turn(
    state,
    5,
    [5, 6, 7, 8, 9].map((n) => read(`g${n}`, n)),
    exploring,
  );
  assert.deepEqual(
    decisions.map((decision) => [decision.guard, decision.action, decision.data]),
    [['exploration', 'warn', { callsWithoutChange: 5, limit: 3, lastChangeAtToolCall: 4, atToolCall: 9 }]],
  );
  assert.deepEqual(state.warnings, [{ about: 'exploration', atTurn: 5 }]);
});

test('exploration: the count is the goal’s tool calls since the last change, not the calls seen in the turn', () => {
  const state = initialGuardsState({ toolCalls: 10, modelTurns: 0 });
  const decisions = guardTurn(state, exploring, {
    calls: [read('f', 11)],
    toolCalls: 13,
    modelTurns: 1,
    progressCycle: undefined,
    consequence: STUCK,
  });
  assert.deepEqual(
    decisions.map((decision) => [decision.guard, decision.action, decision.data]),
    [['exploration', 'warn', { callsWithoutChange: 3, limit: 3, lastChangeAtToolCall: 10, atToolCall: 13 }]],
  );
});

test('progress: a turn with a change starts both stretches at its last change; without one, stagnation’s at its last new call', () => {
  const state = fresh();
  turn(state, 1, [read('new-1', 1), write('x', '1', 2), read('b', 3), seen(4), seen(5)]);
  assert.deepEqual(state.progress, { atToolCall: 2, atTurn: 1, warned: false });
  assert.deepEqual(state.exploration, { atToolCall: 2, atTurn: 1, warned: false });
  assert.deepEqual(state.recentProgress, [true, true, true, false, false]);
  turn(state, 2, [write('y', '1', 6), write('z', '1', 7), seen(8)]);
  assert.deepEqual(state.progress, { atToolCall: 7, atTurn: 2, warned: false });
  assert.deepEqual(state.exploration, { atToolCall: 7, atTurn: 2, warned: false });
  turn(state, 3, [read('c', 9), read('d', 10), seen(11)]);
  assert.deepEqual(state.progress, { atToolCall: 10, atTurn: 3, warned: false });
  assert.deepEqual(state.exploration, { atToolCall: 7, atTurn: 2, warned: false });
});

test('progress: a change back to a state already seen is nothing new (the state the tool reports, not the call)', () => {
  const state = fresh();
  turn(state, 1, [write('a', 'x', 1), read('b', 2)]);
  const back = read('a', 3, {
    toolName: 'edit_file',
    input: { path: 'a', oldString: 'y', newString: 'x' },
    summary: 'edit_file: a',
    resultText: 'Edited a',
    effect: CallEffect.Change,
    stateAfter: 'a#x',
  });
  turn(state, 2, [back]);
  assert.deepEqual(state.recentProgress, [true, true, false]);
  assert.deepEqual(state.exploration, { atToolCall: 1, atTurn: 1, warned: false });
});

test('progress: rewriting the same file with nothing learned in between is churn, not a new state', () => {
  const state = fresh();
  turn(state, 1, [write('notes.txt', 'attempt 1', 1), write('notes.txt', 'attempt 2', 2)]);
  assert.deepEqual(state.recentProgress, [true, false]);
  assert.deepEqual(state.exploration, { atToolCall: 1, atTurn: 1, warned: false });
  assert.deepEqual(state.memory.lastChangeTargets, ['notes.txt']);
});

test('progress: a completed plan step restarts both stretches at the turn’s tool calls and empties the share; the same mark again does not', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0, progressCycle: 0 });
  turn(state, 1, [read('new-1', 1), seen(2), seen(3)], DEFAULT_GUARD_SETTINGS, { progressCycle: 0 });
  assert.deepEqual(state.progress, { atToolCall: 1, atTurn: 1, warned: false, cycleSeen: 0 });
  assert.deepEqual(state.recentProgress, [true, false, false]);
  turn(state, 2, [seen(4), seen(5)], DEFAULT_GUARD_SETTINGS, { progressCycle: 1 });
  assert.deepEqual(state.progress, { atToolCall: 5, atTurn: 2, warned: false, cycleSeen: 1 });
  assert.deepEqual(state.exploration, { atToolCall: 5, atTurn: 2, warned: false });
  assert.deepEqual(state.recentProgress, []);
  turn(state, 3, [seen(6)], DEFAULT_GUARD_SETTINGS, { progressCycle: 1 });
  assert.deepEqual(state.progress, { atToolCall: 5, atTurn: 2, warned: false, cycleSeen: 1 });
  assert.deepEqual(state.recentProgress, [false]);
});

test('progress: a change in a turn that also completes a step starts the stretches at the change', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0, progressCycle: 0 });
  turn(state, 1, [write('a', '1', 1), read('b', 2)], DEFAULT_GUARD_SETTINGS, { progressCycle: 1 });
  assert.deepEqual(state.progress, { atToolCall: 1, atTurn: 1, warned: false, cycleSeen: 1 });
  assert.deepEqual(state.exploration, { atToolCall: 1, atTurn: 1, warned: false });
  assert.deepEqual(state.recentProgress, []);
  // a change without a plan: no mark kept
  const noPlan = fresh();
  turn(noPlan, 1, [write('a', '1', 1)]);
  assert.deepEqual(noPlan.progress, { atToolCall: 1, atTurn: 1, warned: false });
});

test('progress: state from before issue 22 starts exploration where progress stood, unwarned', () => {
  const state = fresh();
  state.progress = { atToolCall: 3, atTurn: 2, warned: true };
  delete state.exploration;
  turn(state, 3, [read('b', 4)]);
  assert.deepEqual(state.exploration, { atToolCall: 3, atTurn: 2, warned: false });
});

test('stagnation: a warning before the window is full counts what was seen, and names the stop limit in the settings’ window', () => {
  const state = fresh();
  // call 1 new, calls 2-8 seen: 7 of the 8 calls so far brought nothing new
  const decisions = oneByOne(state, [read('new-1', 1), ...[2, 3, 4, 5, 6, 7, 8].map(seen)]);
  assert.deepEqual(fired(decisions), ['8:stagnation:warn']);
  assert.equal(
    decisions[7]?.[0]?.prompt,
    [
      '[No progress] 7 of your last 8 tool calls brought nothing new: results you had already seen, the same failure again, or a change that undid or only repeated an earlier one.',
      'Repeating what you have already done will not finish the task. Do one of these next:',
      '1. Make the change the task asks for, using what you already found',
      '2. Look somewhere you have not looked yet, if something is still missing',
      '3. Give your final answer now, or say in plain text what blocks the task',
      `If 9 of your latest 10 calls bring nothing new, keel ${STUCK}.`,
    ].join('\n'),
  );
  assert.deepEqual(decisions[7]?.[0]?.data, {
    callsWithoutNew: 7,
    window: 8,
    turnsWithoutNew: 7,
    limit: 7,
    lastNewAtToolCall: 1,
    atToolCall: 8,
  });
});

test('stagnation and exploration: a stop needs the warning given in an earlier model turn, not in this one', () => {
  const settings = guardSettingsSchema.parse({
    stagnation: { exploreWarnAfterCalls: 3, exploreStopAfterCalls: 5 },
  });
  const state = fresh();
  // both warned in turn 1 …
  assert.deepEqual(
    turn(state, 1, stagnating(10), settings).map((decision) => [decision.guard, decision.action]),
    [
      ['stagnation', 'warn'],
      ['exploration', 'warn'],
    ],
  );
  // … and turn 1 again (its calls reported in two parts): past both stop limits, still unread
  assert.deepEqual(turn(state, 1, [seen(11), seen(12)], settings), []);
  assert.deepEqual(
    turn(state, 2, [seen(13)], settings).map((decision) => [
      decision.guard,
      decision.action,
      decision.data.warnedAtTurn,
    ]),
    [
      ['stagnation', 'stop', 1],
      ['exploration', 'stop', 1],
    ],
  );
});

test('progress: without a plan mark this turn, a mark seen before is no completed step', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0, progressCycle: 2 });
  turn(state, 1, [read('new-1', 1), seen(2)], DEFAULT_GUARD_SETTINGS, { progressCycle: 2 });
  turn(state, 2, [seen(3)]);
  assert.deepEqual(state.progress, { atToolCall: 1, atTurn: 1, warned: false, cycleSeen: 2 });
  assert.deepEqual(state.exploration, { atToolCall: 0, atTurn: 0, warned: false });
  assert.deepEqual(state.recentProgress, [true, false, false]);
});
