import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSimpleCommands } from '../../src/workflows/tools/shell-words';

/**
 * The sh tokenizer's brace rule where no `}` follows the `{` (issue 27: the last survivor of its
 * mutation run, beside shell-words-edge-rules.test.ts): bash expands only a closed `{…,…}`, so an
 * unclosed `{` with a comma after it is a plain word, read as it is.
 */

test('a { that no } closes never expands: x{a,bc and {1..3 are plain words', () => {
  for (const word of ['x{a,bc', '{1..3', '{a,b,', 'x}{a,b']) {
    const result = splitSimpleCommands(`echo ${word}`);
    assert.deepEqual(
      result.ok ? result.commands.map((words) => words.map((each) => each.text)) : result.reason,
      [['echo', word]],
      word,
    );
  }
});
