import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HypothesisVerdict,
  compareHypothesis,
  hypothesisMismatchPrompt,
  type HypothesisComparison,
} from '../../src/workflows/principles/hypothesis';
import { toolOutcomeSchema, type ToolOutcome } from '../../src/workflows/tools/tool-outcome';

// The comparator's rules stated with their exact verdicts and reasons (issue 27): the reason is
// what the model and the ledger read, so each rule's words are part of it.

type OutcomeInput = Partial<Omit<ToolOutcome, 'facts'>> & { facts?: ToolOutcome['facts'] };

const { Match, Mismatch, Inconclusive } = HypothesisVerdict;

function compare(hypothesis: string | undefined, input: OutcomeInput): HypothesisComparison {
  return compareHypothesis({
    hypothesis,
    outcome: toolOutcomeSchema.parse({ ok: true, content: 'some text', ...input }),
  });
}

test('no hypothesis, or only blanks, is inconclusive: "no hypothesis was stated"', () => {
  for (const hypothesis of [undefined, '', ' \n\t ']) {
    assert.deepEqual(compare(hypothesis, { ok: false, facts: { exitCode: 1 } }), {
      verdict: Inconclusive,
      reason: 'no hypothesis was stated',
    });
  }
});

test('a hypothesis the result cannot judge says so in its reason', () => {
  assert.deepEqual(compare('The handler lives in the session module', { ok: true }), {
    verdict: Inconclusive,
    reason: 'the hypothesis states nothing the result can clearly confirm or refute',
  });
});

test('success confirmed reads "the call succeeded"; a failure expected and seen reads "the call failed as expected"', () => {
  assert.deepEqual(compare('It should succeed', { ok: true }), {
    verdict: Match,
    reason: 'the call succeeded',
  });
  assert.deepEqual(compare('It should fail', { ok: false }), {
    verdict: Match,
    reason: 'the call failed as expected',
  });
  // A non-zero exit code is a failure even when the tool reports ok.
  assert.deepEqual(compare('It should fail', { ok: true, facts: { exitCode: 3 } }), {
    verdict: Match,
    reason: 'the call failed as expected',
  });
  assert.deepEqual(compare('It should succeed', { ok: true, facts: { exitCode: 3 } }), {
    verdict: Mismatch,
    reason: 'expected success, but the call failed (exit code 3)',
  });
});

test('a failed call names its exit code only when it has a non-zero one', () => {
  assert.deepEqual(compare('It should succeed', { ok: false }), {
    verdict: Mismatch,
    reason: 'expected success, but the call failed',
  });
  assert.deepEqual(compare('It should succeed', { ok: false, facts: { exitCode: 0 } }), {
    verdict: Mismatch,
    reason: 'expected success, but the call failed',
  });
});

test('an exit code expected and seen reads "exit code N"; without a reported code, it judges success', () => {
  assert.deepEqual(compare('I expect exit code 2', { ok: false, facts: { exitCode: 2 } }), {
    verdict: Match,
    reason: 'exit code 2',
  });
  // No exit code reported: "exit code 0" still claims success.
  assert.deepEqual(compare('I expect exit code 0', { ok: false }), {
    verdict: Mismatch,
    reason: 'expected success, but the call failed',
  });
  assert.deepEqual(compare('I expect exit code 2', { ok: true }), {
    verdict: Mismatch,
    reason: 'expected a failure, but the call succeeded',
  });
});

test('matches confirmed read "N matches"; none expected and none found reads "0 matches"', () => {
  assert.deepEqual(compare('I expect to find the handler', { facts: { matchCount: 4 } }), {
    verdict: Match,
    reason: '4 matches',
  });
  assert.deepEqual(compare('I expect no matches', { facts: { matchCount: 0 } }), {
    verdict: Match,
    reason: '0 matches',
  });
  // No match count reported and some output: neither confirmed nor refuted.
  assert.deepEqual(compare('I expect no matches', { content: 'a line' }), {
    verdict: Inconclusive,
    reason: 'the hypothesis states nothing the result can clearly confirm or refute',
  });
});

test('no matches expected: 1 match reads "was 1 match", 2 read "were 2 matches"', () => {
  assert.deepEqual(compare('I expect no matches', { facts: { matchCount: 1 } }), {
    verdict: Mismatch,
    reason: 'expected no matches, but there was 1 match',
  });
  assert.deepEqual(compare('I expect no matches', { facts: { matchCount: 2 } }), {
    verdict: Mismatch,
    reason: 'expected no matches, but there were 2 matches',
  });
});

test('output expected: some reads "there was output"; 0 matches reads "nothing was found (0 matches)"', () => {
  assert.deepEqual(compare('I expect to see the list of handlers', { facts: { emptyOutput: false } }), {
    verdict: Match,
    reason: 'there was output',
  });
  assert.deepEqual(compare('It should print the handlers', { content: 'header', facts: { matchCount: 0 } }), {
    verdict: Mismatch,
    reason: 'expected output, but nothing was found (0 matches)',
  });
  // Output not reported as empty or not, and some content: neither confirmed nor refuted.
  assert.deepEqual(compare('I expect to see the list of handlers', { content: 'x' }), {
    verdict: Inconclusive,
    reason: 'the hypothesis states nothing the result can clearly confirm or refute',
  });
  // Content that is only blanks is empty output, even when the tool does not say so.
  assert.deepEqual(compare('I expect to see the list of handlers', { content: ' \n ' }), {
    verdict: Mismatch,
    reason: 'expected output, but the output was empty',
  });
});

test('empty output expected: empty reads "the output was empty"; a search with 0 matches counts as empty', () => {
  assert.deepEqual(compare('I expect no output', { content: '', facts: { emptyOutput: true } }), {
    verdict: Match,
    reason: 'the output was empty',
  });
  // A search's header line is not output: 0 matches is "nothing".
  assert.deepEqual(
    compare('It should print nothing', { content: 'No lines match', facts: { matchCount: 0 } }),
    {
      verdict: Match,
      reason: 'the output was empty',
    },
  );
  assert.deepEqual(compare('It should print nothing', { content: '', facts: { matchCount: 2 } }), {
    verdict: Mismatch,
    reason: 'expected empty output, but there was output',
  });
  assert.deepEqual(compare('It should print nothing', { facts: { emptyOutput: false } }), {
    verdict: Mismatch,
    reason: 'expected empty output, but there was output',
  });
  // Nothing reported about the output and some text: no verdict.
  assert.deepEqual(compare('It should print nothing', { content: 'x' }), {
    verdict: Inconclusive,
    reason: 'the hypothesis states nothing the result can clearly confirm or refute',
  });
});

test('a quote found reads "\\"x\\" appears", found whatever its case', () => {
  assert.deepEqual(compare('I expect to see `Retry_Limit`', { content: 'retry_limit = 5' }), {
    verdict: Match,
    reason: '"Retry_Limit" appears',
  });
});

test('every mismatch is named, joined by "; ", and a mismatch outweighs a confirmation', () => {
  assert.deepEqual(
    compare('I expect the tests to pass and the output to contain "ok"', {
      ok: false,
      content: 'FAILED',
      facts: { exitCode: 1 },
    }),
    {
      verdict: Mismatch,
      reason:
        'expected success, but the call failed (exit code 1); expected "ok" in the result, but it does not appear',
    },
  );
  assert.deepEqual(
    compare('I expect the tests to pass and the output to contain "ok"', {
      ok: true,
      content: 'FAILED',
      facts: { exitCode: 0 },
    }),
    { verdict: Mismatch, reason: 'expected "ok" in the result, but it does not appear' },
  );
});

test('confirmations are all named, joined by "; "', () => {
  assert.deepEqual(
    compare('I expect the tests to pass and the output to contain "ok"', {
      ok: true,
      content: 'all ok',
      facts: { exitCode: 0 },
    }),
    { verdict: Match, reason: 'the call succeeded; "ok" appears' },
  );
});

test('the mismatch prompt, line by line: marker, call, expectation (cut at 300 characters), what happened, the question', () => {
  const prompt = hypothesisMismatchPrompt({
    toolSummary: 'read_file: a.ts',
    hypothesis: 'I expect to see `main`',
    reason: 'expected "main" in the result, but it does not appear',
  });
  assert.deepEqual(prompt.split('\n'), [
    '[Hypothesis check] The result of read_file: a.ts did not match what you expected.',
    'You expected: I expect to see `main`',
    'What happened: expected "main" in the result, but it does not appear',
    'Before the next step, say in one or two sentences which assumption this disproves and how it changes your plan. Revise the assumption rather than retrying with different arguments.',
  ]);
  const long = hypothesisMismatchPrompt({ toolSummary: 'x', hypothesis: 'h'.repeat(301), reason: 'r' });
  assert.equal(long.split('\n')[1], `You expected: ${'h'.repeat(297)}...`);
  const exact = hypothesisMismatchPrompt({ toolSummary: 'x', hypothesis: 'h'.repeat(300), reason: 'r' });
  assert.equal(exact.split('\n')[1], `You expected: ${'h'.repeat(300)}`);
});

const undecided = {
  verdict: Inconclusive,
  reason: 'the hypothesis states nothing the result can clearly confirm or refute',
};

test('a single quote after a letter is an apostrophe, not the start of a quoted string', () => {
  const hypothesis = "I expect the file's header shows 'main'";
  assert.deepEqual(compare(hypothesis, { content: 'main()' }), { verdict: Match, reason: '"main" appears' });
  assert.deepEqual(compare(hypothesis, { content: 'other' }), {
    verdict: Mismatch,
    reason: 'expected "main" in the result, but it does not appear',
  });
  // After an opening parenthesis, and before a closing one or a full stop, it is a quote.
  assert.deepEqual(compare("I expect a line (it prints 'main').", { content: 'other' }), {
    verdict: Mismatch,
    reason: 'expected "main" in the result, but it does not appear',
  });
});

test('a full stop inside a name (config.json) does not end the clause or its negation', () => {
  assert.deepEqual(compare("I don't expect config.json to contain 'debug'", { content: 'other' }), undecided);
});

test('exit codes however they are put: "exits with 3", "return code 1", "status code 0", "exit code: 2", "to be 4", 127', () => {
  assert.deepEqual(compare('I expect it exits with 3', { ok: false, facts: { exitCode: 3 } }), {
    verdict: Match,
    reason: 'exit code 3',
  });
  assert.deepEqual(compare('I expect return code 1', { ok: false, facts: { exitCode: 2 } }), {
    verdict: Mismatch,
    reason: 'expected exit code 1, but got exit code 2',
  });
  assert.deepEqual(compare('I expect status code 0', { ok: true, facts: { exitCode: 0 } }), {
    verdict: Match,
    reason: 'exit code 0',
  });
  assert.deepEqual(compare('I expect exit code: 2', { ok: false, facts: { exitCode: 2 } }), {
    verdict: Match,
    reason: 'exit code 2',
  });
  assert.deepEqual(compare('I expect the exit code to be 4', { ok: false, facts: { exitCode: 4 } }), {
    verdict: Match,
    reason: 'exit code 4',
  });
  assert.deepEqual(compare('I expect exit code 127', { ok: false, facts: { exitCode: 12 } }), {
    verdict: Mismatch,
    reason: 'expected exit code 127, but got exit code 12',
  });
});

test('"the exit status is nonzero" expects a failure', () => {
  assert.deepEqual(compare('I expect the exit status is nonzero', { ok: true, facts: { exitCode: 0 } }), {
    verdict: Mismatch,
    reason: 'expected a failure, but the call succeeded',
  });
});

test('a negation more than 4 words before a success word does not negate it', () => {
  const hypothesis = 'No change to the config is needed and the tests should pass';
  assert.deepEqual(compare(hypothesis, { ok: false, facts: { exitCode: 1 } }), {
    verdict: Mismatch,
    reason: 'expected success, but the call failed (exit code 1)',
  });
  assert.deepEqual(compare(hypothesis, { ok: true, facts: { exitCode: 0 } }), {
    verdict: Match,
    reason: 'the call succeeded',
  });
});

test('"silently", "return nothing" and "not print anything" expect empty output', () => {
  for (const hypothesis of [
    'It should run silently',
    'It should return nothing here',
    'It should not print anything',
  ]) {
    assert.deepEqual(
      compare(hypothesis, { facts: { emptyOutput: false } }),
      { verdict: Mismatch, reason: 'expected empty output, but there was output' },
      hypothesis,
    );
  }
});

test('"nothing" that is neither last nor after a verb like "return", and "not print the secret", claim no emptiness', () => {
  assert.deepEqual(
    compare('Nothing has changed since the last run', { facts: { emptyOutput: false } }),
    undecided,
  );
  assert.deepEqual(compare('It should not print the secret', { facts: { emptyOutput: false } }), undecided);
});

test('"see an empty list": the explicit "empty" outweighs the output that "see" implies', () => {
  assert.deepEqual(compare('I expect to see an empty list', { content: '', facts: { emptyOutput: true } }), {
    verdict: Match,
    reason: 'the output was empty',
  });
});

test('a quote followed by "shows up" or "is printed" is expected in the result', () => {
  for (const hypothesis of ['`retry_limit` shows up', '`retry_limit` is printed']) {
    assert.deepEqual(
      compare(hypothesis, { content: 'x' }),
      { verdict: Mismatch, reason: 'expected "retry_limit" in the result, but it does not appear' },
      hypothesis,
    );
  }
});
