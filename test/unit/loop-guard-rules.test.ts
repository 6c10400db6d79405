import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  callKey,
  cyclePrompt,
  DEFAULT_LOOP_SETTINGS,
  DEFAULT_MAX_CYCLE_LENGTH,
  detectCycle,
  detectLoop,
  loopPrompt,
  normalizedInput,
  remember,
  resultDigest,
  type RememberedCall,
} from '../../src/workflows/principles/loop-guard';

/**
 * The loop and cycle guards' rules at their edges (issue 27: mutation testing): loop-guard.test.ts
 * feeds calls through the defaults; these pin the exact text a call is compared by, the digest,
 * the window the state keeps, a warning not yet read, the cycle detector's bounds (it had no unit
 * test of its own) and both prompts' whole text.
 */

const call = (key: string, atToolCall: number, result = 'same'): RememberedCall => ({
  key,
  result: resultDigest(result),
  summary: `read_file: ${key}`,
  atToolCall,
});

test('the defaults: window 10, a prompt at 3 and a stop at 5 identical calls, results compared, cycles up to 4', () => {
  assert.deepEqual(DEFAULT_LOOP_SETTINGS, {
    enabled: true,
    window: 10,
    warnAt: 3,
    stopAt: 5,
    matchResults: true,
  });
  assert.equal(DEFAULT_MAX_CYCLE_LENGTH, 4);
});

test('the normalized input, exactly: keys sorted at every depth, arrays kept in order, whitespace collapsed, undefined fields left out, only the top-level hypothesis dropped (one in a list or an object is part of the call)', () => {
  const input = {
    zebra: 7,
    among: [' x \t y ', 2, null, true, { b: 1, hypothesis: 'in a list', a: ' z ' }],
    middle: { hypothesis: ' kept ', skipped: undefined, alpha: 'q' },
    hypothesis: 'dropped',
    gone: undefined,
  };
  assert.equal(
    normalizedInput(input),
    '{"among":["x y",2,null,true,{"a":"z","b":1,"hypothesis":"in a list"}],"middle":{"alpha":"q","hypothesis":"kept"},"zebra":7}',
  );
  // A field set to undefined is the same call as one without it.
  assert.equal(normalizedInput({ path: 'a', limit: undefined }), normalizedInput({ path: 'a' }));
  // No input at all, or null, reads as null; a bare value stays itself.
  assert.equal(normalizedInput(undefined), 'null');
  assert.equal(normalizedInput(null), 'null');
  assert.equal(normalizedInput(12), '12');
  assert.equal(normalizedInput(false), 'false');
});

test('a call key is the tool name, one space, and the normalized input', () => {
  assert.equal(callKey('read_file', { path: ' a.ts ', hypothesis: 'h' }), 'read_file {"path":"a.ts"}');
});

test('the result digest is FNV-1a 32 in 8 hex digits (zero-padded), then a colon and the length', () => {
  // Published FNV-1a test vectors: "" → 811c9dc5, "a" → e40c292c, "foobar" → bf9cf968.
  assert.equal(resultDigest(''), '811c9dc5:0');
  assert.equal(resultDigest('a'), 'e40c292c:1');
  assert.equal(resultDigest('foobar'), 'bf9cf968:6');
  // A hash below 0x10000000 keeps its leading zero.
  assert.equal(resultDigest('x2'), '0f630cef:2');
});

test('the state keeps the newest `window` calls, and at least the latest one (window 0)', () => {
  let recent: RememberedCall[] = [];
  for (let n = 1; n <= 12; n++) recent = remember(recent, call(`c${n}`, n), 10);
  assert.deepEqual(
    recent.map((kept) => kept.atToolCall),
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  );
  assert.deepEqual(remember([call('a', 1)], call('b', 2), 0), [call('b', 2)]);
  assert.deepEqual(remember([], call('a', 1), 3), [call('a', 1)]);
});

test('no calls yet: nothing detected', () => {
  assert.deepEqual(detectLoop({ recent: [], settings: DEFAULT_LOOP_SETTINGS, warnedKeys: [] }), {
    kind: 'none',
  });
});

test('the verdict reports the configured window, the repeats and the first repeat, not the calls made', () => {
  const recent = [call('a', 4), call('b', 5), call('a', 6), call('a', 7)];
  assert.deepEqual(detectLoop({ recent, settings: DEFAULT_LOOP_SETTINGS, warnedKeys: [] }), {
    kind: 'warn',
    key: 'a',
    summary: 'read_file: a',
    repeats: 3,
    window: 10,
    firstAtToolCall: 4,
    sameResult: true,
  });
});

test('only the latest `window` calls are compared, even when more are passed (window 4: 2 of the 5, no prompt at 3)', () => {
  const recent = [
    call('a', 1),
    call('a', 2),
    call('a', 3),
    call('b', 4),
    call('a', 5),
    call('c', 6),
    call('a', 7),
  ];
  const settings = { ...DEFAULT_LOOP_SETTINGS, window: 4, warnAt: 2 };
  assert.deepEqual(detectLoop({ recent, settings, warnedKeys: [] }), {
    kind: 'warn',
    key: 'a',
    summary: 'read_file: a',
    repeats: 2,
    window: 4,
    firstAtToolCall: 5,
    sameResult: true,
  });
  assert.deepEqual(detectLoop({ recent, settings: { ...settings, warnAt: 3 }, warnedKeys: [] }), {
    kind: 'none',
  });
});

test('a warned call stops at 5 only once the model has read the warning; 4 after it is read does not stop', () => {
  const recent = [1, 2, 3, 4, 5].map((n) => call('a', n));
  const settings = DEFAULT_LOOP_SETTINGS;
  // Warned in this very turn, not read yet: no stop, and no second warning.
  assert.deepEqual(detectLoop({ recent, settings, warnedKeys: ['a'], deliveredKeys: [] }), { kind: 'none' });
  assert.deepEqual(detectLoop({ recent, settings, warnedKeys: ['a'], deliveredKeys: ['a'] }), {
    kind: 'stop',
    key: 'a',
    summary: 'read_file: a',
    repeats: 5,
    window: 10,
    firstAtToolCall: 1,
    sameResult: true,
  });
  assert.deepEqual(
    detectLoop({ recent: recent.slice(0, 4), settings, warnedKeys: ['a'], deliveredKeys: ['a'] }),
    {
      kind: 'none',
    },
  );
  // Another call's warning does not count for this one: it is warned about first.
  assert.deepEqual(detectLoop({ recent, settings, warnedKeys: ['b'], deliveredKeys: ['b'] }), {
    kind: 'warn',
    key: 'a',
    summary: 'read_file: a',
    repeats: 5,
    window: 10,
    firstAtToolCall: 1,
    sameResult: true,
  });
});

test('the loop prompt for a successful call, whole: its count, the default next actions, the stop at 5', () => {
  assert.equal(
    loopPrompt({
      summary: 'read_file: a.txt',
      repeats: 3,
      window: 10,
      sameResult: true,
      failed: false,
      candidates: [],
      stopAt: 5,
      consequence: 'stops the goal as stuck',
    }),
    [
      '[Loop detected] You have made the same call 3 times in your last 10 tool calls with the same result each time:',
      '  read_file: a.txt',
      'Repeating it will not change the outcome. Do not make this call again. Instead:',
      '1. Use the result you already have: it has not changed since the first call',
      '2. Make a different call that moves the task forward (another input, another tool, or an edit)',
      '3. Give your final answer, or say in plain text what blocks the task',
      'If this call is repeated until it has run 5 times, keel stops the goal as stuck.',
    ].join('\n'),
  );
});

test('the loop prompt for a failing call lists its own next actions; without results compared it claims no sameness', () => {
  const options = {
    summary: 'run_command: make',
    repeats: 4,
    window: 8,
    sameResult: true,
    failed: true,
    candidates: ['list_dir to see what exists', 'read the error'],
    stopAt: 6,
    consequence: 'fails the active plan step',
  };
  const tail = [
    '  run_command: make',
    'Repeating it will not change the outcome. Do not make this call again. Instead:',
    '1. list_dir to see what exists',
    '2. read the error',
    'If this call is repeated until it has run 6 times, keel fails the active plan step.',
  ];
  assert.equal(
    loopPrompt(options),
    [
      '[Loop detected] You have made the same call 4 times in your last 8 tool calls, failing the same way each time:',
      ...tail,
    ].join('\n'),
  );
  assert.equal(
    loopPrompt({ ...options, sameResult: false }),
    [
      '[Loop detected] You have made the same call 4 times in your last 8 tool calls:',
      '  run_command: make',
      // Output that moved may be a poll: it is never told repeating changes nothing (issue 44).
      'Its output changed between calls. If you are waiting for something, sleep between checks (`sleep 10; <check>`): keel bounds a wait by its time, not by its repeats. Otherwise:',
      ...tail.slice(2),
    ].join('\n'),
  );
});

/** Calls named by letters, each with its own result, one tool call apart. */
const sequence = (letters: string, result = (letter: string) => `result of ${letter}`) =>
  [...letters].map((letter, index) => call(letter, index + 1, result(letter)));
const identity = (letter: string) => `${letter}⇒${resultDigest(`result of ${letter}`)}`;

test('a cycle is two identical rounds of 2 different calls or more: A B A B is one, found at its 4th call', () => {
  assert.deepEqual(detectCycle({ recent: sequence('ABAB'), maxLength: 4, matchResults: true }), {
    length: 2,
    signature: `${identity('A')}\u0001${identity('B')}`,
    summaries: ['read_file: A', 'read_file: B'],
  });
  assert.equal(detectCycle({ recent: sequence('ABA'), maxLength: 4, matchResults: true }), undefined);
});

test('not a cycle: one call repeated (the repeat counter’s case), a round that differs in one call, no calls', () => {
  assert.equal(detectCycle({ recent: sequence('AAAA'), maxLength: 4, matchResults: true }), undefined);
  assert.equal(detectCycle({ recent: sequence('ABAC'), maxLength: 4, matchResults: true }), undefined);
  assert.equal(detectCycle({ recent: sequence('ABCABD'), maxLength: 4, matchResults: true }), undefined);
  assert.equal(detectCycle({ recent: [], maxLength: 4, matchResults: true }), undefined);
});

test('the same cycle entered anywhere has one signature: its rotation that sorts first', () => {
  const fromC = detectCycle({ recent: sequence('CABCAB'), maxLength: 4, matchResults: true });
  const fromB = detectCycle({ recent: sequence('BCABCA'), maxLength: 4, matchResults: true });
  const expected = [identity('A'), identity('B'), identity('C')].join('\u0001');
  assert.deepEqual(fromC, {
    length: 3,
    signature: expected,
    summaries: ['read_file: C', 'read_file: A', 'read_file: B'],
  });
  assert.deepEqual(fromB, {
    length: 3,
    signature: expected,
    summaries: ['read_file: B', 'read_file: C', 'read_file: A'],
  });
});

test('rounds up to maxLength calls count (a 3-cycle at maxLength 3), longer ones do not (at maxLength 2)', () => {
  assert.equal(detectCycle({ recent: sequence('ABCABC'), maxLength: 3, matchResults: true })?.length, 3);
  assert.equal(detectCycle({ recent: sequence('ABCABC'), maxLength: 2, matchResults: true }), undefined);
});

test('the shortest cycle wins: A B A B A B A B is a 2-cycle', () => {
  assert.equal(detectCycle({ recent: sequence('ABABABAB'), maxLength: 4, matchResults: true })?.length, 2);
});

test('results are compared when asked: a round whose results changed is no cycle, unless results are not compared', () => {
  let round = 0;
  const changing = sequence('ABAB', (letter) => `${letter} seen ${round++}`);
  assert.equal(detectCycle({ recent: changing, maxLength: 4, matchResults: true }), undefined);
  assert.deepEqual(detectCycle({ recent: changing, maxLength: 4, matchResults: false }), {
    length: 2,
    signature: 'A\u0001B',
    summaries: ['read_file: A', 'read_file: B'],
  });
});

test('the cycle prompt, whole: the calls made, the rounds, each call of the round, and the stop after one more', () => {
  assert.equal(
    cyclePrompt({
      summaries: ['edit_file: debug', 'edit_file: info', 'edit_file: warn'],
      rounds: 2,
      consequence: 'stops the goal as stuck',
    }),
    [
      '[Cycle detected] Your last 6 tool calls went 2 times round the same 3 calls, with the same results each round:',
      '  edit_file: debug',
      '  edit_file: info',
      '  edit_file: warn',
      'Going round again will not change the outcome. Do not repeat this sequence. Instead:',
      '1. Use the results you already have: they did not change between rounds',
      '2. Make a call that moves the task forward (another input, another tool, or a different edit)',
      '3. Give your final answer, or say in plain text what blocks the task',
      'If the same round is made once more, keel stops the goal as stuck.',
    ].join('\n'),
  );
});
