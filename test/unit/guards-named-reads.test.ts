import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GuardedCall } from '../../src/workflows/principles/guards';
import { initialGuardsState } from '../../src/workflows/principles/guards';
import { fired, oneByOne, read, write } from './guards-test-helpers';

/**
 * list_dir and search, like read_file, depend only on the paths they name: listing or searching
 * the same unchanged places again after rewriting a scratch file checks nothing, so the rewrite
 * does not pass for progress (issue 44's fake progress). Five places in turn, a scratch write every
 * sixth call: each tool is stopped exactly where read_file is; counted as checks, the re-runs would
 * put the stop five calls later.
 */

const reads: Record<string, (place: string, atToolCall: number) => GuardedCall> = {
  read_file: (place, atToolCall) => read(place, atToolCall),
  list_dir: (place, atToolCall) =>
    read(place, atToolCall, {
      toolName: 'list_dir',
      input: { path: place },
      summary: `list_dir: ${place}`,
      resultText: `entries of ${place}`,
    }),
  search: (place, atToolCall) =>
    read(place, atToolCall, {
      toolName: 'search',
      input: { pattern: 'TODO', path: place },
      summary: `search: TODO in ${place}`,
      resultText: `matches in ${place}`,
    }),
};

function firstStop(again: (place: string, atToolCall: number) => GuardedCall): string {
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const calls = Array.from({ length: 40 }, (_, index) =>
    (index + 1) % 6 === 0
      ? write('scratch.txt', `note ${index}`, index + 1)
      : again(`d${index % 5}`, index + 1),
  );
  const decisions = fired(oneByOne(state, calls));
  return decisions.find((decision) => decision.endsWith(':stop')) ?? `no stop: ${decisions.join(', ')}`;
}

test('re-reading unchanged places between scratch writes is stopped at the same call for read_file, list_dir and search', () => {
  const expected = firstStop(reads.read_file ?? read);
  assert.equal(expected, '15:stagnation:stop');
  for (const tool of ['list_dir', 'search'])
    assert.equal(firstStop(reads[tool] ?? read), expected, `${tool} is stopped as read_file is`);
});
