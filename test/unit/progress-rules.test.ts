import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultDigest } from '../../src/workflows/principles/loop-guard';
import {
  CallEffect,
  initialProgressMemory,
  judgeProgress,
  MAX_REMEMBERED_RESULTS,
  MAX_REMEMBERED_STATES,
  ProgressKind,
  progressMemorySchema,
  type ProgressCall,
  type ProgressMemory,
} from '../../src/workflows/principles/progress';

/**
 * What counts as progress (progress.ts; issue 27: mutation testing): a read with a result not
 * seen before is new information, a change to a state not seen before is a new state, a change
 * to the same targets as the change just before with nothing learned in between is churn, and
 * denied calls bring nothing. The memory keeps the newest 400 results and 200 states.
 */

const read = (resultText: string): ProgressCall => ({
  effect: CallEffect.Read,
  key: 'read_file {}',
  resultText,
  targets: [],
});
const change = (targets: string[], over: Partial<ProgressCall> = {}): ProgressCall => ({
  effect: CallEffect.Change,
  key: `write_file ${targets.join(',')}`,
  resultText: 'ok',
  targets,
  ...over,
});

/** The fields these rules are about (issue 44 added what a re-run checks: progress-checks.test.ts). */
const core = ({ results, states, lastChangeTargets, learned }: ProgressMemory) => ({
  results,
  states,
  ...(lastChangeTargets === undefined ? {} : { lastChangeTargets }),
  learned,
});

test('the kinds, the effects and the limits: 400 results, 200 states; memory starts empty, nothing learned', () => {
  assert.deepEqual(ProgressKind, {
    NewInformation: 'new-information',
    NewState: 'new-state',
    Nothing: 'nothing-new',
  });
  assert.deepEqual(CallEffect, { Read: 'read', Change: 'change', Denied: 'denied' });
  assert.equal(MAX_REMEMBERED_RESULTS, 400);
  assert.equal(MAX_REMEMBERED_STATES, 200);
  assert.deepEqual(initialProgressMemory(), { results: [], states: [], learned: false });
  assert.notEqual(initialProgressMemory(), initialProgressMemory());
});

test('the memory schema: results, states, learned; the last change targets optional', () => {
  const memory = { results: ['a'], states: ['b'], learned: true };
  assert.deepEqual(progressMemorySchema.parse(memory), memory);
  assert.deepEqual(progressMemorySchema.parse({ ...memory, lastChangeTargets: ['x'] }), {
    ...memory,
    lastChangeTargets: ['x'],
  });
  for (const bad of [
    { ...memory, learned: undefined },
    { ...memory, results: [1] },
    { ...memory, states: undefined },
  ]) {
    assert.equal(progressMemorySchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
});

test('a denied call brings nothing and leaves the memory as it was', () => {
  const memory = initialProgressMemory();
  assert.equal(judgeProgress(memory, { ...read('x'), effect: CallEffect.Denied }), ProgressKind.Nothing);
  assert.equal(judgeProgress(memory, { ...change(['a']), effect: CallEffect.Denied }), ProgressKind.Nothing);
  assert.deepEqual(memory, initialProgressMemory());
});

test('a read brings new information once per result (spaces around it ignored); it is remembered by digest and marks something learned', () => {
  const memory = initialProgressMemory();
  assert.equal(judgeProgress(memory, read('  file text \n')), ProgressKind.NewInformation);
  assert.deepEqual(core(memory), { results: [resultDigest('file text')], states: [], learned: true });
  assert.equal(judgeProgress(memory, read('file text')), ProgressKind.Nothing);
  assert.equal(judgeProgress(memory, read('other text')), ProgressKind.NewInformation);
  assert.deepEqual(memory.results, [resultDigest('file text'), resultDigest('other text')]);
});

test('a change with a state digest is a new state once per state; then nothing learned since it', () => {
  const memory: ProgressMemory = { results: [], states: [], learned: true };
  assert.equal(judgeProgress(memory, change(['a'], { stateAfter: 's1' })), ProgressKind.NewState);
  assert.deepEqual(core(memory), { results: [], states: ['s1'], lastChangeTargets: ['a'], learned: false });
  assert.equal(
    judgeProgress(memory, change(['b'], { stateAfter: 's1', key: 'other' })),
    ProgressKind.Nothing,
  );
  assert.deepEqual(core(memory), { results: [], states: ['s1'], lastChangeTargets: ['a'], learned: false });
});

test('a change without a state digest stands for its state by its call key and result digest', () => {
  const memory = initialProgressMemory();
  assert.equal(
    judgeProgress(memory, change(['a'], { key: 'k', resultText: ' done ' })),
    ProgressKind.NewState,
  );
  assert.deepEqual(memory.states, [`k→${resultDigest('done')}`]);
  assert.equal(judgeProgress(memory, change(['b'], { key: 'k', resultText: 'done' })), ProgressKind.Nothing);
  assert.equal(
    judgeProgress(memory, change(['b'], { key: 'k', resultText: 'other' })),
    ProgressKind.NewState,
  );
  assert.equal(
    judgeProgress(memory, change(['c'], { key: 'k2', resultText: 'other' })),
    ProgressKind.NewState,
  );
});

test('a state returned to (an undone edit) is not new', () => {
  const memory = initialProgressMemory();
  assert.equal(judgeProgress(memory, change(['a'], { stateAfter: 's1' })), ProgressKind.NewState);
  assert.equal(judgeProgress(memory, read('learned')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, change(['a'], { stateAfter: 's2' })), ProgressKind.NewState);
  assert.equal(judgeProgress(memory, read('learned more')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, change(['a'], { stateAfter: 's1' })), ProgressKind.Nothing);
});

test('churn: a new state of the same targets (in any order) as the change before, nothing learned between, is nothing; its state is still remembered', () => {
  const memory = initialProgressMemory();
  assert.equal(judgeProgress(memory, change(['b', 'a'], { stateAfter: 's1' })), ProgressKind.NewState);
  assert.deepEqual(memory.lastChangeTargets, ['a', 'b']);
  assert.equal(judgeProgress(memory, change(['a', 'b'], { stateAfter: 's2' })), ProgressKind.Nothing);
  assert.deepEqual(core(memory), {
    results: [],
    states: ['s1', 's2'],
    lastChangeTargets: ['a', 'b'],
    learned: false,
  });
  assert.equal(judgeProgress(memory, change(['b', 'a'], { stateAfter: 's3' })), ProgressKind.Nothing);
});

test('not churn: other targets, more or fewer targets, something learned in between, no earlier change, or no targets', () => {
  const after = (memory: ProgressMemory, call: ProgressCall) => judgeProgress(memory, call);
  const changed = (): ProgressMemory => ({
    results: [],
    states: ['s0'],
    lastChangeTargets: ['a', 'b'],
    learned: false,
  });
  assert.equal(after(changed(), change(['a', 'c'], { stateAfter: 's1' })), ProgressKind.NewState);
  assert.equal(after(changed(), change(['a'], { stateAfter: 's1' })), ProgressKind.NewState);
  assert.equal(after(changed(), change(['a', 'b', 'c'], { stateAfter: 's1' })), ProgressKind.NewState);
  assert.equal(
    after({ ...changed(), learned: true }, change(['a', 'b'], { stateAfter: 's1' })),
    ProgressKind.NewState,
  );
  assert.equal(
    after({ results: [], states: [], learned: false }, change(['a', 'b'], { stateAfter: 's1' })),
    ProgressKind.NewState,
  );
  const none: ProgressMemory = { results: [], states: [], lastChangeTargets: [], learned: false };
  assert.equal(after(none, change([], { stateAfter: 's1' })), ProgressKind.NewState);
  assert.deepEqual(core(none), { results: [], states: ['s1'], lastChangeTargets: [], learned: false });
  assert.equal(after(none, change([], { stateAfter: 's2' })), ProgressKind.NewState);
});

test('a read that brings nothing new does not count as learning: the next same-target change is churn', () => {
  const memory: ProgressMemory = {
    results: [resultDigest('seen')],
    states: ['s0'],
    lastChangeTargets: ['a'],
    learned: false,
  };
  assert.equal(judgeProgress(memory, read('seen')), ProgressKind.Nothing);
  assert.equal(memory.learned, false);
  assert.equal(judgeProgress(memory, change(['a'], { stateAfter: 's1' })), ProgressKind.Nothing);
});

test('the newest 400 results are remembered: the oldest goes, and is new information again', () => {
  const memory = initialProgressMemory();
  for (let index = 0; index < 401; index++) judgeProgress(memory, read(`r${index}`));
  assert.equal(memory.results.length, 400);
  assert.equal(memory.results[0], resultDigest('r1'));
  assert.equal(memory.results[399], resultDigest('r400'));
  assert.equal(judgeProgress(memory, read('r1')), ProgressKind.Nothing);
  assert.equal(judgeProgress(memory, read('r0')), ProgressKind.NewInformation);
});

test('the newest 200 states are remembered: the oldest goes, and is a new state again', () => {
  const memory = initialProgressMemory();
  for (let index = 0; index < 201; index++)
    judgeProgress(memory, change([`t${index}`], { stateAfter: `s${index}` }));
  assert.equal(memory.states.length, 200);
  assert.equal(memory.states[0], 's1');
  assert.equal(memory.states[199], 's200');
  assert.equal(judgeProgress(memory, change(['x'], { stateAfter: 's1' })), ProgressKind.Nothing);
  assert.equal(judgeProgress(memory, change(['y'], { stateAfter: 's0' })), ProgressKind.NewState);
});
