import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  answersCheckpoint,
  DEFAULT_GUARD_SETTINGS,
  guardCheckpointReply,
  guardSettingsSchema,
  rememberModelReply,
  restartGuards,
} from '../../src/workflows/principles/guards';
import { callKey } from '../../src/workflows/principles/loop-guard';
import { CallEffect } from '../../src/workflows/principles/progress';
import { fresh, read, turn, write } from './guards-test-helpers';

/**
 * The guards' checkpoint replies and restarts (guards.ts, issue 27: mutation testing): whether a
 * reply answers a checkpoint (the judge's verdict, and no repeat of an earlier reply), the
 * decisions on ignored checkpoints whole with their prompts — a warning, the escalation to
 * enforced checkpoints, the stop after held turns — and what a restart forgets and keeps.
 */

const reply = (addressed: boolean, toolCalls: number, modelTurns: number, repeated = false) => ({
  addressed,
  repeated,
  toolCalls,
  modelTurns,
});

const ASK =
  'Answer the checkpoint above in plain text before your next tool call: does the plan still match the task, what did the recent steps prove or rule out, and what is the next concrete output?';

test('checkpoints: the first ignored one is warned (decision whole), the second escalated to enforcement, then 3 held replies stop', () => {
  const state = fresh();
  assert.deepEqual(guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 7, 8)), {
    guard: 'checkpoints',
    action: 'warn',
    summary: 'checkpoints: a checkpoint went unanswered (answered 0 of 1)',
    prompt: [
      '[Checkpoint not answered] You have answered 0 of 1 checkpoints.',
      ASK,
      'If checkpoints keep going unanswered, keel enforces them: tool calls are held back until you answer.',
    ].join('\n'),
    data: { judged: 1, answered: 0, responseRate: 0, minResponseRate: 0.5, repeated: false, atToolCall: 7 },
  });
  assert.deepEqual(guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 10, 11, true)), {
    guard: 'checkpoints',
    action: 'escalate',
    summary: 'checkpoints: answered 0 of 2 (below 0.5): checkpoints are enforced from now on',
    prompt: [
      '[Checkpoint not answered] You have answered 0 of 2 checkpoints.',
      'Your reply repeated what you had already said; a checkpoint answer says what is new since then.',
      ASK,
      'Checkpoints are now enforced: your tool calls are held back until you answer, and a goal that keeps not answering is stopped.',
    ].join('\n'),
    data: { judged: 2, answered: 0, responseRate: 0, minResponseRate: 0.5, repeated: true, atToolCall: 10 },
  });
  assert.deepEqual(state.warnings, [{ about: 'checkpoints', atTurn: 11 }]);
  assert.equal(guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 10, 12)), undefined);
  assert.equal(state.decisions, 2);
  assert.deepEqual(guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 10, 13)), {
    guard: 'checkpoints',
    action: 'stop',
    summary:
      'checkpoints: 3 replies in a row ignored an enforced checkpoint (answered 0 of 2), after a warning',
    data: { kind: 'stop', heldTurns: 3, judged: 2, answered: 0, limit: 3, atToolCall: 10, warnedAtTurn: 11 },
  });
  assert.equal(state.decisions, 3);
  assert.deepEqual(state.checkpoints, { judged: 2, answered: 0, escalated: true, heldTurns: 3 });
});

test('checkpoints: a warning for a repeated answer says so in its summary and prompt', () => {
  const state = fresh();
  const decision = guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 3, 4, true));
  assert.deepEqual(decision, {
    guard: 'checkpoints',
    action: 'warn',
    summary:
      'checkpoints: a checkpoint went unanswered (the answer repeated an earlier reply) (answered 0 of 1)',
    prompt: [
      '[Checkpoint not answered] You have answered 0 of 1 checkpoints.',
      'Your reply repeated what you had already said; a checkpoint answer says what is new since then.',
      ASK,
      'If checkpoints keep going unanswered, keel enforces them: tool calls are held back until you answer.',
    ].join('\n'),
    data: { judged: 1, answered: 0, responseRate: 0, minResponseRate: 0.5, repeated: true, atToolCall: 3 },
  });
});

test('checkpoints: an answered one is no decision and not counted; half answered is not below 0.5', () => {
  const state = fresh();
  assert.equal(guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(true, 2, 3)), undefined);
  assert.equal(state.decisions, 0);
  assert.deepEqual(state.warnings, []);
  const decision = guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 4, 5));
  assert.deepEqual(
    [decision?.action, decision?.summary, decision?.data.responseRate],
    ['warn', 'checkpoints: a checkpoint went unanswered (answered 1 of 2)', 0.5],
  );
  assert.equal(state.decisions, 1);
});

test('checkpoints: the settings’ rate and held turns are used and reported', () => {
  const settings = guardSettingsSchema.parse({
    checkpoints: { minResponseRate: 0.75, minCheckpoints: 1, stopAfterHeldTurns: 2 },
  });
  const state = fresh();
  const escalated = guardCheckpointReply(state, settings, reply(false, 1, 1));
  assert.deepEqual(
    [escalated?.action, escalated?.summary, escalated?.data.minResponseRate],
    ['escalate', 'checkpoints: answered 0 of 1 (below 0.75): checkpoints are enforced from now on', 0.75],
  );
  const stop = guardCheckpointReply(state, settings, reply(false, 2, 2));
  assert.deepEqual(stop?.data, {
    kind: 'stop',
    heldTurns: 2,
    judged: 1,
    answered: 0,
    limit: 2,
    atToolCall: 2,
    warnedAtTurn: 1,
  });
});

test('checkpoints: all guards off or checkpoints off: no decision, nothing counted', () => {
  for (const settings of [
    guardSettingsSchema.parse({ enabled: false }),
    guardSettingsSchema.parse({ checkpoints: { enabled: false } }),
  ]) {
    const state = fresh();
    for (let index = 1; index <= 5; index++)
      assert.equal(guardCheckpointReply(state, settings, reply(false, index, index)), undefined);
    assert.equal(state.decisions, 0);
    assert.deepEqual(state.checkpoints, { judged: 0, answered: 0, escalated: false, heldTurns: 0 });
  }
});

const STATUS = 'one two three four five six seven eight nine ten';
/** 9 words of 11 in common with STATUS: 0.82, near-identical but not the same answer. */
const DRIFTED = 'one two three four five six seven eight nine eleven';

test('answering: a new reply the judge accepts answers, whole; the judge’s no does not', () => {
  const state = fresh();
  rememberModelReply(state, STATUS, 1);
  assert.deepEqual(
    answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: 'a real answer', judged: true }),
    {
      addressed: true,
    },
  );
  assert.deepEqual(
    answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: 'a real answer', judged: false }),
    {
      addressed: false,
    },
  );
});

test('answering: the same answer after a change answers; as a fixed text (two earlier) it does not, and names the reply it repeats', () => {
  const state = fresh();
  rememberModelReply(state, 'Plan: Still Fine.', 1);
  assert.deepEqual(state.replies, [{ shape: 'plan still fine', atTurn: 1 }]);
  turn(state, 2, [write('a', 'new', 2)]);
  assert.deepEqual(
    answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: 'plan still fine', judged: true }),
    { addressed: true },
  );
  rememberModelReply(state, 'plan still fine', 3);
  turn(state, 4, [write('a', 'newer', 4)]);
  assert.deepEqual(
    answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: 'plan still fine', judged: true }),
    {
      addressed: false,
      repeats: 'plan still fine',
    },
  );
});

test('answering: a near-identical reply repeats one given since anything last moved, not one before it', () => {
  const state = fresh();
  rememberModelReply(state, STATUS, 2);
  assert.deepEqual(answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: DRIFTED, judged: true }), {
    addressed: false,
    repeats: STATUS,
  });
  // new information since the earlier reply: answered; a result seen before moves nothing
  turn(state, 3, [read('b', 1)]);
  assert.equal(state.progress.atTurn, 3);
  assert.deepEqual(answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: DRIFTED, judged: true }), {
    addressed: true,
  });
  rememberModelReply(state, STATUS, 4);
  turn(state, 4, [read('b', 2)]);
  assert.deepEqual(answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: DRIFTED, judged: true }), {
    addressed: false,
    repeats: STATUS,
  });
  // new information moves the task, but a third telling of the same status with no change to the
  // workspace since is a narration template (issue 44) …
  turn(state, 5, [read('c', 3)]);
  assert.deepEqual(answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: DRIFTED, judged: true }), {
    addressed: false,
    repeats: STATUS,
  });
  // … until the workspace changes
  turn(state, 6, [write('a', 'new', 4)]);
  assert.deepEqual(answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: DRIFTED, judged: true }), {
    addressed: true,
  });
});

test('answering: the settings’ similarity is used; with all guards or checkpoints off only the judge decides', () => {
  const state = fresh();
  rememberModelReply(state, STATUS, 2);
  const strict = guardSettingsSchema.parse({ checkpoints: { repeatSimilarity: 0.9 } });
  assert.deepEqual(answersCheckpoint(state, strict, { text: DRIFTED, judged: true }), { addressed: true });
  for (const off of [
    guardSettingsSchema.parse({ enabled: false }),
    guardSettingsSchema.parse({ checkpoints: { enabled: false } }),
  ]) {
    assert.deepEqual(answersCheckpoint(state, off, { text: STATUS, judged: true }), { addressed: true });
  }
});

test('answering: state from before issue 22 (no exploration) compares from progress’s turn', () => {
  const state = fresh();
  rememberModelReply(state, STATUS, 2);
  delete state.exploration;
  state.progress = { atToolCall: 5, atTurn: 3, warned: false };
  assert.deepEqual(answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: DRIFTED, judged: true }), {
    addressed: true,
  });
  state.progress = { atToolCall: 5, atTurn: 1, warned: false };
  assert.deepEqual(answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: DRIFTED, judged: true }), {
    addressed: false,
    repeats: STATUS,
  });
});

test('restart: windows, stretches, hypotheses and their warnings are forgotten; memory, denials, replies, checkpoints, their warnings and the count stay', () => {
  const state = fresh();
  // a loop warning, a hypothesis streak, a denial warning, a checkpoint warning, a reply
  turn(state, 1, [read('a', 1), read('a', 2), read('a', 3, { hypothesisMismatch: true })]);
  turn(state, 2, [
    read('', 3, {
      toolName: 'run_command',
      input: { command: 'rm -rf build' },
      summary: 'run_command: rm -rf build',
      effect: CallEffect.Denied,
    }),
  ]);
  guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 3, 3));
  rememberModelReply(state, 'still working', 3);
  assert.deepEqual(
    state.warnings.map((warning) => warning.about),
    [`loop ${callKey('read_file', { path: 'a' })}`, 'denial run_command on build', 'checkpoints'],
  );
  const before = structuredClone(state);
  restartGuards(state, { toolCalls: 9, modelTurns: 6, progressCycle: 2 });
  assert.deepEqual(state, {
    ...before,
    recentCalls: [],
    loopWarnedKeys: [],
    progress: { atToolCall: 9, atTurn: 6, warned: false, cycleSeen: 2 },
    exploration: { atToolCall: 9, atTurn: 6, warned: false },
    recentProgress: [],
    hypotheses: { streak: 0, warned: false },
    warnings: [
      { about: 'denial run_command on build', atTurn: 2 },
      { about: 'checkpoints', atTurn: 3 },
    ],
  });
  restartGuards(state, { toolCalls: 10, modelTurns: 7 });
  assert.deepEqual(state.progress, { atToolCall: 10, atTurn: 7, warned: false });
});

test('restart: checkpoints enforced before it stay enforced, and their stop names the turn of the warning given before it', () => {
  const state = fresh();
  guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 7, 8));
  guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 10, 11));
  restartGuards(state, { toolCalls: 10, modelTurns: 11 });
  assert.equal(guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 10, 12)), undefined);
  assert.deepEqual(guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, reply(false, 10, 13))?.data, {
    kind: 'stop',
    heldTurns: 3,
    judged: 2,
    answered: 0,
    limit: 3,
    atToolCall: 10,
    warnedAtTurn: 11,
  });
});

test('restart: a call repeated before it starts its count again; a denied intent is stopped at its next denials', () => {
  const state = fresh();
  turn(state, 1, [read('a', 1), read('a', 2)]);
  const denial = (atTurn: number) =>
    turn(state, atTurn, [
      read('', 0, {
        toolName: 'run_command',
        input: { command: 'rm -rf build' },
        summary: 'run_command: rm -rf build',
        effect: CallEffect.Denied,
      }),
    ]);
  denial(2);
  denial(3);
  restartGuards(state, { toolCalls: 2, modelTurns: 3 });
  assert.deepEqual(turn(state, 4, [read('a', 3)]), []);
  assert.deepEqual(
    denial(5).map((decision) => [
      decision.guard,
      decision.action,
      decision.data.denials,
      decision.data.warnedAtTurn,
    ]),
    [['denials', 'stop', 3, 2]],
  );
});
