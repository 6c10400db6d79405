import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShellCommand } from '../../src/workflows/tools/shell-command-classifier';

/**
 * The classifier's verdict and the exact reason the ledger records, one rule per row: a reason
 * that drifts, or a rule that stops firing and leaves another to refuse the command, fails here.
 */
const verdicts: ReadonlyArray<readonly [command: string, readOnly: boolean, reason: string]> = [
  ['ls', true, 'every part is a known read-only command'],
  ['', false, 'the command is empty'],
  ['   ', false, 'the command is empty'],
  ['FOO=1 ls', false, 'a leading variable assignment can change what runs'],
  ['constructor', false, '"constructor" is not a known read-only command'],
  ['__proto__ x', false, '"__proto__" is not a known read-only command'],
  // uniq: its second operand is its output file, and no word may follow the first operand.
  ['uniq -c in.txt', true, 'every part is a known read-only command'],
  ['uniq in.txt out.txt', false, 'uniq writes to its second operand (its output file)'],
  ['uniq in.txt -c', false, 'uniq writes to its second operand (its output file)'],
  // cd: exactly one directory, not "-".
  ['cd src', true, 'every part is a known read-only command'],
  ['cd a b', false, 'cd without a directory (or cd -) leaves the workspace'],
  // find: leading options, starting points, then an expression of known tests and actions.
  ['find -H', true, 'every part is a known read-only command'],
  ['find -H -L . -print', true, 'every part is a known read-only command'],
  ['find src lib -maxdepth 1', true, 'every part is a known read-only command'],
  ['find -P . \\( -name a -o -name b \\)', true, 'every part is a known read-only command'],
  ['find . -empty -print0', true, 'every part is a known read-only command'],
  ['find . -newerBc x', true, 'every part is a known read-only command'],
  ['find . -newermt 2020-01-01', true, 'every part is a known read-only command'],
  ['find . -newerXY x', false, 'find -newerXY is not a known read-only test or action'],
  ['find . -name', false, 'find -name needs a value'],
  ['find * -name x', false, '* may expand to file names that find reads as actions'],
  ['find . -name *.ts', false, '*.ts may expand to file names that find reads as actions'],
];

for (const [command, readOnly, reason] of verdicts) {
  test(`${JSON.stringify(command)} is ${readOnly ? 'read-only' : 'not read-only'}: "${reason}"`, () => {
    assert.deepEqual(classifyShellCommand(command), { readOnly, reason });
  });
}
