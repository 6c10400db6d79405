import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HYPOTHESIS_MISMATCH_MARKER,
  HypothesisVerdict,
  compareHypothesis,
  hypothesisMismatchPrompt,
} from '../../src/workflows/principles/hypothesis';
import { toolOutcomeSchema, type ToolOutcome } from '../../src/workflows/tools/tool-outcome';

type OutcomeInput = Partial<Omit<ToolOutcome, 'facts'>> & { facts?: ToolOutcome['facts'] };

function outcome(input: OutcomeInput): ToolOutcome {
  return toolOutcomeSchema.parse({ ok: true, content: 'some text', ...input });
}

function verdictOf(hypothesis: string | undefined, input: OutcomeInput): HypothesisVerdict {
  return compareHypothesis({ hypothesis, outcome: outcome(input) }).verdict;
}

const { Match, Mismatch, Inconclusive } = HypothesisVerdict;

test('expected output but got empty output is a mismatch', () => {
  const result = compareHypothesis({
    hypothesis: 'I expect to see the list of handlers',
    outcome: outcome({ content: '', facts: { emptyOutput: true } }),
  });
  assert.equal(result.verdict, Mismatch);
  assert.match(result.reason, /expected output, but the output was empty/);
  assert.equal(verdictOf('I expect to see the list of handlers', { facts: { emptyOutput: false } }), Match);
});

test('expected success but got a non-zero exit or a failure is a mismatch', () => {
  const failedRun = { ok: false, content: 'boom', facts: { exitCode: 1 } };
  const result = compareHypothesis({ hypothesis: 'I expect the tests to pass', outcome: outcome(failedRun) });
  assert.equal(result.verdict, Mismatch);
  assert.match(result.reason, /expected success, but the call failed \(exit code 1\)/);
  assert.equal(verdictOf('This should succeed', { ok: false }), Mismatch);
  assert.equal(verdictOf('I expect it to exit 0', { ok: true, facts: { exitCode: 3 } }), Mismatch);
  assert.equal(verdictOf('I expect no errors', { ok: false, facts: { exitCode: 2 } }), Mismatch);
  assert.equal(verdictOf('I expect the tests to pass', { ok: true, facts: { exitCode: 0 } }), Match);
  assert.equal(verdictOf('I expect no errors', { ok: true, facts: { exitCode: 0 } }), Match);
});

test('expected a specific exit code but got another is a mismatch', () => {
  const result = compareHypothesis({
    hypothesis: 'I expect exit code 2 since the argument is missing',
    outcome: outcome({ ok: false, facts: { exitCode: 1 } }),
  });
  assert.equal(result.verdict, Mismatch);
  assert.match(result.reason, /expected exit code 2, but got exit code 1/);
  assert.equal(verdictOf('I expect exit status 2', { ok: false, facts: { exitCode: 2 } }), Match);
});

test('expected a match but found none is a mismatch', () => {
  for (const hypothesis of [
    'I expect to find the handler registration',
    'I expect a match in the router module',
    'I expect the config contains a timeout setting',
  ]) {
    assert.equal(verdictOf(hypothesis, { facts: { matchCount: 0 } }), Mismatch, hypothesis);
    assert.equal(verdictOf(hypothesis, { facts: { matchCount: 4 } }), Match, hypothesis);
  }
  const result = compareHypothesis({
    hypothesis: 'I expect to find the handler registration',
    outcome: outcome({ facts: { matchCount: 0 } }),
  });
  assert.match(result.reason, /expected a match, but there were 0 matches/);
});

test('expected a failure but it succeeded is a mismatch', () => {
  for (const hypothesis of [
    'I expect this to fail because the folder is missing',
    'I expect an error',
    'I expect a non-zero exit',
  ]) {
    const result = compareHypothesis({ hypothesis, outcome: outcome({ ok: true, facts: { exitCode: 0 } }) });
    assert.equal(result.verdict, Mismatch, hypothesis);
    assert.match(result.reason, /expected a failure, but the call succeeded/);
    assert.equal(verdictOf(hypothesis, { ok: false, facts: { exitCode: 1 } }), Match, hypothesis);
  }
});

test('expected no matches or empty output but got some is a mismatch', () => {
  const result = compareHypothesis({
    hypothesis: 'I expect no matches',
    outcome: outcome({ facts: { matchCount: 3 } }),
  });
  assert.equal(result.verdict, Mismatch);
  assert.match(result.reason, /expected no matches, but there were 3 matches/);
  assert.equal(verdictOf('I expect no matches', { facts: { matchCount: 0 } }), Match);
  assert.equal(verdictOf('I expect to find no callers', { facts: { matchCount: 1 } }), Mismatch);
  assert.equal(verdictOf('I expect to find nothing', { facts: { matchCount: 2 } }), Mismatch);
  assert.equal(verdictOf('I expect the output to be empty', { facts: { emptyOutput: false } }), Mismatch);
  assert.equal(
    verdictOf('I expect the output to be empty', { content: '', facts: { emptyOutput: true } }),
    Match,
  );
  assert.equal(verdictOf('It should print nothing', { facts: { emptyOutput: false } }), Mismatch);
});

test('"not empty" and "non-empty" expect output', () => {
  assert.equal(
    verdictOf('The list should not be empty', { content: '', facts: { emptyOutput: true } }),
    Mismatch,
  );
  assert.equal(
    verdictOf('I expect a non-empty list', { content: '', facts: { emptyOutput: true } }),
    Mismatch,
  );
  assert.equal(verdictOf('I expect a non-empty list', { facts: { emptyOutput: false } }), Match);
});

test('a quoted string that should appear but does not is a mismatch', () => {
  for (const hypothesis of [
    'I expect the output to contain "retry_limit"',
    'I expect to see `retry_limit`',
    "It should print 'retry_limit'",
    'I expect “retry_limit” in the output',
    '`retry_limit` appears',
  ]) {
    const result = compareHypothesis({ hypothesis, outcome: outcome({ content: 'timeout = 30' }) });
    assert.equal(result.verdict, Mismatch, hypothesis);
    assert.match(result.reason, /expected "retry_limit" in the result, but it does not appear/);
    assert.equal(verdictOf(hypothesis, { content: 'RETRY_LIMIT = 5' }), Match, hypothesis);
  }
});

test('a quote in a truncated result that lacks it is inconclusive, not a mismatch (the cut part may hold it)', () => {
  const verdict = verdictOf('I expect to see `retry_limit`', {
    content: 'timeout = 30',
    facts: { truncated: true },
  });
  assert.equal(verdict, Inconclusive);
  assert.equal(verdictOf('I expect to see `retry_limit`', { content: 'timeout = 30' }), Mismatch);
});

test('a failure with a quoted message checks the message', () => {
  const hypothesis = "I expect it to fail with 'permission denied'";
  assert.equal(verdictOf(hypothesis, { ok: false, content: 'open: permission denied' }), Match);
  assert.equal(verdictOf(hypothesis, { ok: false, content: 'no such thing' }), Mismatch);
});

test('quotes that name the call rather than expected content are not checked', () => {
  // The quoted text is the command, not something the output should contain.
  assert.equal(
    verdictOf('Running `make test` should pass', { content: 'all good', facts: { exitCode: 0 } }),
    Match,
  );
  // A negated quote says the string should be absent: never guessed as a mismatch.
  assert.equal(
    verdictOf("I don't expect to see `legacy_mode`", { content: 'legacy_mode = on' }),
    Inconclusive,
  );
  // A quoted exit code is not a string to find in the output.
  assert.equal(
    verdictOf('I expect exit code `0`', { content: 'done', facts: { exitCode: 0 } }),
    Inconclusive,
  );
});

test('unclear hypotheses are inconclusive, never a guessed mismatch', () => {
  const outcomes: OutcomeInput[] = [
    { ok: true, content: 'x', facts: { exitCode: 0, emptyOutput: false, matchCount: 2 } },
    { ok: false, content: '', facts: { exitCode: 1, emptyOutput: true, matchCount: 0 } },
  ];
  for (const hypothesis of [
    undefined,
    '',
    '   ',
    'The handler is defined in the session module, not the daemon',
    'It may succeed or fail, I am not sure',
    '我期望看到会话持久化的代码',
  ]) {
    for (const input of outcomes) {
      assert.equal(verdictOf(hypothesis, input), Inconclusive, `${hypothesis} vs ${JSON.stringify(input)}`);
    }
  }
});

test('missing facts leave the matching question open', () => {
  // Expects a match, but the tool reported no match count and some output: nothing to refute.
  assert.equal(verdictOf('I expect to find the definition', { content: 'line one\nline two' }), Inconclusive);
  // Expects no matches "in the output": the mention of output is not a claim that output exists,
  // and without a match count there is nothing to confirm either.
  assert.equal(
    verdictOf('I expect no matches in the output', { content: '', facts: { emptyOutput: true } }),
    Inconclusive,
  );
});

test('words about content do not turn into claims about the call failing', () => {
  // "see the error message" expects content; the call itself may well succeed.
  const input = { ok: true, content: 'missing key: port', facts: { exitCode: 0, emptyOutput: false } };
  const result = compareHypothesis({
    hypothesis: 'I expect to see the error message for the missing key',
    outcome: outcome(input),
  });
  assert.deepEqual(result, { verdict: Match, reason: 'there was output' });
});

test('clauses are read separately', () => {
  assert.equal(
    verdictOf("I'm not sure, but I expect an error", { ok: false, facts: { exitCode: 1 } }),
    Match,
  );
  assert.equal(
    verdictOf("I'm not sure, but I expect an error", { ok: true, facts: { exitCode: 0 } }),
    Mismatch,
  );
});

test('the mismatch prompt quotes the call, the hypothesis and the reason, neutrally', () => {
  const prompt = hypothesisMismatchPrompt({
    toolSummary: 'search_text: handler',
    hypothesis: 'I expect to find the handler registration',
    reason: 'expected a match, but there were 0 matches',
  });
  assert.ok(prompt.startsWith(HYPOTHESIS_MISMATCH_MARKER));
  assert.match(prompt, /search_text: handler/);
  assert.match(prompt, /I expect to find the handler registration/);
  assert.match(prompt, /there were 0 matches/);
  assert.match(prompt, /assumption/);
  assert.ok(prompt.split('\n').length <= 5, 'short');
  const template = hypothesisMismatchPrompt({ toolSummary: 'the call', hypothesis: 'h', reason: 'r' });
  assert.doesNotMatch(template, /error|blocked/i);
  const words = new Set(template.toLowerCase().split(/[^a-z0-9_]+/));
  for (const word of ['cargo', 'npm', 'grep', 'git', 'python', 'rust', 'bash', 'shell', 'sed']) {
    assert.ok(!words.has(word), word);
  }
});

test('the mismatch prompt cuts a very long hypothesis', () => {
  const prompt = hypothesisMismatchPrompt({ toolSummary: 'x', hypothesis: 'h'.repeat(400), reason: 'r' });
  assert.ok(prompt.includes(`${'h'.repeat(297)}...`));
  assert.ok(!prompt.includes('h'.repeat(298)));
});

test('conditional or hedged clauses state no expectation', () => {
  for (const hypothesis of [
    'If this fails then the path is wrong',
    'It might pass',
    'I expect exit code 0 or 1',
  ]) {
    assert.equal(verdictOf(hypothesis, { ok: true, facts: { exitCode: 0 } }), Inconclusive, hypothesis);
    assert.equal(verdictOf(hypothesis, { ok: false, facts: { exitCode: 1 } }), Inconclusive, hypothesis);
  }
});

test('a failure expected to go away is an expectation of success', () => {
  const hypothesis = 'I expect the failure to go away after the change';
  assert.equal(verdictOf(hypothesis, { ok: false, facts: { exitCode: 1 } }), Mismatch);
  assert.equal(verdictOf(hypothesis, { ok: true, facts: { exitCode: 0 } }), Match);
});

test('"no output on <something>" qualifies which output and is not an emptiness claim', () => {
  const hypothesis = 'I expect the tests to pass and no output on the second channel';
  assert.equal(verdictOf(hypothesis, { ok: true, content: 'ok: 12 passed', facts: { exitCode: 0 } }), Match);
  // Whereas a bare "no output" is.
  assert.equal(verdictOf('I expect no output', { facts: { emptyOutput: false } }), Mismatch);
});

test('curly apostrophes negate like straight ones', () => {
  assert.equal(verdictOf('It won’t find anything', { facts: { matchCount: 2 } }), Mismatch);
  assert.equal(verdictOf('It won’t find anything', { facts: { matchCount: 0 } }), Match);
});

test('however an expectation of matches is phrased, 0 matches is a mismatch and some are a match', () => {
  const searchFound = (matchCount: number) => ({
    ok: matchCount > 0,
    content:
      matchCount > 0 ? `${matchCount} matching lines in 1 files` : 'No lines match /TODO/ in notes.md.',
    facts: { matchCount, emptyOutput: matchCount === 0 },
  });
  for (const hypothesis of [
    'I expect to see several matches of X in notes.md',
    'I expect to see several matching lines',
    'I expect to see several matches of TODO or FIXME in notes.md',
    'I expect to see several matches of no-op in notes.md',
    'I expect several results for TODO',
    'I expect a couple of hits for TODO in notes.md',
    'There should be a few occurrences of TODO',
    'I expect TODO to occur several times in notes.md',
    'I expect TODO to appear several times',
    'notes.md should mention TODO a few times',
    'Several TODO entries should turn up',
    'I expect at least one instance of TODO',
    'I expect 3 matches',
  ]) {
    assert.equal(verdictOf(hypothesis, searchFound(0)), Mismatch, hypothesis);
    assert.equal(verdictOf(hypothesis, searchFound(3)), Match, hypothesis);
  }
});

test('alternatives still expect a match, but say nothing about exit codes or success', () => {
  assert.equal(verdictOf('I expect matches of TODO or FIXME', { facts: { matchCount: 0 } }), Mismatch);
  assert.equal(verdictOf('I expect no matches of TODO or FIXME', { facts: { matchCount: 0 } }), Inconclusive);
  assert.equal(verdictOf('It either passes or fails', { ok: true, facts: { exitCode: 0 } }), Inconclusive);
});

test('expecting to find something when the output is empty (no match count reported) is a mismatch', () => {
  for (const input of [{ content: '' }, { content: '  \n', facts: { emptyOutput: true } }]) {
    const result = compareHypothesis({
      hypothesis: 'I expect to find the definition',
      outcome: outcome(input),
    });
    assert.deepEqual(
      result,
      { verdict: Mismatch, reason: 'expected to find something, but the output was empty' },
      JSON.stringify(input),
    );
  }
});

test('clues that conflict are dropped: "succeed" and "fail", or exit codes 0 and 2, together are inconclusive whatever happened', () => {
  for (const input of [
    { ok: true, facts: { exitCode: 0 } },
    { ok: false, facts: { exitCode: 1 } },
  ]) {
    assert.equal(verdictOf('It should succeed. It should fail.', input), Inconclusive, JSON.stringify(input));
  }
  for (const exitCode of [0, 2]) {
    assert.equal(
      verdictOf('I expect exit code 0. I expect exit code 2.', { facts: { exitCode } }),
      Inconclusive,
      `exit code ${exitCode}`,
    );
  }
});
