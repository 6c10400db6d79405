import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bringCheckpointForward,
  CHECKPOINT_RETRY_CALLS,
  checkBudget,
  checkpointAfterTurn,
  costPicture,
  DEFAULT_PRINCIPLE_SETTINGS,
  initialPrinciplesState,
  judgeReplyAfterCheckpoint,
  observeDenial,
  observeToolCall,
  principleSettingsSchema,
  principlesStateSchema,
  resolveCadence,
  startTask,
  takeMetaNote,
  type PrincipleSettings,
  type PrinciplesState,
  type ToolCallObservation,
} from '../../src/workflows/principles/principles';
import type { Reversibility } from '../../src/workflows/tools/reversibility';
import type { ToolOutcome } from '../../src/workflows/tools/tool-outcome';

/**
 * The rules of principles.ts, the four harness principles as one state machine (issue 27:
 * mutation testing; principles.test.ts shows the flow, this file pins each rule): the settings'
 * schema and defaults, the cadence chosen from input, worker and 7, what a tool call and a denial
 * count and how they move a dynamic cadence, when a checkpoint fires and what it records, how the
 * first reply after it is judged (tracked, enforced, neither), the retry 3 calls later, a new
 * task's reset, the cost picture, the budget's meta note and its exhaustion.
 */

const ok: ToolOutcome = { ok: true, content: 'fine', candidates: [], facts: {} };
const failed: ToolOutcome = { ok: false, content: 'boom', candidates: [], facts: { exitCode: 1 } };
const settings = (raw: unknown = {}): PrincipleSettings => principleSettingsSchema.parse(raw);
const observation = (
  outcome: ToolOutcome,
  input: unknown = { path: '.' },
  reversibility: Reversibility = 'read-only',
): ToolCallObservation => ({ input, reversibility, summary: 'run_command: make', outcome });
const rejected = (raw: unknown): boolean => !principleSettingsSchema.safeParse(raw).success;
const dynamic = (min: number, max: number) => settings({ cadence: { dynamic: { min, max } } });
const now = '2026-01-01T00:00:00.000Z';

/** A state `calls` tool calls into a task with cadence `cadence`. */
function stateAfter(cadence: number, calls: number, with_: PrincipleSettings = settings()): PrinciplesState {
  const state = initialPrinciplesState(cadence);
  for (let index = 0; index < calls; index++) observeToolCall(state, with_, observation(ok));
  return state;
}

/** A state waiting for the answer to a checkpoint (cadence 1, one call). */
function awaiting(with_: PrincipleSettings): PrinciplesState {
  const state = stateAfter(1, 1, with_);
  assert.ok(checkpointAfterTurn(state, { taskText: 't', now }));
  return state;
}

// --- settings ---------------------------------------------------------------------------------

test('the defaults: hypotheses and actionable failures on; cadence from elsewhere, untracked, unenforced, static; no budget, no prices', () => {
  assert.deepEqual(DEFAULT_PRINCIPLE_SETTINGS, {
    hypothesis: true,
    actionableFailure: true,
    cadence: { trackResponses: false, enforce: false },
  });
  assert.deepEqual(settings({ cadence: {} }), DEFAULT_PRINCIPLE_SETTINGS);
});

test('settings given are kept whole: switches, cadence, dynamic bounds, budget and prices', () => {
  const prices = { mine: { input: 1, output: 2, cacheWrite: 3, cacheRead: 4 } };
  assert.deepEqual(
    settings({
      hypothesis: false,
      actionableFailure: false,
      cadence: { every: 0, trackResponses: true, enforce: true, dynamic: { min: 2, max: 2 } },
      budget: { maxToolCalls: 5 },
      prices,
    }),
    {
      hypothesis: false,
      actionableFailure: false,
      cadence: { every: 0, trackResponses: true, enforce: true, dynamic: { min: 2, max: 2 } },
      budget: { maxToolCalls: 5, warnAt: [0.7, 0.9] },
      prices,
    },
  );
});

test('a cadence is a whole number from 0; dynamic bounds are whole numbers from 1 with min at most max', () => {
  assert.equal(rejected({ cadence: { every: -1 } }), true);
  assert.equal(rejected({ cadence: { every: 1.5 } }), true);
  assert.equal(rejected({ cadence: { every: 0 } }), false);
  assert.equal(rejected({ cadence: { dynamic: { min: 0, max: 4 } } }), true);
  assert.equal(rejected({ cadence: { dynamic: { min: 1, max: 0 } } }), true);
  assert.equal(rejected({ cadence: { dynamic: { min: 1.5, max: 4 } } }), true);
  assert.equal(rejected({ cadence: { dynamic: { min: 4, max: 4 } } }), false);
  assert.equal(rejected({ cadence: { dynamic: { min: 3, max: 4 } } }), false);
  assert.equal(rejected({ cadence: { dynamic: { min: 4 } } }), true);
  const inverted = principleSettingsSchema.safeParse({ cadence: { dynamic: { min: 5, max: 4 } } });
  assert.deepEqual(
    inverted.error?.issues.map(({ path, message }) => ({ path, message })),
    [{ path: ['cadence', 'dynamic'], message: 'min must not exceed max' }],
  );
});

test('unknown keys are refused at every level: the settings, the cadence, the dynamic bounds', () => {
  assert.equal(rejected({ hypotheses: true }), true);
  assert.equal(rejected({ cadence: { every: 3, enforced: true } }), true);
  assert.equal(rejected({ cadence: { dynamic: { min: 1, max: 2, step: 1 } } }), true);
  assert.equal(rejected({ hypothesis: 'yes' }), true);
});

test('the initial state: the cadence as base and current, every counter 0, nothing awaited, warned or noted', () => {
  const state = initialPrinciplesState(5);
  assert.deepEqual(state, {
    cadence: {
      base: 5,
      current: 5,
      taskToolCalls: 0,
      lastCheckpointAt: 0,
      checkpoints: 0,
      addressed: 0,
      awaitingAnswer: false,
    },
    hypotheses: { given: 0, mismatches: 0 },
    budgetWarned: [],
  });
  assert.deepEqual(principlesStateSchema.parse(state), state);
});

test('the state schema keeps a whole state: last checkpoint, warnings and a pending note', () => {
  const state: PrinciplesState = {
    cadence: {
      base: 7,
      current: 3,
      taskToolCalls: 9,
      lastCheckpointAt: 7,
      checkpoints: 2,
      addressed: 1,
      awaitingAnswer: true,
      lastCheckpoint: { atToolCall: 7, at: now },
    },
    hypotheses: { given: 4, mismatches: 1 },
    budgetWarned: ['tokens@0.7'],
    pendingMetaNote: '[budget] note',
  };
  assert.deepEqual(principlesStateSchema.parse(state), state);
  assert.equal(
    principlesStateSchema.safeParse({ ...state, cadence: { ...state.cadence, current: -1 } }).success,
    false,
  );
});

// --- resolveCadence ---------------------------------------------------------------------------

test('the cadence: the goal input first, then the worker, then 7; a 0 from either is kept (off)', () => {
  assert.equal(resolveCadence(settings({ cadence: { every: 9 } }), 4), 9);
  assert.equal(resolveCadence(settings({ cadence: { every: 9 } }), undefined), 9);
  assert.equal(resolveCadence(settings({ cadence: { every: 9 } }), 0), 9);
  assert.equal(resolveCadence(settings({ cadence: { every: 0 } }), 4), 0);
  assert.equal(resolveCadence(settings(), 4), 4);
  assert.equal(resolveCadence(settings(), 0), 0);
  assert.equal(resolveCadence(settings(), undefined), 7);
});

// --- observeToolCall --------------------------------------------------------------------------

test('each call counts 1 for the task, whatever its outcome, hypothesis or reversibility', () => {
  const state = initialPrinciplesState(7);
  observeToolCall(state, settings(), observation(ok));
  assert.equal(state.cadence.taskToolCalls, 1);
  observeToolCall(state, settings(), observation(failed, { hypothesis: 'I expect it to succeed' }));
  assert.equal(state.cadence.taskToolCalls, 2);
  observeToolCall(state, settings({ hypothesis: false }), observation(ok, {}, 'irreversible'));
  assert.equal(state.cadence.taskToolCalls, 3);
});

test('a clear mismatch: counted as given and mismatched, and the whole reflection prompt returned with its reason', () => {
  const state = initialPrinciplesState(7);
  const observed = observeToolCall(
    state,
    settings(),
    observation(failed, { hypothesis: 'I expect it to succeed' }),
  );
  assert.deepEqual(observed, {
    prompt: [
      '[Hypothesis check] The result of run_command: make did not match what you expected.',
      'You expected: I expect it to succeed',
      'What happened: expected success, but the call failed (exit code 1)',
      'Before the next step, say in one or two sentences which assumption this disproves and how it changes your plan. Revise the assumption rather than retrying with different arguments.',
    ].join('\n'),
    mismatchReason: 'expected success, but the call failed (exit code 1)',
  });
  assert.deepEqual(state.hypotheses, { given: 1, mismatches: 1 });
  observeToolCall(state, settings(), observation(failed, { hypothesis: 'I expect it to succeed' }));
  assert.deepEqual(state.hypotheses, { given: 2, mismatches: 2 });
});

test('a hypothesis the result confirms, or one it can neither confirm nor refute, is given but not mismatched, and returns nothing', () => {
  const state = initialPrinciplesState(7);
  assert.deepEqual(
    observeToolCall(state, settings(), observation(ok, { hypothesis: 'I expect it to succeed' })),
    {},
  );
  assert.deepEqual(state.hypotheses, { given: 1, mismatches: 0 });
  assert.deepEqual(
    observeToolCall(state, settings(), observation(failed, { hypothesis: 'Let us look around' })),
    {},
  );
  assert.deepEqual(state.hypotheses, { given: 2, mismatches: 0 });
});

test('no hypothesis: missing, null or absent input, not a string, empty or blank: nothing counted, nothing returned', () => {
  const state = initialPrinciplesState(7);
  for (const input of [
    { path: '.' },
    null,
    undefined,
    'I expect it to succeed',
    { hypothesis: 42 },
    { hypothesis: ['I expect it to succeed'] },
    { hypothesis: '' },
    { hypothesis: ' \n\t ' },
  ]) {
    assert.deepEqual(
      observeToolCall(state, settings(), observation(failed, input)),
      {},
      JSON.stringify(input),
    );
  }
  assert.deepEqual(state.hypotheses, { given: 0, mismatches: 0 });
  assert.equal(state.cadence.taskToolCalls, 8);
});

test('a hypothesis with blanks around it counts, and is quoted as it was written', () => {
  const state = initialPrinciplesState(7);
  const observed = observeToolCall(
    state,
    settings(),
    observation(failed, { hypothesis: '  I expect it to succeed ' }),
  );
  assert.equal(observed.prompt?.split('\n')[1], 'You expected:   I expect it to succeed ');
  assert.deepEqual(state.hypotheses, { given: 1, mismatches: 1 });
});

test('hypotheses switched off: a clear mismatch is neither counted nor prompted', () => {
  const state = initialPrinciplesState(7);
  assert.deepEqual(
    observeToolCall(
      state,
      settings({ hypothesis: false }),
      observation(failed, { hypothesis: 'I expect it to succeed' }),
    ),
    {},
  );
  assert.deepEqual(state.hypotheses, { given: 0, mismatches: 0 });
});

// --- dynamic cadence --------------------------------------------------------------------------

test('dynamic cadence: a failed call halves it (read-only or not); a read-only success leaves it', () => {
  const state = initialPrinciplesState(8);
  observeToolCall(state, dynamic(1, 20), observation(ok));
  assert.equal(state.cadence.current, 8);
  observeToolCall(state, dynamic(1, 20), observation(failed));
  assert.equal(state.cadence.current, 4);
  observeToolCall(state, dynamic(1, 20), observation(failed, {}, 'mutating'));
  assert.equal(state.cadence.current, 2);
  assert.equal(state.cadence.base, 8);
});

test('dynamic cadence: a mutating or irreversible success loosens it by 2, from the current value', () => {
  const state = initialPrinciplesState(8);
  observeToolCall(state, dynamic(1, 20), observation(failed));
  assert.equal(state.cadence.current, 4);
  observeToolCall(state, dynamic(1, 20), observation(ok, {}, 'mutating'));
  assert.equal(state.cadence.current, 6);
  observeToolCall(state, dynamic(1, 20), observation(ok, {}, 'irreversible'));
  assert.equal(state.cadence.current, 8);
  observeToolCall(state, dynamic(1, 20), observation(ok, {}, 'mutating'));
  assert.equal(state.cadence.current, 10);
});

test('dynamic cadence: a denial halves it, within the bounds', () => {
  const state = initialPrinciplesState(8);
  observeDenial(state, dynamic(3, 20));
  assert.equal(state.cadence.current, 4);
  observeDenial(state, dynamic(3, 20));
  assert.equal(state.cadence.current, 3);
  assert.deepEqual(state.cadence, { ...initialPrinciplesState(8).cadence, current: 3 });
});

test('static cadence: failures, denials, mutating successes and new tasks never move it', () => {
  const state = initialPrinciplesState(8);
  observeToolCall(state, settings(), observation(failed));
  observeDenial(state, settings());
  observeToolCall(state, settings(), observation(ok, {}, 'mutating'));
  startTask(state, settings());
  assert.equal(state.cadence.current, 8);
  const off = initialPrinciplesState(0);
  observeToolCall(off, dynamic(2, 10), observation(ok, {}, 'mutating'));
  observeDenial(off, dynamic(2, 10));
  assert.equal(off.cadence.current, 0, 'a cadence of 0 stays off, dynamic or not');
});

// --- checkpointAfterTurn ----------------------------------------------------------------------

test('no checkpoint before the cadence is reached, nor with a cadence of 0; nothing recorded', () => {
  const state = stateAfter(3, 2);
  const before = structuredClone(state);
  assert.equal(checkpointAfterTurn(state, { taskText: 't', now }), undefined);
  assert.deepEqual(state, before);
  const off = stateAfter(0, 50);
  assert.equal(checkpointAfterTurn(off, { taskText: 't', now }), undefined);
  assert.equal(off.cadence.checkpoints, 0);
});

test('a checkpoint at the cadence: the marker to the count, counted, awaited, recorded with its time; the whole prompt with the real count', () => {
  const state = stateAfter(2, 3);
  assert.equal(
    checkpointAfterTurn(state, { taskText: 'Fix the build', now }),
    [
      '[Scheduled checkpoint] This is a routine recalibration that comes on a fixed schedule, not an interruption.',
      'You have made 3 tool calls since the last checkpoint.',
      'The original task, quoted verbatim:',
      '<task>',
      'Fix the build',
      '</task>',
      'Before your next tool call, answer in plain text:',
      '1. Say whether the current plan still matches the task; if it does not, say how the plan changes.',
      '2. State what the last 3 tool calls proved or ruled out.',
      '3. Name the next concrete output (an edit, an answer, a summary) and roughly how many steps away it is.',
    ].join('\n'),
  );
  assert.deepEqual(state.cadence, {
    base: 2,
    current: 2,
    taskToolCalls: 3,
    lastCheckpointAt: 3,
    checkpoints: 1,
    addressed: 0,
    awaitingAnswer: true,
    lastCheckpoint: { atToolCall: 3, at: now },
  });
  observeToolCall(state, settings(), observation(ok));
  assert.equal(checkpointAfterTurn(state, { taskText: 't', now }), undefined, 'one call since: not yet');
  observeToolCall(state, settings(), observation(ok));
  assert.ok(checkpointAfterTurn(state, { taskText: 't', now: 'later' }));
  assert.deepEqual(state.cadence, {
    base: 2,
    current: 2,
    taskToolCalls: 5,
    lastCheckpointAt: 5,
    checkpoints: 2,
    addressed: 0,
    awaitingAnswer: true,
    lastCheckpoint: { atToolCall: 5, at: 'later' },
  });
});

test('a checkpoint comes at the current (dynamic) cadence, not the base: 2 calls after two failures at base 8', () => {
  const state = initialPrinciplesState(8);
  observeToolCall(state, dynamic(2, 20), observation(failed));
  assert.equal(checkpointAfterTurn(state, { taskText: 't', now }), undefined, '1 call, cadence 4');
  observeToolCall(state, dynamic(2, 20), observation(failed));
  assert.equal(state.cadence.current, 2);
  assert.match(checkpointAfterTurn(state, { taskText: 't', now }) ?? '', /You have made 2 tool calls since/);
});

// --- judgeReplyAfterCheckpoint ----------------------------------------------------------------

test('no checkpoint awaited: nothing held and nothing counted, even for an answer under enforcement', () => {
  const state = stateAfter(7, 1);
  const enforce = settings({ cadence: { enforce: true } });
  assert.deepEqual(judgeReplyAfterCheckpoint(state, enforce, true), { holdToolCalls: false });
  assert.deepEqual(judgeReplyAfterCheckpoint(state, enforce, false), { holdToolCalls: false });
  assert.deepEqual(state.cadence, { ...initialPrinciplesState(7).cadence, taskToolCalls: 1 });
});

test('untracked and unenforced: the reply ends the wait; an answer is counted, a non-answer is not; no verdict returned', () => {
  const answered = awaiting(settings());
  assert.deepEqual(judgeReplyAfterCheckpoint(answered, settings(), true), { holdToolCalls: false });
  assert.equal(answered.cadence.addressed, 1);
  assert.equal(answered.cadence.awaitingAnswer, false);
  const ignored = awaiting(settings());
  assert.deepEqual(judgeReplyAfterCheckpoint(ignored, settings(), false), { holdToolCalls: false });
  assert.equal(ignored.cadence.addressed, 0);
  assert.equal(ignored.cadence.awaitingAnswer, false);
});

test('tracked, not enforced: the verdict is returned, nothing held, and the wait ends either way', () => {
  const track = settings({ cadence: { trackResponses: true } });
  const answered = awaiting(track);
  assert.deepEqual(judgeReplyAfterCheckpoint(answered, track, true), {
    holdToolCalls: false,
    addressed: true,
  });
  assert.equal(answered.cadence.addressed, 1);
  assert.equal(answered.cadence.awaitingAnswer, false);
  const ignored = awaiting(track);
  assert.deepEqual(judgeReplyAfterCheckpoint(ignored, track, false), {
    holdToolCalls: false,
    addressed: false,
  });
  assert.equal(ignored.cadence.addressed, 0);
  assert.equal(ignored.cadence.awaitingAnswer, false);
  assert.deepEqual(judgeReplyAfterCheckpoint(ignored, track, false), { holdToolCalls: false }, 'judged once');
});

test('enforced (tracking implied): a non-answer holds the calls and keeps waiting, again and again; an answer releases and is counted once', () => {
  const enforce = settings({ cadence: { enforce: true } });
  const state = awaiting(enforce);
  assert.deepEqual(judgeReplyAfterCheckpoint(state, enforce, false), {
    holdToolCalls: true,
    addressed: false,
  });
  assert.equal(state.cadence.awaitingAnswer, true);
  assert.deepEqual(judgeReplyAfterCheckpoint(state, enforce, false), {
    holdToolCalls: true,
    addressed: false,
  });
  assert.equal(state.cadence.addressed, 0);
  assert.deepEqual(judgeReplyAfterCheckpoint(state, enforce, true), {
    holdToolCalls: false,
    addressed: true,
  });
  assert.equal(state.cadence.addressed, 1);
  assert.equal(state.cadence.awaitingAnswer, false);
  const both = settings({ cadence: { enforce: true, trackResponses: true } });
  const again = awaiting(both);
  assert.deepEqual(judgeReplyAfterCheckpoint(again, both, false), { holdToolCalls: true, addressed: false });
  assert.equal(again.cadence.awaitingAnswer, true);
});

// --- bringCheckpointForward -------------------------------------------------------------------

test('the retry comes 3 calls after an unanswered checkpoint', () => {
  assert.equal(CHECKPOINT_RETRY_CALLS, 3);
  const state = stateAfter(7, 7);
  assert.ok(checkpointAfterTurn(state, { taskText: 't', now }));
  bringCheckpointForward(state);
  assert.equal(state.cadence.lastCheckpointAt, 3, '7 calls - (7 - 3)');
  for (let index = 0; index < 2; index++) observeToolCall(state, settings(), observation(ok));
  assert.equal(checkpointAfterTurn(state, { taskText: 't', now }), undefined);
  observeToolCall(state, settings(), observation(ok));
  assert.ok(checkpointAfterTurn(state, { taskText: 't', now }));
});

test('the retry moves only the marker: 4 at cadence 4, 10 calls → 9; saturates at 0', () => {
  const state = stateAfter(4, 10);
  state.cadence.lastCheckpointAt = 10;
  const before = structuredClone(state);
  bringCheckpointForward(state);
  assert.deepEqual(state, { ...before, cadence: { ...before.cadence, lastCheckpointAt: 9 } });
  const early = stateAfter(20, 2);
  early.cadence.lastCheckpointAt = 2;
  bringCheckpointForward(early);
  assert.equal(early.cadence.lastCheckpointAt, 0, '2 - (20 - 3) saturates at 0');
  const exact = stateAfter(10, 7);
  exact.cadence.lastCheckpointAt = 7;
  bringCheckpointForward(exact);
  assert.equal(exact.cadence.lastCheckpointAt, 0, '7 - (10 - 3) is exactly 0');
});

test('a cadence of 3 or less is left alone (it is no later than the retry)', () => {
  for (const cadence of [3, 2, 0]) {
    const state = stateAfter(cadence, 5);
    state.cadence.lastCheckpointAt = 4;
    bringCheckpointForward(state);
    assert.equal(state.cadence.lastCheckpointAt, 4, `cadence ${cadence}`);
  }
});

test('the retry follows a dynamic cadence, not the base', () => {
  const state = stateAfter(4, 10);
  state.cadence.current = 10;
  state.cadence.lastCheckpointAt = 10;
  bringCheckpointForward(state);
  assert.equal(state.cadence.lastCheckpointAt, 3, '10 - (10 - 3)');
});

// --- startTask --------------------------------------------------------------------------------

test('a new task resets the counters and the wait, keeps the totals, and puts a dynamic cadence back to base', () => {
  const enforce = settings({ cadence: { enforce: true, dynamic: { min: 1, max: 20 } } });
  const state = stateAfter(6, 6, enforce);
  observeToolCall(state, enforce, observation(failed));
  assert.equal(state.cadence.current, 3);
  assert.ok(checkpointAfterTurn(state, { taskText: 't', now }));
  assert.equal(state.cadence.awaitingAnswer, true);
  startTask(state, enforce);
  assert.deepEqual(state.cadence, {
    base: 6,
    current: 6,
    taskToolCalls: 0,
    lastCheckpointAt: 0,
    checkpoints: 1,
    addressed: 0,
    awaitingAnswer: false,
    lastCheckpoint: { atToolCall: 7, at: now },
  });
});

// --- costPicture ------------------------------------------------------------------------------

const usage = {
  inputTokens: 1_000_000,
  outputTokens: 100_000,
  cacheCreationInputTokens: 20,
  cacheReadInputTokens: 3,
};

test('the cost picture: all tokens, USD from the default prices, elapsed time and calls', () => {
  const usd = (1_000_000 * 3 + 100_000 * 15 + 20 * 3.75 + 3 * 0.3) / 1_000_000;
  assert.deepEqual(
    costPicture({ usage, model: 'claude-sonnet-4-5', settings: settings(), elapsedMs: 1234, toolCalls: 5 }),
    {
      usd,
      priced: true,
      spent: { tokens: 1_100_023, usd, wallTimeMs: 1234, toolCalls: 5 },
    },
  );
});

test('the cost picture: the goal prices replace the default table; an unpriced model costs 0, said so', () => {
  const mine = settings({ prices: { 'my-model': { input: 1, output: 2, cacheWrite: 0, cacheRead: 0 } } });
  assert.deepEqual(costPicture({ usage, model: 'my-model', settings: mine, elapsedMs: 0, toolCalls: 0 }), {
    usd: 1.2,
    priced: true,
    spent: { tokens: 1_100_023, usd: 1.2, wallTimeMs: 0, toolCalls: 0 },
  });
  assert.deepEqual(
    costPicture({ usage, model: 'claude-sonnet-4-5', settings: mine, elapsedMs: 7, toolCalls: 1 }),
    { usd: 0, priced: false, spent: { tokens: 1_100_023, usd: 0, wallTimeMs: 7, toolCalls: 1 } },
  );
});

// --- checkBudget and takeMetaNote -------------------------------------------------------------

const spent = (toolCalls: number, tokens = 0) => ({ tokens, usd: 0, wallTimeMs: 0, toolCalls });

test('no budget: never exhausted, nothing warned or noted', () => {
  const state = initialPrinciplesState(0);
  assert.equal(checkBudget(state, settings(), spent(1000, 1e9)), undefined);
  assert.deepEqual(state, initialPrinciplesState(0));
});

test('below every fraction: nothing warned, nothing noted, not exhausted', () => {
  const state = initialPrinciplesState(0);
  assert.equal(checkBudget(state, settings({ budget: { maxToolCalls: 10 } }), spent(6)), undefined);
  assert.deepEqual(state, initialPrinciplesState(0));
});

test('crossing fractions: each key remembered once, one note per dimension at its highest fraction', () => {
  const budgeted = settings({ budget: { maxToolCalls: 10, maxTokens: 100 } });
  const state = initialPrinciplesState(0);
  assert.equal(checkBudget(state, budgeted, spent(9, 70)), undefined);
  assert.deepEqual(state.budgetWarned, ['tokens@0.7', 'tool-calls@0.7', 'tool-calls@0.9']);
  assert.equal(
    takeMetaNote(state),
    '[budget] token budget 70% used (70 of 100); tool-call budget 90% used (9 of 10 calls)',
  );
  assert.equal(state.pendingMetaNote, undefined);
  assert.equal(takeMetaNote(state), undefined, 'a note rides on one result only');
  assert.equal(checkBudget(state, budgeted, spent(9, 80)), undefined);
  assert.equal(takeMetaNote(state), undefined, 'a fraction warns once');
  assert.deepEqual(state.budgetWarned, ['tokens@0.7', 'tool-calls@0.7', 'tool-calls@0.9']);
});

test('notes not yet taken are joined with a space, in the order given', () => {
  const budgeted = settings({ budget: { maxToolCalls: 10 } });
  const state = initialPrinciplesState(0);
  checkBudget(state, budgeted, spent(7));
  checkBudget(state, budgeted, spent(9));
  assert.equal(
    takeMetaNote(state),
    '[budget] tool-call budget 70% used (7 of 10 calls) [budget] tool-call budget 90% used (9 of 10 calls)',
  );
});

test('at 100% of a budget the dimension is exhausted, with its spend and limit; the warnings still come', () => {
  const budgeted = settings({ budget: { maxToolCalls: 10 } });
  const state = initialPrinciplesState(0);
  assert.deepEqual(checkBudget(state, budgeted, spent(10)), {
    dimension: 'tool-calls',
    spent: 10,
    limit: 10,
  });
  assert.deepEqual(state.budgetWarned, ['tool-calls@0.7', 'tool-calls@0.9']);
  assert.equal(takeMetaNote(state), '[budget] tool-call budget 100% used (10 of 10 calls)');
  assert.deepEqual(checkBudget(state, budgeted, spent(11)), {
    dimension: 'tool-calls',
    spent: 11,
    limit: 10,
  });
  assert.equal(takeMetaNote(state), undefined);
});

test('taking a note leaves the rest of the state as it was', () => {
  const state = initialPrinciplesState(4);
  state.pendingMetaNote = 'note';
  assert.equal(takeMetaNote(state), 'note');
  assert.deepEqual(state, { ...initialPrinciplesState(4), pendingMetaNote: undefined });
});
