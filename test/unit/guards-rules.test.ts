import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardSettingsSchema, type GuardDecision } from '../../src/workflows/principles/guards';
import { callKey, resultDigest } from '../../src/workflows/principles/loop-guard';
import { fresh, oneByOne, read, STUCK, turn } from './guards-test-helpers';

/**
 * guardTurn's decisions per call (guards.ts, issue 27: mutation testing): the loop and cycle
 * guards — which guard decides, which action, at which call, each decision whole with its
 * prompt's whole text, the escalation from a prompt to a stop only once the model has read the
 * prompt (a turn of its own since), and the warnings remembered for that. The hypothesis and
 * denial guards are in guards-hypothesis-denial-rules.test.ts.
 */

const repeatedSuccessPrompt = (repeats: number, summary: string, stopAt: number, consequence = STUCK) =>
  [
    `[Loop detected] You have made the same call ${repeats} times in your last 10 tool calls with the same result each time:`,
    `  ${summary}`,
    'Repeating it will not change the outcome. Do not make this call again. Instead:',
    '1. Use the result you already have: it has not changed since the first call',
    '2. Make a different call that moves the task forward (another input, another tool, or an edit)',
    '3. Give your final answer, or say in plain text what blocks the task',
    `If this call is repeated until it has run ${stopAt} times, keel ${consequence}.`,
  ].join('\n');

test('loop: the same read warned at its 3rd time (decision whole), nothing at the 4th, stopped at the 5th with the turn of its warning', () => {
  const state = fresh();
  const decisions = oneByOne(
    state,
    [1, 2, 3, 4, 5].map((n) => read('notes.md', n)),
  );
  const data = {
    call: 'read_file: notes.md',
    window: 10,
    sameResult: true,
    failed: false,
    firstAtToolCall: 1,
  };
  assert.deepEqual(decisions, [
    [],
    [],
    [
      {
        guard: 'loop',
        action: 'warn',
        summary: 'loop: read_file: notes.md made 3 times in the last 10 tool calls',
        prompt: repeatedSuccessPrompt(3, 'read_file: notes.md', 5),
        data: { ...data, repeats: 3, atToolCall: 3, limit: 3 },
      },
    ],
    [],
    [
      {
        guard: 'loop',
        action: 'stop',
        summary:
          'loop: read_file: notes.md made 5 times in the last 10 tool calls with the same result, after a warning',
        data: { ...data, repeats: 5, atToolCall: 5, limit: 5, warnedAtTurn: 3 },
      },
    ],
  ]);
  assert.equal(state.decisions, 2);
  const key = callKey('read_file', { path: 'notes.md' });
  assert.deepEqual(state.loopWarnedKeys, [key]);
  assert.deepEqual(state.warnings, [{ about: `loop ${key}`, atTurn: 3 }]);
  assert.deepEqual(
    state.recentCalls.map((call) => call.atToolCall),
    [1, 2, 3, 4, 5],
  );
  assert.deepEqual(state.recentCalls[0], {
    key,
    result: resultDigest('contents of notes.md'),
    summary: 'read_file: notes.md',
    atToolCall: 1,
  });
});

test('loop: the window keeps the newest 10 calls; a repeat older than that no longer counts', () => {
  const state = fresh();
  const calls = [
    read('a', 1),
    read('a', 2),
    ...Array.from({ length: 9 }, (_, index) => read(`f${index}`, index + 3)),
    read('a', 12),
  ];
  const decisions = oneByOne(state, calls);
  assert.deepEqual(decisions.flat(), []);
  assert.deepEqual(
    state.recentCalls.map((call) => call.atToolCall),
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  );
});

test('loop: a flood of 5 identical calls in one turn is warned once, at its 3rd; the next turn’s repeat stops it', () => {
  const state = fresh();
  const first = turn(
    state,
    1,
    [1, 2, 3, 4, 5].map((n) => read('notes.md', n)),
  );
  assert.deepEqual(
    first.map((decision) => [decision.guard, decision.action, decision.data.atToolCall]),
    [['loop', 'warn', 3]],
  );
  assert.deepEqual(state.warnings, [
    { about: `loop ${callKey('read_file', { path: 'notes.md' })}`, atTurn: 1 },
  ]);
  const second = turn(state, 2, [read('notes.md', 6)]);
  assert.deepEqual(second, [
    {
      guard: 'loop',
      action: 'stop',
      summary:
        'loop: read_file: notes.md made 6 times in the last 10 tool calls with the same result, after a warning',
      data: {
        call: 'read_file: notes.md',
        repeats: 6,
        window: 10,
        sameResult: true,
        failed: false,
        firstAtToolCall: 1,
        atToolCall: 6,
        limit: 5,
        warnedAtTurn: 1,
      },
    },
  ]);
});

test('loop: only a warning about the same call counts as read: a new call’s flood after another’s read warning is warned, not stopped; its next repeat stops', () => {
  const state = fresh();
  turn(
    state,
    1,
    [1, 2, 3].map((n) => read('a', n)),
  );
  const flood = turn(
    state,
    2,
    [4, 5, 6, 7, 8].map((n) => read('b', n)),
  );
  assert.deepEqual(
    flood.map((decision) => [decision.guard, decision.action, decision.data.call, decision.data.atToolCall]),
    [['loop', 'warn', 'read_file: b', 6]],
  );
  const next = turn(state, 3, [read('b', 9)]);
  assert.deepEqual(
    next
      .filter((decision) => decision.guard === 'loop')
      .map((decision) => [decision.guard, decision.action, decision.data.call, decision.data.warnedAtTurn]),
    [['loop', 'stop', 'read_file: b', 2]],
  );
});

test('loop: a failing call with results matched off names its tool’s next actions and the consequence given; its stop says no "same result"', () => {
  const settings = guardSettingsSchema.parse({ loop: { warnAt: 2, stopAt: 4, matchResults: false } });
  const state = fresh();
  const failing = (n: number) =>
    read('', n, {
      toolName: 'run_command',
      input: { command: 'npm test' },
      summary: 'run_command: npm test',
      resultText: `exit 1: ${n} tests failed`,
      failed: true,
      candidates: ['npm run lint', 'cat test.log'],
    });
  const decisions = [1, 2, 3, 4].map((n) =>
    turn(state, n, [failing(n)], settings, { consequence: 'fails the active plan step' }),
  );
  const data = {
    call: 'run_command: npm test',
    window: 10,
    sameResult: false,
    failed: true,
    firstAtToolCall: 1,
  };
  assert.deepEqual(decisions, [
    [],
    [
      {
        guard: 'loop',
        action: 'warn',
        summary: 'loop: run_command: npm test made 2 times in the last 10 tool calls',
        prompt: [
          '[Loop detected] You have made the same call 2 times in your last 10 tool calls:',
          '  run_command: npm test',
          // its output moved (1, then 2 tests failed): never "repeating it will not change the outcome"
          'Its output changed between calls. If you are waiting for something, sleep between checks (`sleep 10; <check>`): keel bounds a wait by its time, not by its repeats. Otherwise:',
          '1. npm run lint',
          '2. cat test.log',
          'If this call is repeated until it has run 4 times, keel fails the active plan step.',
        ].join('\n'),
        data: { ...data, repeats: 2, atToolCall: 2, limit: 2 },
      },
    ],
    [],
    [
      {
        guard: 'loop',
        action: 'stop',
        summary: 'loop: run_command: npm test made 4 times in the last 10 tool calls, after a warning',
        data: { ...data, repeats: 4, atToolCall: 4, limit: 4, warnedAtTurn: 2 },
      },
    ],
  ]);
});

test('loop: a successful call’s own candidates are not offered; the repeated-success next actions are', () => {
  const state = fresh();
  const decisions = oneByOne(
    state,
    [1, 2, 3].map((n) => read('a', n, { candidates: ['never shown'] })),
  );
  assert.equal(decisions[2]?.[0]?.prompt, repeatedSuccessPrompt(3, 'read_file: a', 5));
});

test('loop: a failing call with the same result says "failing the same way each time"', () => {
  const state = fresh();
  const decisions = oneByOne(
    state,
    [1, 2, 3].map((n) =>
      read('gone', n, { failed: true, resultText: 'no such file', candidates: ['list_dir .'] }),
    ),
  );
  assert.equal(
    decisions[2]?.[0]?.prompt,
    [
      '[Loop detected] You have made the same call 3 times in your last 10 tool calls, failing the same way each time:',
      '  read_file: gone',
      'Repeating it will not change the outcome. Do not make this call again. Instead:',
      '1. list_dir .',
      'If this call is repeated until it has run 5 times, keel stops the goal as stuck.',
    ].join('\n'),
  );
  assert.equal(decisions[2]?.[0]?.data.failed, true);
});

test('loop: switched off, repeats are neither warned nor stopped (and no cycle either)', () => {
  const settings = guardSettingsSchema.parse({ loop: { enabled: false } });
  const state = fresh();
  const loopOrCycle = (decisions: GuardDecision[][]) =>
    decisions.flat().filter((decision) => decision.guard === 'loop' || decision.guard === 'cycle');
  const calls = Array.from({ length: 12 }, (_, index) => read('a', index + 1));
  assert.deepEqual(loopOrCycle(oneByOne(state, calls, settings)), []);
  assert.deepEqual(state.loopWarnedKeys, []);
  const cycling = fresh();
  const rounds = Array.from({ length: 8 }, (_, index) => read(`f${index % 2}`, index + 1));
  assert.deepEqual(loopOrCycle(oneByOne(cycling, rounds, settings)), []);
});

test('loop: the calls warned about are kept for the newest window’s worth of keys', () => {
  const settings = guardSettingsSchema.parse({
    loop: { window: 2, warnAt: 2, stopAt: 2, maxCycleLength: 1 },
  });
  const state = fresh();
  for (const [index, path] of ['a', 'b', 'c'].entries()) {
    turn(state, index + 1, [read(path, 2 * index + 1), read(path, 2 * index + 2)], settings);
  }
  assert.deepEqual(state.loopWarnedKeys, [
    callKey('read_file', { path: 'b' }),
    callKey('read_file', { path: 'c' }),
  ]);
});

const cycleCalls = (length: number, count: number, from = 1) =>
  Array.from({ length: count }, (_, index) => read(`f${(from - 1 + index) % length}`, from + index));

const cyclePromptText = (summaries: string[], consequence = STUCK) =>
  [
    `[Cycle detected] Your last ${summaries.length * 2} tool calls went 2 times round the same ${summaries.length} calls, with the same results each round:`,
    ...summaries.map((summary) => `  ${summary}`),
    'Going round again will not change the outcome. Do not repeat this sequence. Instead:',
    '1. Use the results you already have: they did not change between rounds',
    '2. Make a call that moves the task forward (another input, another tool, or a different edit)',
    '3. Give your final answer, or say in plain text what blocks the task',
    `If the same round is made once more, keel ${consequence}.`,
  ].join('\n');

test('cycle: a, b, a, b warned at the 4th call (decision whole, the warning remembers its call); a whole round later, at the 6th, stopped', () => {
  const state = fresh();
  const settings = guardSettingsSchema.parse({ loop: { warnAt: 5, stopAt: 5 } });
  const decisions = oneByOne(state, cycleCalls(2, 6), settings);
  const data = { calls: ['read_file: f0', 'read_file: f1'], length: 2, sameResult: true };
  assert.deepEqual(decisions, [
    [],
    [],
    [],
    [
      {
        guard: 'cycle',
        action: 'warn',
        summary: 'cycle: the same 2 calls twice in a row (read_file: f0 → read_file: f1)',
        prompt: cyclePromptText(['read_file: f0', 'read_file: f1']),
        data: { ...data, atToolCall: 4 },
      },
    ],
    [],
    [
      {
        guard: 'cycle',
        action: 'stop',
        summary: 'cycle: the same 2 calls went round again (read_file: f0 → read_file: f1), after a warning',
        data: { ...data, atToolCall: 6, warnedAtTurn: 4 },
      },
    ],
  ]);
  const id = (path: string) => `${callKey('read_file', { path })}⇒${resultDigest(`contents of ${path}`)}`;
  assert.deepEqual(state.warnings, [
    { about: `cycle ${id('f0')}\u0001${id('f1')}`, atTurn: 4, atToolCall: 4 },
  ]);
});

test('cycle: three rounds in one turn are warned once; the next turn’s call stops it', () => {
  const state = fresh();
  const settings = guardSettingsSchema.parse({ loop: { warnAt: 5, stopAt: 5 } });
  const first = turn(state, 1, cycleCalls(2, 6), settings);
  assert.deepEqual(
    first.map((decision) => [decision.guard, decision.action, decision.data.atToolCall]),
    [['cycle', 'warn', 4]],
  );
  const second = turn(state, 2, cycleCalls(2, 1, 7), settings);
  assert.deepEqual(
    second.map((decision) => [
      decision.guard,
      decision.action,
      decision.data.atToolCall,
      decision.data.warnedAtTurn,
    ]),
    [['cycle', 'stop', 7, 1]],
  );
});

test('cycle: a warning read, then only part of a round: no stop until the round is whole', () => {
  const state = fresh();
  const settings = guardSettingsSchema.parse({ loop: { warnAt: 5, stopAt: 5 } });
  assert.deepEqual(
    turn(state, 1, cycleCalls(3, 6), settings).map((decision) => decision.action),
    ['warn'],
  );
  assert.deepEqual(turn(state, 2, cycleCalls(3, 1, 7), settings), []);
  assert.deepEqual(turn(state, 3, cycleCalls(3, 1, 8), settings), []);
  assert.deepEqual(
    turn(state, 4, cycleCalls(3, 1, 9), settings).map((decision) => [decision.guard, decision.action]),
    [['cycle', 'stop']],
  );
});

test('cycle: maxCycleLength 1 turns cycles off; 2 finds 2-cycles but not 3-cycles', () => {
  const loopQuiet = { warnAt: 10, stopAt: 10 };
  const off = guardSettingsSchema.parse({ loop: { ...loopQuiet, maxCycleLength: 1 } });
  assert.deepEqual(oneByOne(fresh(), cycleCalls(2, 6), off).flat(), []);
  const two = guardSettingsSchema.parse({ loop: { ...loopQuiet, maxCycleLength: 2 } });
  assert.deepEqual(
    oneByOne(fresh(), cycleCalls(2, 4), two)
      .flat()
      .map((decision) => [decision.guard, decision.action, decision.data.atToolCall]),
    [['cycle', 'warn', 4]],
  );
  assert.deepEqual(oneByOne(fresh(), cycleCalls(3, 9), two).flat(), []);
});

test('cycle: with results not matched the decisions say so', () => {
  const settings = guardSettingsSchema.parse({ loop: { warnAt: 5, stopAt: 5, matchResults: false } });
  const calls = cycleCalls(2, 4).map((call, index) => ({ ...call, resultText: `version ${index}` }));
  const decisions = oneByOne(fresh(), calls, settings).flat();
  assert.deepEqual(
    decisions.map((decision) => [decision.guard, decision.action, decision.data.sameResult]),
    [['cycle', 'warn', false]],
  );
});
