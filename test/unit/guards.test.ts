import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  answersCheckpoint,
  DEFAULT_GUARD_SETTINGS,
  guardCheckpointReply,
  guardSettingsSchema,
  guardsStateSchema,
  guardTurn,
  initialGuardsState,
  rememberModelReply,
  restartGuards,
  type GuardsState,
} from '../../src/workflows/principles/guards';
import { CallEffect } from '../../src/workflows/principles/progress';
import { command, fired, oneByOne, read, write } from './guards-test-helpers';

test('goal input: on by default with the documented limits; bad limits are refused', () => {
  assert.equal(DEFAULT_GUARD_SETTINGS.loop.enabled, true);
  assert.deepEqual(
    [
      DEFAULT_GUARD_SETTINGS.loop.warnAt,
      DEFAULT_GUARD_SETTINGS.loop.stopAt,
      DEFAULT_GUARD_SETTINGS.loop.window,
      DEFAULT_GUARD_SETTINGS.loop.maxCycleLength,
    ],
    [3, 5, 10, 4],
  );
  assert.equal(DEFAULT_GUARD_SETTINGS.stagnation.stopAfterTurns, 16);
  assert.equal(DEFAULT_GUARD_SETTINGS.denials.stopAfterDenials, 3);
  assert.equal(DEFAULT_GUARD_SETTINGS.checkpoints.minResponseRate, 0.5);
  assert.equal(guardSettingsSchema.safeParse({ loop: { warnAt: 6, stopAt: 4 } }).success, false);
  assert.equal(guardSettingsSchema.safeParse({ loop: { stopAt: 20 } }).success, false); // beyond the window
  assert.equal(guardSettingsSchema.safeParse({ loop: { window: 6 } }).success, false); // two 4-rounds do not fit
  assert.equal(guardSettingsSchema.safeParse({ stagnation: { stopAfterCalls: 11 } }).success, false);
  assert.equal(guardSettingsSchema.safeParse({ denials: { stopAfterDenials: 1 } }).success, false);
  assert.equal(guardSettingsSchema.safeParse({ loops: {} }).success, false); // unknown keys are refused
  assert.equal(guardSettingsSchema.parse({ stagnation: { enabled: false } }).stagnation.enabled, false);
});

test('a repeater: the loop guard prompts at its 3rd read and stops it at the 5th, with the numbers', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const decisions = oneByOne(
    state,
    [1, 2, 3, 4, 5].map((n) => read('notes.md', n)),
  );
  assert.deepEqual(fired(decisions), ['3:loop:warn', '5:loop:stop']);
  const warning = decisions[2]?.[0];
  assert.match(warning?.prompt ?? '', /\[Loop detected\].*3 times/s);
  assert.deepEqual(warning?.data, {
    call: 'read_file: notes.md',
    repeats: 3,
    window: 10,
    sameResult: true,
    failed: false,
    firstAtToolCall: 1,
    atToolCall: 3,
    limit: 3,
  });
  const stop = decisions[4]?.[0];
  assert.match(stop?.summary ?? '', /read_file: notes\.md made 5 times in the last 10 tool calls/);
  assert.equal(stop?.data.warnedAtTurn, 3);
  assert.equal(state.decisions, 2);
});

test('a flood of identical parallel calls in one turn is warned, not stopped; the next flood stops', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const flood = (turn: number) =>
    guardTurn(state, DEFAULT_GUARD_SETTINGS, {
      calls: [1, 2, 3, 4, 5].map((n) => read('notes.md', (turn - 1) * 5 + n)),
      toolCalls: turn * 5,
      modelTurns: turn,
      progressCycle: undefined,
      consequence: 'stops the goal as stuck',
    });
  const first = flood(1);
  assert.deepEqual(
    first.map((decision) => `${decision.guard}:${decision.action}`),
    ['loop:warn'],
  );
  const second = flood(2);
  const stop = second.find((decision) => decision.action === 'stop');
  assert.equal(stop?.guard, 'loop');
  assert.equal(stop?.data.warnedAtTurn, 1);
});

test('guards: { enabled: false } switches every guard off', () => {
  const settings = guardSettingsSchema.parse({ enabled: false });
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  assert.ok(
    oneByOne(
      state,
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => read('a', n)),
      settings,
    ).every((list) => list.length === 0),
  );
  for (let index = 0; index < 5; index++) {
    const reply = { addressed: false, repeated: false, toolCalls: 8, modelTurns: 8 + index };
    assert.equal(guardCheckpointReply(state, settings, reply), undefined);
  }
});

test('a looper gets its tool’s own next actions in the prompt', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const failing = (n: number) =>
    read('missing.txt', n, { failed: true, resultText: 'no such file', candidates: ['list_dir "."'] });
  const decisions = oneByOne(state, [1, 2, 3].map(failing));
  assert.match(decisions[2]?.[0]?.prompt ?? '', /failing the same way each time[\s\S]*1\. list_dir "\."/);
});

test('a careful reader: 20 distinct files one per turn, then a summary: no decision at all', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const calls = [
    ...Array.from({ length: 20 }, (_, index) => read(`src/module-${index}.ts`, index + 1)),
    write('SUMMARY.md', 'what the modules do', 21),
  ];
  assert.deepEqual(fired(oneByOne(state, calls)), []);
});

test('a long good task of distinct reads and regular edits: no decision at all', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const calls = Array.from({ length: 40 }, (_, index) =>
    index % 3 === 2
      ? write(`src/module-${index}.ts`, `v${index}`, index + 1)
      : read(`src/module-${index}.ts`, index + 1),
  );
  assert.deepEqual(fired(oneByOne(state, calls)), []);
});

test('fake progress: the same failing test and a notes file rewritten each round is stopped within 10', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const calls = Array.from({ length: 20 }, (_, index) => {
    const round = Math.floor(index / 2) + 1;
    return index % 2 === 0
      ? command('npm test', index + 1)
      : write('notes.txt', `attempt ${round}`, index + 1);
  });
  const decisions = fired(oneByOne(state, calls));
  const stop = decisions.find((decision) => decision.endsWith(':stop'));
  assert.ok(stop, `no stop in ${decisions.join(', ')}`);
  assert.ok(Number(stop.split(':')[0]) <= 12, stop); // the misbehaviour starts at call 3
  assert.ok(decisions.some((decision) => decision.endsWith(':warn')));
});

test('an edit rotation of 3 states is a cycle: warned after two rounds, stopped at the third', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const levels = ['debug', 'info', 'warn'];
  const calls = Array.from({ length: 12 }, (_, index) => {
    const from = levels[index % 3] ?? '';
    const to = levels[(index + 1) % 3] ?? '';
    return read('log.ts', index + 1, {
      toolName: 'edit_file',
      input: { path: 'log.ts', oldString: from, newString: to },
      summary: `edit_file: log.ts ${from} → ${to}`,
      resultText: 'Edited log.ts at line 3',
      effect: CallEffect.Change,
      stateAfter: `log.ts#${to}`,
    });
  });
  const decisions = fired(oneByOne(state, calls));
  assert.ok(decisions.includes('6:cycle:warn'), decisions.join(', '));
  assert.ok(decisions.includes('9:cycle:stop'), decisions.join(', '));
});

test('cycles of 2 and 4 reads; a changing result is no cycle', () => {
  for (const length of [2, 4]) {
    const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
    const calls = Array.from({ length: length * 3 }, (_, index) => read(`f${index % length}`, index + 1));
    const decisions = fired(oneByOne(state, calls)).filter((decision) => decision.includes(':cycle:'));
    assert.deepEqual(decisions, [`${2 * length}:cycle:warn`, `${3 * length}:cycle:stop`]);
  }
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const polling = Array.from({ length: 8 }, (_, index) =>
    read(`f${index % 2}`, index + 1, { resultText: `progress ${index}` }),
  );
  assert.deepEqual(fired(oneByOne(state, polling)), []);
});

test('re-reading three files with a scratch write every 7th call is stopped within 10 of the first re-read', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const calls = Array.from({ length: 30 }, (_, index) =>
    (index + 1) % 7 === 0
      ? write('scratch.txt', `note ${index}`, index + 1)
      : read(`f${index % 3}`, index + 1),
  );
  const decisions = fired(oneByOne(state, calls));
  const stop = decisions.find((decision) => decision.endsWith(':stop'));
  assert.ok(stop, decisions.join(', '));
  assert.ok(Number(stop.split(':')[0]) <= 3 + 10, stop);
});

test('denials: the first is warned, the same intent in other words is stopped at the third', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const denied = (line: string) =>
    command(line, 0, { effect: CallEffect.Denied, resultText: 'Denied by alice', atToolCall: 0 });
  const decisions = ['rm -rf build', 'rm -r ./build', 'find build -delete', 'rm -rf build/'].map(
    (line, index) =>
      guardTurn(state, DEFAULT_GUARD_SETTINGS, {
        calls: [denied(line)],
        toolCalls: 0,
        modelTurns: index + 1,
        progressCycle: undefined,
        consequence: 'stops the goal as stuck',
      }),
  );
  assert.deepEqual(
    fired(decisions).filter((decision) => decision.includes('denials')),
    ['1:denials:warn', '3:denials:stop', '4:denials:stop'],
  );
  assert.match(
    decisions[0]?.[0]?.prompt ?? '',
    /do not ask for the same thing another way \(run_command on build\)/,
  );
  assert.match(decisions[2]?.[0]?.summary ?? '', /run_command on build asked for again and denied 3 times/);
  // another intent starts its own count
  const other = guardTurn(state, DEFAULT_GUARD_SETTINGS, {
    calls: [denied('rm -rf dist')],
    toolCalls: 0,
    modelTurns: 5,
    progressCycle: undefined,
    consequence: 'x',
  });
  assert.deepEqual(
    other.filter((decision) => decision.guard === 'denials').map((decision) => decision.action),
    ['warn'],
  );
});

test('progress (a new state, or a plan step completed) starts the stretches again', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  oneByOne(
    state,
    [1, 2, 3, 4, 5, 6].map((n) => read('same', n, { summary: `read ${n}` })),
  );
  const decisions = guardTurn(state, DEFAULT_GUARD_SETTINGS, {
    calls: [read('same', 7)],
    toolCalls: 7,
    modelTurns: 7,
    progressCycle: 7, // assessment.lastProgressCycle moved: a plan step was completed
    consequence: 'x',
  });
  assert.ok(decisions.every((decision) => decision.guard === 'loop'));
  assert.equal(state.progress.atToolCall, 7);
  assert.deepEqual(state.recentProgress, []);
});

test('hypotheses that keep missing: a prompt at 3 in a row', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const decisions = oneByOne(
    state,
    [1, 2, 3].map((n) => read(`f${n}`, n, { hypothesisMismatch: true, toolName: 'search' })),
  );
  assert.equal(decisions[2]?.[0]?.guard, 'hypotheses');
});

test('checkpoint replies: the decisions carry the response rate; the stop names its warning', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const reply = (toolCalls: number, modelTurns: number) => ({
    addressed: false,
    repeated: false,
    toolCalls,
    modelTurns,
  });
  const first = guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(7, 8));
  assert.equal(first?.action, 'warn');
  const second = guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(10, 11));
  assert.equal(second?.action, 'escalate');
  assert.deepEqual(second?.data, {
    judged: 2,
    answered: 0,
    responseRate: 0,
    minResponseRate: 0.5,
    repeated: false,
    atToolCall: 10,
  });
  guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(10, 12));
  const stop = guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(10, 13));
  assert.equal(stop?.action, 'stop');
  assert.match(stop?.summary ?? '', /3 replies in a row ignored an enforced checkpoint/);
  assert.equal(stop?.data.warnedAtTurn, 11);
});

test('a checkpoint answer that repeats an earlier reply counts as unanswered', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const boilerplate = 'Plan still matches the task. Recent steps confirmed the approach. Next: continue.';
  rememberModelReply(state, boilerplate, 1);
  rememberModelReply(state, 'Reading src/app.ts to find where the handler is registered.', 2);
  rememberModelReply(state, boilerplate, 2);
  // a fixed text (the same answer as two earlier replies), even after the task moved on (a new state at turn 3)
  oneByOne(state, [write('src/app.ts', 'fixed', 3)]);
  const judged = { text: ` ${boilerplate.toUpperCase()} `, judged: true };
  const repeated = answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, judged);
  assert.equal(repeated.addressed, false);
  assert.ok(repeated.repeats);
  // a status line with one file name changed, while nothing moved since it was given
  rememberModelReply(
    state,
    'Still on task: found more context in vendor/lib-4.js; next I will keep reading.',
    4,
  );
  const drifting = 'Still on task: found more context in vendor/lib-5.js; next I will keep reading.';
  assert.equal(
    answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: drifting, judged: true }).addressed,
    false,
  );
  // … but after a change it is the narration of repetitive work that moves
  oneByOne(state, [write('vendor/lib-4.js', 'patched', 5)]);
  assert.equal(
    answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: drifting, judged: true }).addressed,
    true,
  );
  // a real answer is new, however it starts
  const real =
    'The plan still matches: the handler is registered in src/app.ts line 40, which rules out the router. Next output: a fix in src/app.ts.';
  assert.equal(
    answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: real, judged: true }).addressed,
    true,
  );
  // the judge's verdict still counts
  assert.equal(
    answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: real, judged: false }).addressed,
    false,
  );
  // switched off: only the judge decides
  const off = guardSettingsSchema.parse({ checkpoints: { enabled: false } });
  assert.equal(answersCheckpoint(state, off, judged).addressed, true);
});

test('a restart (new task, new plan attempt) forgets loops and stretches but keeps checkpoints and denials', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  oneByOne(
    state,
    [1, 2, 3].map((n) => read('a', n)),
  );
  guardTurn(state, DEFAULT_GUARD_SETTINGS, {
    calls: [command('rm -rf build', 3, { effect: CallEffect.Denied })],
    toolCalls: 3,
    modelTurns: 4,
    progressCycle: undefined,
    consequence: 'x',
  });
  guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, {
    addressed: false,
    repeated: false,
    toolCalls: 3,
    modelTurns: 4,
  });
  restartGuards(state, { toolCalls: 3, modelTurns: 4 });
  assert.deepEqual(state.recentCalls, []);
  assert.deepEqual(state.loopWarnedKeys, []);
  assert.deepEqual(state.recentProgress, []);
  assert.equal(state.progress.atToolCall, 3);
  assert.equal(state.checkpoints.judged, 1);
  assert.equal(state.denied.length, 1);
  assert.deepEqual(
    state.warnings.map((warning) => warning.about),
    ['denial run_command on build', 'checkpoints'],
  );
});

test('guard state round-trips through its schema; state from before issue 22 still parses', () => {
  const state = initialGuardsState({ toolCalls: 4, modelTurns: 2, progressCycle: 1 });
  oneByOne(
    state,
    [5, 6, 7].map((n) => read('a', n)),
  );
  assert.deepEqual(guardsStateSchema.parse(JSON.parse(JSON.stringify(state))), state);
  const before = {
    recentCalls: [],
    loopWarnedKeys: [],
    progress: { atToolCall: 3, atTurn: 2, warned: false },
    hypotheses: { streak: 0, warned: false },
    checkpoints: { judged: 0, answered: 0, escalated: false, heldTurns: 0 },
    decisions: 0,
  };
  const parsed = guardsStateSchema.parse(before);
  assert.deepEqual(parsed.memory, { results: [], states: [], learned: false });
  assert.equal(parsed.exploration, undefined);
  // the first turn after the upgrade starts exploration where progress stood
  guardTurn(parsed, DEFAULT_GUARD_SETTINGS, {
    calls: [read('b', 4)],
    toolCalls: 4,
    modelTurns: 3,
    progressCycle: undefined,
    consequence: 'x',
  });
  const exploration = (state: GuardsState) => state.exploration; // read again after the call
  assert.equal(exploration(parsed)?.atToolCall, 3);
});
