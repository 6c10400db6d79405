import { test } from 'node:test';
import assert from 'node:assert/strict';
import { intentOf } from '../../src/workflows/principles/call-intent';

/**
 * How deep call intents read command lines inside command lines (call-intent.ts; issue 27, beside
 * call-intent-rules.test.ts): `eval` and `sh -c` are read three levels deep, and deeper ones keep
 * their words as targets, so a model's `eval eval … rm x` cannot overflow the workflow's stack.
 */

const targetsOf = (command: string) => intentOf('run_command', { command }).targets;

test('eval and sh -c are read 3 levels deep: the third still names build, the fourth keeps its words', () => {
  assert.deepEqual(targetsOf('eval eval eval rm -rf build'), ['build']);
  // The fourth eval is a program again: its arguments are targets, rm among them.
  assert.deepEqual(targetsOf('eval eval eval eval rm -rf build'), ['build', 'rm']);
  assert.deepEqual(targetsOf('eval eval eval eval eval rm -rf build'), ['build', 'eval', 'rm']);
  assert.deepEqual(targetsOf(`sh -c 'eval eval rm -rf build'`), ['build']);
  assert.deepEqual(targetsOf(`eval eval sh -c 'rm -rf build'`), ['build']);
  // A fourth level's sh -c is a program with arguments (eval re-read its quotes away).
  assert.deepEqual(targetsOf(`eval eval eval sh -c 'rm -rf build'`), ['build', 'rm']);
  assert.deepEqual(targetsOf(`sh -c "sh -c 'eval sh -c x'"`), ['x']);
});

test('thousands of nested evals are read without overflowing the stack', () => {
  assert.deepEqual(targetsOf(`${'eval '.repeat(20_000)}rm -rf build`), ['build', 'eval', 'rm']);
});
