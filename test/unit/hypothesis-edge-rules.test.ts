import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HypothesisVerdict,
  compareHypothesis,
  type HypothesisComparison,
} from '../../src/workflows/principles/hypothesis';
import { toolOutcomeSchema, type ToolOutcome } from '../../src/workflows/tools/tool-outcome';

/**
 * The hypothesis comparator's reading at its edges (issue 27: mutation testing): the first
 * mutation run's survivors, each pinned as the rule it breaks. hypothesis-rules.test.ts states the
 * verdicts and their words; these pin how a hypothesis is read: which quotes are expected, how an
 * exit phrase may be spaced, how far a negation reaches, and which words claim empty output.
 */

type OutcomeInput = Partial<Omit<ToolOutcome, 'facts'>> & { facts?: ToolOutcome['facts'] };

const { Match, Mismatch, Inconclusive } = HypothesisVerdict;

function compare(hypothesis: string, input: OutcomeInput): HypothesisComparison {
  return compareHypothesis({
    hypothesis,
    outcome: toolOutcomeSchema.parse({ ok: true, content: 'some text', ...input }),
  });
}

const undecided = {
  verdict: Inconclusive,
  reason: 'the hypothesis states nothing the result can clearly confirm or refute',
};

const missing = (quote: string): HypothesisComparison => ({
  verdict: Mismatch,
  reason: `expected "${quote}" in the result, but it does not appear`,
});

// Quotes.

test('a single-quoted string is a quote at the very start of the hypothesis and when a blank follows it', () => {
  assert.deepEqual(compare("'main' appears in the log", { content: 'other' }), missing('main'));
  assert.deepEqual(compare("It prints 'main' and more", { content: 'other' }), missing('main'));
});

test('an appear phrase makes a quote expected only within the two words right after it', () => {
  assert.deepEqual(compare('`retry_limit` then also appears', { content: 'other' }), missing('retry_limit'));
  assert.deepEqual(compare('`retry_limit` then also soon appears', { content: 'other' }), undecided);
});

test('the appear phrase after a quote however it is put: "to appear", "to show up", whole words, any blanks, a colon', () => {
  for (const hypothesis of [
    'I expect `retry_limit` to appear',
    'I expect `retry_limit` to show up',
    '`retry_limit` also appears',
    '`retry_limit` also  appears',
    '`retry_limit`: it appears',
  ]) {
    assert.deepEqual(compare(hypothesis, { content: 'other' }), missing('retry_limit'), hypothesis);
  }
});

test('an appear word after a quote is not an appear word before it: "`legacy_mode` is the flag the parser reads" expects nothing', () => {
  assert.deepEqual(compare('`legacy_mode` is the flag the parser reads', { content: 'other' }), undecided);
});

test('every quote counts, the eleventh too', () => {
  const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  const hypothesis = `I expect to see ${[...names, 'kilo'].map((name) => `\`${name}\``).join(' ')}`;
  assert.deepEqual(compare(hypothesis, { content: names.join(' ') }), missing('kilo'));
});

test('the placeholder word a quote becomes ("quoted0"), written plainly, is no quote', () => {
  assert.deepEqual(compare('The variable quoted0 appears in the file', { content: 'other' }), undecided);
});

// Exit codes.

test('an exit code written against its sign: "exit code=2"', () => {
  assert.deepEqual(compare('I expect exit code=2', { ok: false, facts: { exitCode: 2 } }), {
    verdict: Match,
    reason: 'exit code 2',
  });
});

test('the words of an exit phrase may be parted by any run of blanks', () => {
  assert.deepEqual(compare('I expect exit  code 3', { ok: false, facts: { exitCode: 3 } }), {
    verdict: Match,
    reason: 'exit code 3',
  });
  assert.deepEqual(compare('I expect return  code 1', { ok: false, facts: { exitCode: 1 } }), {
    verdict: Match,
    reason: 'exit code 1',
  });
  for (const hypothesis of [
    'I expect a non-zero  exit code',
    'I expect the exit  code is nonzero',
    'I expect the exit code  is nonzero',
    'I expect the exit code is  nonzero',
  ]) {
    assert.deepEqual(
      compare(hypothesis, { ok: true, facts: { exitCode: 0 } }),
      { verdict: Mismatch, reason: 'expected a failure, but the call succeeded' },
      hypothesis,
    );
  }
});

test('a failure is expected from "nonzero exit code", "exit non-zero" and "exit code is nonzero"', () => {
  for (const hypothesis of [
    'I expect a nonzero exit code',
    'It should exit non-zero',
    'I expect the exit code is nonzero',
  ]) {
    assert.deepEqual(
      compare(hypothesis, { ok: true, facts: { exitCode: 0 } }),
      { verdict: Mismatch, reason: 'expected a failure, but the call succeeded' },
      hypothesis,
    );
  }
});

test('the whole exit phrase is taken out before the words are read, so "away" still reaches "errors" across it', () => {
  // "errors … go away" expects success, the exit phrase a failure: the two ways drop the question.
  for (const hypothesis of [
    'Errors with nonzero exit code go away',
    'Errors with nonzero exit  code go away',
  ]) {
    assert.deepEqual(compare(hypothesis, { ok: true }), undecided, hypothesis);
  }
});

test('an exit phrase is replaced by a blank, so apostrophes touching it ("one\'exit 0\'s") do not glue the words around it into one', () => {
  // Glued, "one'" and "'s" would be one word, and "not" would come within four words of "pass".
  assert.deepEqual(compare("Not one'exit 0's run will pass", { ok: false }), {
    verdict: Mismatch,
    reason: 'expected success, but the call failed',
  });
  // The same with a non-zero exit phrase: "pass" and "nonzero exit" point both ways.
  assert.deepEqual(compare("Not one'nonzero exit's run will pass", { ok: true }), undecided);
});

// How far a negation reaches.

test('"no" or "nothing" right after a search verb negates it, also when the verb opens the hypothesis', () => {
  assert.deepEqual(compare('Find nothing in the logs', { content: '', facts: { matchCount: 0 } }), {
    verdict: Match,
    reason: '0 matches; the output was empty',
  });
});

test('a forward negation reaches only the two words after a search verb: a "zero" further on does not negate "find"', () => {
  assert.deepEqual(
    compare('It should find the handler in the module with zero dependencies', { facts: { matchCount: 3 } }),
    {
      verdict: Match,
      reason: '3 matches',
    },
  );
});

test('a removal word negates only the three words before it: "the failure should go away" expects success, "… then go away" a failure', () => {
  assert.deepEqual(compare('The failure should go away', { ok: true }), {
    verdict: Match,
    reason: 'the call succeeded',
  });
  assert.deepEqual(compare('The failure should then go away', { ok: true }), {
    verdict: Mismatch,
    reason: 'expected a failure, but the call succeeded',
  });
});

test('a removal word negates no word more than three before it ("pass once the bug is fixed"), nor any word after it ("the fixed entries")', () => {
  assert.deepEqual(compare('The tests should pass once the bug is fixed', { ok: true }), {
    verdict: Match,
    reason: 'the call succeeded',
  });
  assert.deepEqual(compare('The fixed entries are listed', { facts: { matchCount: 2 } }), {
    verdict: Match,
    reason: '2 matches',
  });
});

test('after a match word, a failure word names content, not the call: "find the failing test" expects matches only', () => {
  assert.deepEqual(compare('It should find the failing test', { ok: true, facts: { matchCount: 2 } }), {
    verdict: Match,
    reason: '2 matches',
  });
});

test('"won\'t find X or Y" expects no match: an alternative negated by a contraction claims nothing', () => {
  assert.deepEqual(
    compare("It won't find TODO or FIXME", { content: '', facts: { matchCount: 0 } }),
    undecided,
  );
});

test('"no-" glued to a word makes one word, not a negation of the word: "a zero-error build" claims nothing', () => {
  assert.deepEqual(compare('It should be a zero-error build', { ok: true }), undecided);
});

// Empty output.

test('"silent" expects empty output', () => {
  assert.deepEqual(compare('It should be silent', { facts: { emptyOutput: false } }), {
    verdict: Mismatch,
    reason: 'expected empty output, but there was output',
  });
});

test('"no output" followed by a qualifier ("on stderr") claims no emptiness; followed by another word ("at all") it does', () => {
  assert.deepEqual(
    compare('There should be no output on stderr', { facts: { emptyOutput: false } }),
    undecided,
  );
  assert.deepEqual(compare('There should be no output at all', { facts: { emptyOutput: false } }), {
    verdict: Mismatch,
    reason: 'expected empty output, but there was output',
  });
});

test('"not print any warnings" expects empty output, as "not print anything" does', () => {
  assert.deepEqual(compare('It should not print any warnings', { facts: { emptyOutput: false } }), {
    verdict: Mismatch,
    reason: 'expected empty output, but there was output',
  });
});

test('no matches expected drops only the output that was merely implied: "the output shows no matches" is judged on matches alone', () => {
  assert.deepEqual(
    compare('I expect the output to show no matches', { content: 'header', facts: { matchCount: 0 } }),
    {
      verdict: Match,
      reason: '0 matches',
    },
  );
});

test('matches expected keep the output expected with them: "see matches" confirms both', () => {
  assert.deepEqual(compare('I expect to see matches', { facts: { matchCount: 3, emptyOutput: false } }), {
    verdict: Match,
    reason: '3 matches; there was output',
  });
});
