import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main';
import { MIN_THINKING_TOKENS, modelInput } from '../../src/cli/model-flags';
import { CliError } from '../../src/cli/cli-error';

/** Issue 46: `--thinking 10` answered with the input's path; it names the flag, in one line. */

test('--thinking below the least budget names the flag and the rule', () => {
  assert.throws(
    () => modelInput({ cache: true, thinking: 10 }),
    (error: unknown) =>
      error instanceof CliError &&
      error.exitCode === 2 &&
      error.message === `--thinking must be at least ${MIN_THINKING_TOKENS} tokens, got 10`,
  );
  assert.deepEqual(modelInput({ cache: true, thinking: 1024 }).model?.thinking, { budgetTokens: 1024 });
});

test('--thinking at or above --answer-tokens names both flags', () => {
  assert.throws(
    () => modelInput({ cache: true, thinking: 8000, answerTokens: 4000 }),
    /^CliError: --thinking \(8000\) must be below --answer-tokens \(4000\)/,
  );
});

test('keel run --thinking 10: one line naming the flag, exit 2, before any server is asked', async () => {
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string) => written.push(String(chunk)) > 0;
  try {
    const code = await main([
      '--address',
      '127.0.0.1:1',
      'run',
      'a goal',
      '--workspace',
      '.',
      '--thinking',
      '10',
    ]);
    assert.equal(code, 2);
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(written, ['keel: --thinking must be at least 1024 tokens, got 10\n']);
});
