import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShellCommand } from '../../src/workflows/tools/shell-command-classifier';

/**
 * The classifier at an edge the mutation run found untested (issue 27), beside
 * tools-classifier.test.ts: the file after `<` is the shell's, not the command's.
 */

test('the file after < is not the command: a redirection may come first, and the program after it decides', () => {
  assert.equal(classifyShellCommand('< names.txt sort').readOnly, true);
  assert.deepEqual(classifyShellCommand('< names.txt rm -f x'), {
    readOnly: false,
    reason: '"rm" is not a known read-only command',
  });
});
