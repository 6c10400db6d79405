import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArguments, type OptionSpec } from '../../src/workflows/tools/option-parser';

/**
 * The option parser at an edge the first mutation run found untested (issue 27), beside
 * option-parser-rules.test.ts: -NUM is a number only as the whole word.
 */

const head: OptionSpec = { flags: 'q', numberOption: true };
const words = (...texts: string[]) => texts.map((text) => ({ text, active: text }));

test('-NUM must be the whole word: digits after other letters are not a line count', () => {
  assert.deepEqual(parseArguments('head', words('-q-20'), head), {
    ok: false,
    reason: 'head -- is not a known read-only option',
  });
  assert.deepEqual(parseArguments('head', words('-20'), head), {
    ok: true,
    options: [{ name: '#', value: '20' }],
    positionals: [],
  });
});
