import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShellCommand } from '../../src/workflows/tools/shell-command-classifier';

/**
 * The classifier's rule for a leading `NAME=value` (issue 27: the last survivor of its mutation
 * run, beside shell-command-classifier-edge-rules.test.ts): only a word that starts with a shell
 * variable's name and `=` is an assignment; a program path that merely holds `NAME=` is a program,
 * refused as one that is not known to be read-only.
 */

test('a leading NAME=value is an assignment that can change what runs', () => {
  assert.deepEqual(classifyShellCommand('PAGER=rm git log'), {
    readOnly: false,
    reason: 'a leading variable assignment can change what runs',
  });
});

test('a command name that merely holds NAME= (./a=b, 1A=b) is a program, not an assignment', () => {
  for (const name of ['./a=b', '1A=b', '-x=y']) {
    assert.deepEqual(
      classifyShellCommand(`${name} file`),
      {
        readOnly: false,
        reason: `"${name}" is not a known read-only command`,
      },
      name,
    );
  }
});
