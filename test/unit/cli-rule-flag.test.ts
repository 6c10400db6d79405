import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleFlag } from '../../src/cli/rule-flag';
import { rulesInput, type RunOptions } from '../../src/cli/run-options';

/**
 * Issue 46: a rule flag was taken even when it could match no call. A rule names one tool
 * exactly, or `*`; a glob or a path before the colon names no tool, since tool names are
 * [a-zA-Z0-9_-] only.
 */

test('a rule whose tool part no tool can be named is refused in one line naming the flag and the rule', () => {
  for (const text of ['github__*', 'src/**', 'package.json', 'read*: x']) {
    assert.throws(
      () => ruleFlag(text, '--allow'),
      (error: Error) =>
        error.name === 'CliError' &&
        error.message.startsWith(`--allow "${text}" can match no call: no tool is named `) &&
        !error.message.includes('\n'),
      text,
    );
  }
});

test('rules that can match a call are taken as before', () => {
  assert.deepEqual(ruleFlag('run_command: npm test*', '--allow'), {
    tool: 'run_command',
    pattern: 'npm test*',
    irreversible: false,
  });
  assert.equal(ruleFlag('*: rm *', '--forbid').tool, '*');
  assert.equal(ruleFlag('github__create_issue', '--allow').pattern, '*');
  assert.throws(() => ruleFlag(':x', '--allow'), /^CliError: --allow: ":x" is not a rule/);
});

test('keel run --allow-irreversible / --forbid check their rules the same way', () => {
  const options = { allow: [], allowIrreversible: [], forbid: [] } as unknown as RunOptions;
  assert.throws(
    () => rulesInput({ ...options, forbid: ['src/**'] }),
    /^CliError: --forbid "src\/\*\*" can match no call/,
  );
  assert.throws(
    () => rulesInput({ ...options, allowIrreversible: ['deploy*'] }),
    /^CliError: --allow-irreversible "deploy\*" can match no call/,
  );
});
