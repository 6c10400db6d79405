import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectCycle, type RememberedCall } from '../../src/workflows/principles/loop-guard';

/**
 * The cycle detector's signature at an edge the mutation run found untested (issue 27), beside
 * loop-guard-rules.test.ts: rotations are compared call by call, not as one run of text.
 */

const call = (key: string, index: number): RememberedCall => ({
  key,
  result: 'same',
  summary: key,
  atToolCall: index + 1,
});

test('a cycle has one signature wherever it is entered, even when one call key repeats another', () => {
  // Glued together, "a" + "aa" and "aa" + "a" read the same; call by call they differ, and the
  // signature must not depend on which of them the goal happened to start with.
  const enteredAtA = detectCycle({
    recent: ['a', 'aa', 'a', 'aa'].map(call),
    maxLength: 4,
    matchResults: false,
  });
  const enteredAtAa = detectCycle({
    recent: ['aa', 'a', 'aa', 'a'].map(call),
    maxLength: 4,
    matchResults: false,
  });
  assert.equal(enteredAtA?.signature, 'a\u0001aa');
  assert.equal(enteredAtAa?.signature, 'a\u0001aa');
});
