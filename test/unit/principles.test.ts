import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bringCheckpointForward,
  checkBudget,
  checkpointAfterTurn,
  initialPrinciplesState,
  judgeReplyAfterCheckpoint,
  observeDenial,
  observeToolCall,
  principleSettingsSchema,
  resolveCadence,
  startTask,
  takeMetaNote,
} from '../../src/workflows/principles/principles';
import type { ToolOutcome } from '../../src/workflows/tools/tool-outcome';

const ok: ToolOutcome = { ok: true, content: 'fine', candidates: [], facts: {} };
const failed: ToolOutcome = { ok: false, content: 'boom', candidates: [], facts: { exitCode: 1 } };
const settings = (raw: unknown = {}) => principleSettingsSchema.parse(raw);
const call = (outcome: ToolOutcome, extra: Record<string, unknown> = {}) => ({
  input: { path: '.', ...extra },
  reversibility: 'read-only' as const,
  summary: 'list_dir: .',
  outcome,
});

test('cadence resolution: goal input, then the worker, then 7; 0 from anywhere disables', () => {
  assert.equal(resolveCadence(settings(), undefined), 7);
  assert.equal(resolveCadence(settings(), 4), 4);
  assert.equal(resolveCadence(settings({ cadence: { every: 0 } }), 4), 0);
  assert.equal(resolveCadence(settings({ cadence: { every: 9 } }), 0), 9);
});

test('a checkpoint fires after the counted calls reach the cadence, then the marker moves', () => {
  const state = initialPrinciplesState(3);
  const options = { taskText: 'the task', now: '2026-01-01T00:00:00.000Z' };
  observeToolCall(state, settings(), call(ok));
  observeToolCall(state, settings(), call(ok));
  assert.equal(checkpointAfterTurn(state, options), undefined);
  observeToolCall(state, settings(), call(ok));
  assert.match(checkpointAfterTurn(state, options) ?? '', /3 tool calls since the last checkpoint/);
  assert.equal(state.cadence.lastCheckpointAt, 3);
  assert.equal(checkpointAfterTurn(state, options), undefined, 'not again until three more');
  startTask(state, settings());
  assert.equal(state.cadence.taskToolCalls, 0);
  assert.equal(state.cadence.lastCheckpointAt, 0);
});

test('hypotheses are counted; a clear mismatch returns a prompt; switched off they are ignored', () => {
  const state = initialPrinciplesState(0);
  const mismatch = observeToolCall(state, settings(), call(failed, { hypothesis: 'I expect it to succeed' }));
  assert.ok(mismatch.prompt);
  assert.deepEqual(state.hypotheses, { given: 1, mismatches: 1 });
  observeToolCall(
    state,
    settings({ hypothesis: false }),
    call(failed, { hypothesis: 'I expect it to succeed' }),
  );
  assert.deepEqual(state.hypotheses, { given: 1, mismatches: 1 });
});

test('a denied call counts as a call, but neither moves the cadence nor is compared with its hypothesis', () => {
  const dynamic = settings({ cadence: { dynamic: { min: 2, max: 10 } } });
  const state = initialPrinciplesState(8);
  const denied = observeToolCall(state, dynamic, {
    ...call(failed, { hypothesis: 'I expect it to succeed' }),
    denied: true,
  });
  assert.deepEqual(denied, {});
  assert.equal(state.cadence.taskToolCalls, 1, 'still a call of the task');
  assert.equal(state.cadence.current, 8, 'observeDenial moves the cadence, not the call');
  assert.deepEqual(state.hypotheses, { given: 0, mismatches: 0 });
  observeToolCall(state, dynamic, { ...call(failed), denied: false });
  assert.equal(state.cadence.current, 4, 'a call that ran and failed does');
});

test('dynamic cadence tightens after failures and denials, loosens after mutating successes, within bounds', () => {
  const dynamic = settings({ cadence: { dynamic: { min: 2, max: 10 } } });
  const state = initialPrinciplesState(8);
  observeToolCall(state, dynamic, call(failed));
  assert.equal(state.cadence.current, 4);
  observeDenial(state, dynamic);
  assert.equal(state.cadence.current, 2);
  observeDenial(state, dynamic);
  assert.equal(state.cadence.current, 2, 'never below min');
  observeToolCall(state, dynamic, { ...call(ok), reversibility: 'mutating' });
  assert.equal(state.cadence.current, 4);
  startTask(state, dynamic);
  assert.equal(state.cadence.current, 8, 'back to base for a new task');
  const fixed = initialPrinciplesState(8);
  observeToolCall(fixed, settings(), call(failed));
  assert.equal(fixed.cadence.current, 8, 'static unless dynamic is on');
});

test('replies after a checkpoint: tracked, and held back under enforcement until answered', () => {
  const enforce = settings({ cadence: { enforce: true } });
  const state = initialPrinciplesState(1);
  observeToolCall(state, enforce, call(ok));
  checkpointAfterTurn(state, { taskText: 't', now: 'n' });
  assert.deepEqual(judgeReplyAfterCheckpoint(state, enforce, false), {
    holdToolCalls: true,
    addressed: false,
  });
  const answered = judgeReplyAfterCheckpoint(state, enforce, true);
  assert.deepEqual(answered, { holdToolCalls: false, addressed: true });
  assert.equal(state.cadence.addressed, 1);
  assert.deepEqual(
    judgeReplyAfterCheckpoint(state, enforce, true),
    { holdToolCalls: false },
    'nothing pending',
  );
});

test('answered checkpoints are counted with tracking off too (the stats read them)', () => {
  const plain = settings();
  const state = initialPrinciplesState(1);
  observeToolCall(state, plain, call(ok));
  checkpointAfterTurn(state, { taskText: 't', now: 'n' });
  assert.deepEqual(judgeReplyAfterCheckpoint(state, plain, true), { holdToolCalls: false });
  assert.equal(state.cadence.addressed, 1);
  assert.equal(state.cadence.awaitingAnswer, false);
});

test('after an unanswered checkpoint the next one comes 3 calls later, not a whole cadence', () => {
  const plain = settings();
  const state = initialPrinciplesState(7);
  for (let index = 0; index < 7; index++) observeToolCall(state, plain, call(ok));
  assert.ok(checkpointAfterTurn(state, { taskText: 't', now: 'n' }));
  bringCheckpointForward(state);
  for (let index = 0; index < 2; index++) observeToolCall(state, plain, call(ok));
  assert.equal(checkpointAfterTurn(state, { taskText: 't', now: 'n' }), undefined);
  observeToolCall(state, plain, call(ok));
  assert.ok(checkpointAfterTurn(state, { taskText: 't', now: 'n' }));
  // a cadence already at most 3 is left alone
  const tight = initialPrinciplesState(2);
  bringCheckpointForward(tight);
  assert.equal(tight.cadence.lastCheckpointAt, 0);
});

test('budget: each fraction warns once as one meta note; 100% is exhaustion', () => {
  const budgeted = settings({ budget: { maxToolCalls: 10 } });
  const state = initialPrinciplesState(0);
  const spent = (toolCalls: number) => ({ tokens: 0, usd: 0, wallTimeMs: 0, toolCalls });
  assert.equal(checkBudget(state, budgeted, spent(7)), undefined);
  assert.match(takeMetaNote(state) ?? '', /^\[budget\] /);
  assert.equal(takeMetaNote(state), undefined, 'a note rides on one result only');
  checkBudget(state, budgeted, spent(8));
  assert.equal(takeMetaNote(state), undefined, 'the 70% warning is not repeated');
  assert.equal(checkBudget(state, budgeted, spent(10))?.dimension, 'tool-calls');
  assert.equal(
    checkBudget(initialPrinciplesState(0), settings(), spent(1000)),
    undefined,
    'no budget, no limit',
  );
});
