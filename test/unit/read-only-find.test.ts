import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShellCommand } from '../../src/workflows/tools/shell-command-classifier';

/**
 * find's allowlist, entry by entry: each test or action that only reads or prints is read-only,
 * with the value it takes. An entry dropped from the list would make a harmless find run on a
 * copy-on-write layer (and its label say it writes); one added is caught by the refusals in
 * tools-classifier.test.ts.
 */
const withoutValue = [
  '-print',
  '-print0',
  '-ls',
  '-prune',
  '-quit',
  '-true',
  '-false',
  '-empty',
  '-nouser',
  '-nogroup',
  '-readable',
  '-writable',
  '-executable',
  '-depth',
  '-mount',
  '-xdev',
  '-noleaf',
  '-daystart',
  '-follow',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
  '-warn',
  '-nowarn',
  '-not',
  '-a',
  '-and',
  '-o',
  '-or',
];
const withValue = [
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-regextype',
  '-type',
  '-xtype',
  '-size',
  '-newer',
  '-anewer',
  '-cnewer',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-used',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-perm',
  '-links',
  '-inum',
  '-samefile',
  '-lname',
  '-ilname',
  '-maxdepth',
  '-mindepth',
  '-fstype',
  '-printf',
  '-context',
];

const readOnly = (command: string) =>
  assert.deepEqual(
    classifyShellCommand(command),
    {
      readOnly: true,
      reason: 'every part is a known read-only command',
    },
    command,
  );

test(`find's ${withoutValue.length} read-only tests, actions and operators without a value are read-only, each one`, () => {
  for (const primary of withoutValue) readOnly(`find . -name a ${primary} -print`);
});

test(`find's ${withValue.length} read-only tests that take a value are read-only with it, each one`, () => {
  for (const primary of withValue) readOnly(`find . ${primary} x`);
});

test("find's grouping and negation operators, ( ) ! and the comma, are read-only", () => {
  readOnly('find . \\( -name a -o -name b \\) \\! -name c , -print');
});

test("find's leading options -H, -L and -P come before the starting points and are read-only", () => {
  for (const option of ['-H', '-L', '-P']) readOnly(`find ${option} src -name x`);
  readOnly('find -H -L -P src lib -name x');
});
