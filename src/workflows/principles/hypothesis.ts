import type { ToolOutcome } from '../tools/tool-outcome';
import { truncateText } from './cadence';

/**
 * Hypothesis-first (principle 1): a tool call may state what it expects ("I expect to see …");
 * after the call this deterministic comparator judges the outcome against it. Only a clear
 * contradiction is a mismatch, because a mismatch injects a reflection prompt and a false alarm
 * would teach the model to ignore it. Anything unclear is inconclusive: never guess a mismatch.
 *
 * The reading of the hypothesis is a small keyword heuristic over English text: success / failure
 * words, match words, empty / output words, explicit exit codes, and quoted strings that should
 * appear. Negation ("no errors", "find no matches", "not empty") flips a word's meaning; when the
 * words of one hypothesis point both ways on the same question, that question is dropped.
 */

export const HypothesisVerdict = {
  Match: 'match',
  Mismatch: 'mismatch',
  Inconclusive: 'inconclusive',
} as const;
export type HypothesisVerdict = (typeof HypothesisVerdict)[keyof typeof HypothesisVerdict];

export interface HypothesisComparison {
  verdict: HypothesisVerdict;
  /** Why, in one line the model and the ledger can read. */
  reason: string;
}

/** The text every hypothesis-mismatch message starts with. */
export const HYPOTHESIS_MISMATCH_MARKER = '[Hypothesis check]';

/** What a hypothesis claims; undefined means it says nothing clear about that question. */
interface Expectations {
  succeeds?: boolean;
  exitCode?: number;
  someMatches?: boolean;
  someOutput?: boolean;
  /** Strings the hypothesis says should appear in the result. */
  quotes: string[];
}

/** A set from space-separated words, to keep the word lists compact. */
const wordSet = (words: string): ReadonlySet<string> => new Set(words.split(' '));

const negators = wordSet('no not never without none nothing zero 0 non cannot nor');
// "find no matches", "prints nothing": negation after the verb, for match and output verbs only.
const forwardNegators = wordSet('no nothing none zero 0');
// "the failure should go away", "errors are gone": the thing named is expected to be absent.
const removalWords = wordSet('away gone disappear disappears vanish vanishes fixed resolved');
// Conditional or hedged clauses ("if this fails …", "it may pass") state no expectation.
const hedgeWords = wordSet('if unless whether maybe perhaps might may possibly');
// Alternatives ("exit code 0 or 1", "succeed or fail") leave most questions open, but not whether
// something is found: "matches of TODO or FIXME" expects matches of either.
const alternativeWords = wordSet('either or');
// "no output on the second channel" qualifies which output: not a claim that the result is empty.
const qualifierWords = wordSet('on in from for about of to under within into');
const successWords = wordSet(
  'succeed succeeds succeeded success successful successfully pass passes passed passing',
);
const failureWords = wordSet(
  'fail fails failed failing failure failures error errors crash crashes crashed panic panics exception refuse refuses refused denied rejected',
);
// However people put an expectation of matches: "several matches of X", "a few hits", "X occurs
// twice", "some results", "three entries mention X", "X appears in notes.md".
const matchWords = wordSet(
  'match matches matched matching find finds found contain contains containing result results hit hits occurrence occurrences occur occurs occurring instance instances references entries mention mentions mentioned appear appears appearing',
);
const outputNouns = wordSet('output outputs lines text content contents');
const outputVerbs = wordSet('print prints printed show shows see list lists');
const nothingVerbs = wordSet(
  'find finds return returns get gets match matches produce produces yield yields output outputs',
);

// Quoted strings: backticks, double quotes, curly quotes, and single quotes that are not apostrophes.
const quotePattern = /`([^`\n]+)`|"([^"\n]+)"|“([^”\n]+)”|(?<=^|[\s([])'([^'\n]+)'(?=$|[\s.,;:!?)\]])/g;
const quoteToken = (index: number): string => ` quoted${index} `;
// A quote is expected to appear when a word before it says so ("contains `x`", "fails with 'y'")…
const appearBefore =
  /\b(contain|contains|containing|include|includes|including|show|shows|showing|print|prints|see|output|outputs|mention|mentions|find|finds|match|matches|say|says|read|reads|list|lists|return|returns|with)\b/;
// …or a phrase after it does ("`x` appears", "`x` is printed", "`x` in the output").
const appearAfter =
  /^\W*(?:\w+\s+){0,2}?(appears?|shows? up|is (?:printed|shown|listed|present|mentioned)|in the (?:output|result|content|text|response))\b/;
const exitContext = /\b(exit|exits|exited|status|code)\b/;
const exitCodePattern =
  /\b(?:exit(?:s|ed)?(?:\s+(?:code|status))?|(?:return|status)\s+code)\s*(?:of|with|=|:|is|to be)?\s*(\d+)\b/g;
const nonZeroExitPattern =
  /\bnon-?zero\s+(?:exit|status|return)(?:\s+(?:code|status))?\b|\b(?:exit|status|return)(?:\s+(?:code|status))?\s+(?:is\s+)?non-?zero\b/g;

/**
 * `impliedOutput` is the weak reading of output words ("I expect to see …", "the output …"): it
 * counts only when nothing states emptiness or non-emptiness outright ("empty", "no output").
 */
type Question = Exclude<keyof Expectations, 'quotes'> | 'impliedOutput';

/** Collects votes per question; a question with votes both ways is dropped. */
class Votes {
  private readonly seen = new Map<string, Set<boolean | number>>();
  add(question: Question, value: boolean | number): void {
    const values = this.seen.get(question) ?? new Set();
    values.add(value);
    this.seen.set(question, values);
  }
  has(question: Question): boolean {
    return this.seen.has(question);
  }
  agreed<T extends boolean | number>(question: Question): T | undefined {
    const values = this.seen.get(question);
    return values?.size === 1 ? (values.values().next().value as T) : undefined;
  }
}

function readClause(clause: string, quotes: readonly string[], votes: Votes, expectedQuotes: string[]): void {
  const words = Array.from(clause.matchAll(/[a-z0-9']+/g), (match) => match[0]);
  if (words.some((word) => hedgeWords.has(word))) return;
  if (words.some((word) => alternativeWords.has(word))) {
    readAlternatives(clause, votes);
    return;
  }
  const hasNegator = words.some(
    (word) => negators.has(word) || word.endsWith("n't") || removalWords.has(word),
  );

  for (const match of clause.matchAll(/ quoted(\d+) /g)) {
    const quote = quotes[Number(match[1])];
    if (quote === undefined || hasNegator || exitContext.test(clause)) continue;
    const before = clause.slice(0, match.index);
    const after = clause.slice(match.index + match[0].length);
    if (appearBefore.test(before) || appearAfter.test(after)) expectedQuotes.push(quote);
  }

  let rest = clause;
  for (const match of clause.matchAll(exitCodePattern)) {
    const code = Number(match[1]);
    votes.add('exitCode', code);
    votes.add('succeeds', code === 0);
    rest = rest.replace(match[0], ' ');
  }
  for (const match of clause.matchAll(nonZeroExitPattern)) {
    votes.add('succeeds', false);
    rest = rest.replace(match[0], ' ');
  }

  const tokens = Array.from(rest.matchAll(/[a-z0-9']+/g), (match) => match[0]);
  let seenContentWord = false;
  tokens.forEach((word, index) => {
    const previous = tokens.slice(Math.max(0, index - 4), index);
    const next = tokens.slice(index + 1, index + 3);
    const isVerb = matchWords.has(word) || outputVerbs.has(word);
    const negated =
      previous.some((other) => negators.has(other) || other.endsWith("n't")) ||
      (isVerb && next.some((other) => forwardNegators.has(other))) ||
      tokens.slice(index + 1, index + 4).some((other) => removalWords.has(other));
    const immediatelyNegated = index > 0 && negators.has(tokens[index - 1] ?? '');
    const following = tokens[index + 1];

    // "see the error message" talks about content, not about the call failing: only success and
    // failure words before any content word count as a claim about the call itself.
    if (successWords.has(word) && !seenContentWord) votes.add('succeeds', !negated);
    if (failureWords.has(word) && !seenContentWord) votes.add('succeeds', negated);
    if (matchWords.has(word)) {
      votes.add('someMatches', !negated);
      seenContentWord = true;
    }
    if (word === 'empty') votes.add('someOutput', negated);
    if (word === 'silent' || word === 'silently') votes.add('someOutput', false);
    if (word === 'nothing' && (index === tokens.length - 1 || nothingVerbs.has(tokens[index - 1] ?? ''))) {
      votes.add('someOutput', false);
    }
    if (outputNouns.has(word) || outputVerbs.has(word)) {
      seenContentWord = true;
      if (!negated) votes.add('impliedOutput', true);
      // "no output", "doesn't print anything": a claim of emptiness. "won't show `x`" is not.
      const emptyClaim = outputNouns.has(word)
        ? following === undefined || !qualifierWords.has(following)
        : following === undefined || following === 'anything' || following === 'any';
      if (immediatelyNegated && emptyClaim) votes.add('someOutput', false);
    }
  });
}

/** A clause with alternatives says only that something will be found, unless it is negated. */
function readAlternatives(clause: string, votes: Votes): void {
  const tokens = Array.from(clause.matchAll(/[a-z0-9']+/g), (match) => match[0]);
  const negated = tokens.some((word) => negators.has(word) || word.endsWith("n't") || removalWords.has(word));
  if (!negated && tokens.some((word) => matchWords.has(word))) votes.add('someMatches', true);
}

function readHypothesis(hypothesis: string): Expectations {
  const quotes: string[] = [];
  const withTokens = hypothesis.replace(quotePattern, (_whole, ...groups: unknown[]) => {
    const text = groups.slice(0, 4).find((group): group is string => typeof group === 'string') ?? '';
    quotes.push(text);
    return quoteToken(quotes.length - 1);
  });
  const votes = new Votes();
  const expectedQuotes: string[] = [];
  // Curly apostrophes ("don’t") read like straight ones for the negation words.
  for (const clause of withTokens
    .toLowerCase()
    .replace(/’/g, "'")
    // "no-op", "zero-width": one word that names a thing, not a negation ("non-empty" still negates).
    .replace(/\b(no|zero|none|never)-(?=[a-z])/g, '$1')
    .split(/[.;,!?](?=\s|$)|\n|\bbut\b/)) {
    readClause(` ${clause} `, quotes, votes, expectedQuotes);
  }
  const expectations: Expectations = {
    succeeds: votes.agreed<boolean>('succeeds'),
    exitCode: votes.agreed<number>('exitCode'),
    someMatches: votes.agreed<boolean>('someMatches'),
    someOutput: votes.has('someOutput')
      ? votes.agreed<boolean>('someOutput')
      : votes.agreed<boolean>('impliedOutput'),
    quotes: expectedQuotes,
  };
  // "no matches in the output" mentions output without expecting any.
  if (expectations.someMatches === false && expectations.someOutput === true)
    expectations.someOutput = undefined;
  return expectations;
}

function describeFailure(outcome: ToolOutcome): string {
  const exitCode = outcome.facts.exitCode;
  return exitCode !== undefined && exitCode !== 0
    ? `the call failed (exit code ${exitCode})`
    : 'the call failed';
}

export interface CompareHypothesisOptions {
  hypothesis: string | undefined;
  outcome: ToolOutcome;
}

/** Judges a tool outcome against the hypothesis stated for the call. */
export function compareHypothesis({ hypothesis, outcome }: CompareHypothesisOptions): HypothesisComparison {
  if (hypothesis === undefined || hypothesis.trim() === '') {
    return { verdict: HypothesisVerdict.Inconclusive, reason: 'no hypothesis was stated' };
  }
  const expected = readHypothesis(hypothesis);
  const { exitCode, matchCount, emptyOutput, truncated } = outcome.facts;
  const failed = !outcome.ok || (exitCode !== undefined && exitCode !== 0);
  const empty = emptyOutput ?? (outcome.content.trim() === '' ? true : undefined);
  const mismatches: string[] = [];
  const confirmations: string[] = [];

  if (expected.exitCode !== undefined && exitCode !== undefined) {
    if (expected.exitCode !== exitCode) {
      mismatches.push(`expected exit code ${expected.exitCode}, but got exit code ${exitCode}`);
    } else confirmations.push(`exit code ${exitCode}`);
  } else if (expected.succeeds === true) {
    if (failed) mismatches.push(`expected success, but ${describeFailure(outcome)}`);
    else confirmations.push('the call succeeded');
  } else if (expected.succeeds === false) {
    if (!failed) mismatches.push('expected a failure, but the call succeeded');
    else confirmations.push('the call failed as expected');
  }

  if (expected.someMatches === true) {
    if (matchCount === 0) mismatches.push('expected a match, but there were 0 matches');
    else if (matchCount !== undefined) confirmations.push(`${matchCount} matches`);
    else if (empty === true) mismatches.push('expected to find something, but the output was empty');
  } else if (expected.someMatches === false) {
    if (matchCount !== undefined && matchCount > 0) {
      mismatches.push(
        `expected no matches, but there ${matchCount === 1 ? 'was 1 match' : `were ${matchCount} matches`}`,
      );
    } else if (matchCount === 0) confirmations.push('0 matches');
  }

  if (expected.someOutput === true) {
    if (empty === true) mismatches.push('expected output, but the output was empty');
    else if (matchCount === 0) mismatches.push('expected output, but nothing was found (0 matches)');
    else if (empty === false) confirmations.push('there was output');
  } else if (expected.someOutput === false) {
    // For searches "nothing" means no matches; their output may still carry a header line.
    const hadSome = matchCount !== undefined ? matchCount > 0 : empty === false;
    if (hadSome) mismatches.push('expected empty output, but there was output');
    else if (matchCount === 0 || empty === true) confirmations.push('the output was empty');
  }

  const content = outcome.content.toLowerCase();
  for (const quote of expected.quotes) {
    if (content.includes(quote.toLowerCase())) confirmations.push(`"${quote}" appears`);
    // A truncated result may hold the string in the part that was cut: no verdict then.
    else if (truncated !== true) mismatches.push(`expected "${quote}" in the result, but it does not appear`);
  }

  if (mismatches.length > 0) return { verdict: HypothesisVerdict.Mismatch, reason: mismatches.join('; ') };
  if (confirmations.length > 0) return { verdict: HypothesisVerdict.Match, reason: confirmations.join('; ') };
  return {
    verdict: HypothesisVerdict.Inconclusive,
    reason: 'the hypothesis states nothing the result can clearly confirm or refute',
  };
}

export interface HypothesisMismatchPromptOptions {
  /** The tool's one-line summary of the call, e.g. from ToolSpec.summarize. */
  toolSummary: string;
  hypothesis: string;
  /** The comparator's reason. */
  reason: string;
}

/**
 * The short reflection injected before the next turn after a clear mismatch. It asks why the
 * expectation was wrong before another attempt, which is the question agents skip when they
 * retry with different arguments instead.
 */
export function hypothesisMismatchPrompt({
  toolSummary,
  hypothesis,
  reason,
}: HypothesisMismatchPromptOptions): string {
  return [
    `${HYPOTHESIS_MISMATCH_MARKER} The result of ${toolSummary} did not match what you expected.`,
    `You expected: ${truncateText(hypothesis, 300)}`,
    `What happened: ${reason}`,
    'Before the next step, say in one or two sentences which assumption this disproves and how it changes your plan. Revise the assumption rather than retrying with different arguments.',
  ].join('\n');
}
