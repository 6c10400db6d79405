import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_GUARD_SETTINGS,
  guardCheckpointReply,
  guardSettingsSchema,
  guardsStateSchema,
  guardTurn,
  initialGuardsState,
  restartGuards,
  type GuardedCall,
  type GuardsState,
} from '../../src/workflows/principles/guards';

const read = (path: string, atToolCall: number, extra: Partial<GuardedCall> = {}): GuardedCall => ({
  toolName: 'read_file',
  input: { path },
  summary: `read_file: ${path}`,
  resultText: `contents of ${path}`,
  failed: false,
  candidates: [],
  atToolCall,
  progress: false,
  hypothesisMismatch: undefined,
  ...extra,
});

/** One call per turn, as most scripted scenarios make them. */
function turns(state: GuardsState, calls: GuardedCall[], settings = DEFAULT_GUARD_SETTINGS) {
  return calls.map((call, index) =>
    guardTurn(state, settings, {
      calls: [call],
      toolCalls: call.atToolCall,
      modelTurns: index + 1,
      progressCycle: undefined,
      consequence: 'stops the goal as stuck',
    }),
  );
}

test('goal input: on by default with the documented limits; bad limits are refused', () => {
  assert.equal(DEFAULT_GUARD_SETTINGS.loop.enabled, true);
  assert.deepEqual(
    [
      DEFAULT_GUARD_SETTINGS.loop.warnAt,
      DEFAULT_GUARD_SETTINGS.loop.stopAt,
      DEFAULT_GUARD_SETTINGS.loop.window,
    ],
    [3, 5, 10],
  );
  assert.equal(DEFAULT_GUARD_SETTINGS.stagnation.stopAfterTurns, 16);
  assert.equal(DEFAULT_GUARD_SETTINGS.checkpoints.minResponseRate, 0.5);
  assert.equal(guardSettingsSchema.safeParse({ loop: { warnAt: 6, stopAt: 4 } }).success, false);
  assert.equal(guardSettingsSchema.safeParse({ loop: { stopAt: 20 } }).success, false); // beyond the window
  assert.equal(guardSettingsSchema.safeParse({ loops: {} }).success, false); // unknown keys are refused
  assert.equal(guardSettingsSchema.parse({ stagnation: { enabled: false } }).stagnation.enabled, false);
});

test('a repeater: the loop guard prompts at its 3rd read and stops it at the 5th, with the numbers', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const decisions = turns(
    state,
    [1, 2, 3, 4, 5].map((n) => read('notes.md', n)),
  );
  assert.deepEqual(
    decisions.map((list) => list.map((decision) => `${decision.guard}:${decision.action}`)),
    [[], [], ['loop:warn'], [], ['loop:stop']],
  );
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
  assert.match(
    decisions[4]?.[0]?.summary ?? '',
    /read_file: notes\.md made 5 times in the last 10 tool calls/,
  );
  assert.equal(state.decisions, 2);
});

test('guards: { enabled: false } switches every guard off', () => {
  const settings = guardSettingsSchema.parse({ enabled: false });
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  assert.ok(
    turns(
      state,
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => read('a', n)),
      settings,
    ).every((list) => list.length === 0),
  );
  for (let index = 0; index < 5; index++) {
    assert.equal(guardCheckpointReply(state, settings, { addressed: false, toolCalls: 8 }), undefined);
  }
});

test('a looper gets its tool’s own next actions in the prompt', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const failing = (n: number) =>
    read('missing.txt', n, { failed: true, resultText: 'no such file', candidates: ['list_dir "."'] });
  const decisions = turns(state, [1, 2, 3].map(failing));
  assert.match(decisions[2]?.[0]?.prompt ?? '', /failing the same way each time[\s\S]*1\. list_dir "\."/);
});

test('a long good task of distinct reads and regular edits: no decision at all', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const calls = Array.from({ length: 40 }, (_, index) =>
    index % 3 === 2
      ? read(`src/module-${index}.ts`, index + 1, { toolName: 'edit_file', progress: true })
      : read(`src/module-${index}.ts`, index + 1),
  );
  assert.ok(turns(state, calls).every((list) => list.length === 0));
});

test('a never-finisher: a stagnation prompt at 7 calls without progress, a stop at 16 turns', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const decisions = turns(
    state,
    Array.from({ length: 16 }, (_, index) => read(`file-${index}`, index + 1)),
  );
  const fired = decisions.flatMap((list, index) => list.map((decision) => `${index + 1}:${decision.action}`));
  assert.deepEqual(fired, ['7:warn', '16:stop']);
});

test('progress (an edit, or a plan step completed) starts the stretch again', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  turns(
    state,
    Array.from({ length: 6 }, (_, index) => read(`file-${index}`, index + 1)),
  );
  const decisions = guardTurn(state, DEFAULT_GUARD_SETTINGS, {
    calls: [read('file-x', 7)],
    toolCalls: 7,
    modelTurns: 7,
    progressCycle: 7, // assessment.lastProgressCycle moved: a plan step was completed
    consequence: 'x',
  });
  assert.deepEqual(decisions, []);
  assert.equal(state.progress.atToolCall, 7);
});

test('hypotheses that keep missing: a prompt at 3 in a row', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const decisions = turns(
    state,
    [1, 2, 3].map((n) => read(`f${n}`, n, { hypothesisMismatch: true, toolName: 'search' })),
  );
  assert.equal(decisions[2]?.[0]?.guard, 'hypotheses');
});

test('checkpoint replies: the decisions carry the response rate', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const first = guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, { addressed: false, toolCalls: 7 });
  assert.equal(first?.action, 'warn');
  const second = guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, { addressed: false, toolCalls: 14 });
  assert.equal(second?.action, 'escalate');
  assert.deepEqual(second?.data, {
    judged: 2,
    answered: 0,
    responseRate: 0,
    minResponseRate: 0.5,
    atToolCall: 14,
  });
  guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, { addressed: false, toolCalls: 14 });
  const stop = guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, { addressed: false, toolCalls: 14 });
  assert.equal(stop?.action, 'stop');
  assert.match(stop?.summary ?? '', /3 replies in a row ignored an enforced checkpoint/);
});

test('a restart (new task, new plan attempt) forgets loops and stretches but keeps checkpoint history', () => {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  turns(
    state,
    [1, 2, 3].map((n) => read('a', n)),
  );
  guardCheckpointReply(state, DEFAULT_GUARD_SETTINGS, { addressed: false, toolCalls: 3 });
  restartGuards(state, { toolCalls: 3, modelTurns: 3 });
  assert.deepEqual(state.recentCalls, []);
  assert.deepEqual(state.loopWarnedKeys, []);
  assert.equal(state.progress.atToolCall, 3);
  assert.equal(state.checkpoints.judged, 1);
});

test('guard state round-trips through its schema (continue-as-new carries it)', () => {
  const state = initialGuardsState({ toolCalls: 4, modelTurns: 2, progressCycle: 1 });
  turns(
    state,
    [5, 6, 7].map((n) => read('a', n)),
  );
  assert.deepEqual(guardsStateSchema.parse(JSON.parse(JSON.stringify(state))), state);
});
