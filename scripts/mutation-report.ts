/**
 * Turns Stryker's JSON report (reports/mutation.json, written by `npm run test:mutation`) into
 * reports/mutation.md: the score per module group and per file, every surviving mutant, and the
 * survivors judged equivalent (no test can kill them), each with why.
 *
 *   tsx scripts/mutation-report.ts [reports/mutation.json] [reports/mutation.md]
 *
 * Scores follow Stryker: killed and timed-out mutants over every valid one (survivors and
 * mutants no test reaches included); mutants that do not compile are left out. The "without
 * equivalents" column also leaves out the equivalent mutants listed below.
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

/** Module groups, in the order docs/development.md names them; a file joins the first group matching it. */
const GROUPS: ReadonlyArray<readonly [string, RegExp]> = [
  ['Tiers: what an unapproved call may keep', /^src\/workflows\/tools\/workspace-change-policy\.ts$/],
  ['Tools: per-command option lists', /^src\/workflows\/tools\/read-only-(options|git)\.ts$/],
  ['Tools: here-documents and rough words', /^src\/workflows\/tools\/(here-documents|rough-words)\.ts$/],
  ['Tools: shell command classification', /^src\/workflows\/tools\//],
  ['Context budget', /^src\/workflows\/common\//],
  ['Approvals: standing rules', /^src\/workflows\/approvals\/(approval-rule|rule-[a-z-]+|why-it-waits)\.ts$/],
  ['Approvals and history limits', /^src\/workflows\/(goal\/history-limits|approvals\/)/],
  ['Goal decisions', /^src\/workflows\/goal\//],
  ['Principles: hypotheses', /^src\/workflows\/principles\/hypothesis(-guard)?\.ts$/],
  ['Principles: stagnation and loops', /^src\/workflows\/principles\/(stagnation|loop)-guard\.ts$/],
  ['Principles: denials', /^src\/workflows\/principles\/denial-guard\.ts$/],
  ['Principles: budgets', /^src\/workflows\/principles\/budget(-ahead)?\.ts$/],
  ['Principles: cadence', /^src\/workflows\/principles\/(dynamic-)?cadence\.ts$/],
  ['Principles: call intents', /^src\/workflows\/principles\/call-intent\.ts$/],
  ['Principles: progress and cost', /^src\/workflows\/principles\/(progress|cost)\.ts$/],
  ['Principles: checkpoints', /^src\/workflows\/principles\/checkpoint-[a-z]+\.ts$/],
  ['Principles', /^src\/workflows\/principles\//],
  ['Planning', /^src\/workflows\/planning\//],
  ['Activities: the irreversible journal', /^src\/activities\/tools\/irreversible-journal\.ts$/],
  ['Activities: sandbox arguments', /^src\/activities\/tools\/sandbox\//],
  ['Activities: workspace paths', /^src\/activities\//],
  ['Codec: AES-GCM', /^src\/codec\//],
];

/**
 * The `(a < b ? -1 : a > b ? 1 : 0)` comparator that sorts an object's keys, changed where it
 * decides nothing (the loop guard and the plan both sort keys so).
 */
/** A surviving mutant no test can kill, by file, line and mutator, with why. */
interface Equivalent {
  readonly file: string;
  readonly line: number;
  readonly mutator: string;
  /** Where one line holds several mutants of one mutator: which one. */
  readonly replacement?: string;
  readonly why: string;
}

/** Several equivalent mutants of one file for one reason: each row is line, mutator, replacement. */
function forOneReason(
  file: string,
  why: string,
  rows: ReadonlyArray<readonly [line: number, mutator: string, replacement?: string]>,
): Equivalent[] {
  return rows.map(([line, mutator, replacement]) => ({ file, line, mutator, replacement, why }));
}

function keyOrderComparator(file: string, line: number): Equivalent[] {
  return forOneReason(
    file,
    "the key order's comparator changed where it decides nothing: an object's keys are unique, so none compares equal, and V8's sort (TimSort) only asks whether the comparator is below 0",
    [
      [line, 'EqualityOperator', 'a <= b'],
      [line, 'EqualityOperator', 'a >= b'],
      [line, 'ConditionalExpression', 'true'],
      [line, 'ConditionalExpression', 'false'],
    ],
  );
}

/**
 * Surviving mutants no test can kill, by file, line and mutator (the replacement where one line
 * holds several), with why. Checked by hand: each one behaves exactly as the original code.
 */
const EQUIVALENT: readonly Equivalent[] = [
  {
    file: 'src/codec/aes-gcm.ts',
    line: 13,
    mutator: 'ObjectLiteral',
    why: "the cipher's `{ authTagLength: 16 }` dropped: 16 bytes is node's default AES-GCM tag length, so the output is the same",
  },
  {
    file: 'src/codec/aes-gcm.ts',
    line: 25,
    mutator: 'ObjectLiteral',
    why: "the decipher's `{ authTagLength: 16 }` dropped: decrypt always hands it the last 16 bytes as the tag, so no other length can reach it",
  },
  // The empty path's own case: path.posix.normalize('') is '.', so '' resolves to the root anyway.
  ...forOneReason(
    'src/activities/tools/workspace.ts',
    "the empty path's own case changed: path.posix.normalize('') is '.', so an empty path still resolves to the root",
    [
      [32, 'ConditionalExpression', 'false'],
      [32, 'StringLiteral', '"Stryker was here!"'],
      [32, 'StringLiteral', '""'],
    ],
  ),
  // symlinkOutcome's `inside`: escapes() already refuses '..' and '../…' (path.sep is '/': keel
  // runs on Linux), and `lexical` is never absolute (a relative join, or path.relative's answer).
  ...forOneReason(
    'src/activities/tools/workspace.ts',
    "a link's `inside` check past escapes(): escapes() already catches '..' and '../…' on POSIX, so the extra checks decide nothing",
    [
      [132, 'LogicalOperator', "!escapes(lexical) || !lexical.startsWith('../')"],
      [132, 'MethodExpression', "lexical.endsWith('../')"],
      [132, 'ConditionalExpression', 'true'],
    ],
  ),
  // nearestExistingDirectory's step up: posix dirname('.') is '.', and normalize never yields ''.
  ...forOneReason(
    'src/activities/tools/workspace.ts',
    "the root's own case in the walk up changed: path.posix.dirname('.') is '.' too, and a normalized path is never ''",
    [
      [154, 'ConditionalExpression', 'false'],
      [154, 'StringLiteral', '"Stryker was here!"'],
      // `current === ""` in the condition (the '.' it yields is another mutant, killed).
      [154, 'StringLiteral', '""'],
    ],
  ),
  {
    file: 'src/activities/tools/workspace-access/open-beneath.ts',
    line: 66,
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    why: "`segments[index] ?? ''` with another fallback: the index is always below segments.length, so the fallback is never used",
  },
  // The journal writes its records with JSON.stringify, which leaves out undefined properties.
  ...(
    [
      [100, 'an outcome without an exit code then records `exitCode: undefined`'],
      [102, 'a finish without an error then records `error: undefined`'],
    ] as const
  ).map(([line, what]) => ({
    file: 'src/activities/tools/irreversible-journal.ts',
    line,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: `${what}, which JSON.stringify leaves out of the marker: the same bytes are written`,
  })),
  {
    file: 'src/activities/tools/irreversible-journal.ts',
    line: 126,
    mutator: 'BlockStatement',
    replacement: '{}',
    why: "readRecord's catch emptied: it then falls through to the end of the function, which returns undefined just as `return undefined` did",
  },
  {
    file: 'src/workflows/tools/workspace-path-rule.ts',
    line: 43,
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'the `=` check dropped: a word without `=` then adds slice(word, 0), the word itself, which is already a candidate',
  },
  {
    file: 'src/workflows/tools/workspace-path-rule.ts',
    line: 45,
    mutator: 'EqualityOperator',
    replacement: 'index <= word.text.length',
    why: 'one more glued value: the empty rest of the word, which names no path',
  },
  // The hypothesis comparator's quote reading: String.replace hands the callback the four groups,
  // then the offset and the whole text, and exactly one group holds the quote that matched.
  ...(
    [
      [
        'MethodExpression',
        'groups',
        'without `.slice(0, 4)` the first string found is still the matched group, which comes before the whole text',
      ],
      [
        'StringLiteral',
        '"Stryker was here!"',
        "the `?? ''` fallback changed: one of the four groups always matched, so it is never used",
      ],
    ] as const
  ).map(([mutator, replacement, why]) => ({
    file: 'src/workflows/principles/hypothesis.ts',
    line: 191,
    mutator,
    replacement,
    why,
  })),
  // The word before the first word: tokens[-1] is undefined, and neither '' nor any fallback text
  // is a negation or a verb, so the first word's own case decides nothing.
  ...forOneReason(
    'src/workflows/principles/hypothesis.ts',
    "the first word's missing previous word read otherwise: tokens[-1] is undefined and no fallback is a negation or a verb",
    [
      [153, 'EqualityOperator', 'index >= 0'],
      [153, 'ConditionalExpression', 'true'],
      [153, 'StringLiteral', '"Stryker was here!"'],
      [166, 'StringLiteral', '"Stryker was here!"'],
    ],
  ),
  // The context budget (src/workflows/common/context-budget.ts).
  {
    file: 'src/workflows/common/context-budget.ts',
    line: 67,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'copy on write copies a message again when a second block of it is cut: the copy of the copy has the same content, and the original stays untouched either way',
  },
  ...forOneReason(
    'src/workflows/common/context-budget.ts',
    'the outer loop goes on to later messages once the target is reached: the inner loop checks `chars > target` before every block, so nothing more is cut',
    [
      [78, 'ConditionalExpression', 'true'],
      [78, 'EqualityOperator', 'chars >= target'],
    ],
  ),
  {
    file: 'src/workflows/common/context-budget.ts',
    line: 110,
    mutator: 'ArithmeticOperator',
    replacement: 'messages.length + 1',
    why: 'the search for the last assistant message starts past the end: the two indices beyond it hold no message',
  },
  {
    file: 'src/workflows/common/context-budget.ts',
    line: 110,
    mutator: 'EqualityOperator',
    replacement: 'index > 0',
    why: "the search for the last assistant message skips message 0: that is always the user's task",
  },
  {
    file: 'src/workflows/common/context-budget.ts',
    line: 112,
    mutator: 'UnaryOperator',
    replacement: '+1',
    why: 'a transcript without an assistant message then names message 1 as the last one: it only decides which thinking block is kept, and thinking only comes in assistant messages',
  },
  {
    file: 'src/workflows/common/context-budget.ts',
    line: 124,
    mutator: 'ArithmeticOperator',
    replacement: 'messages.length + 1',
    why: 'the pass over the kept messages takes in the last one too: the same blocks in the same order as the last pass, which then finds it within the target (a kept head always fits) or its blocks already notes',
  },
  {
    file: 'src/workflows/common/context-budget.ts',
    line: 191,
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: "a message's remembered size measured again: the same number, only slower",
  },
  {
    file: 'src/workflows/principles/budget.ts',
    line: 158,
    mutator: 'StringLiteral',
    replacement: '""',
    why: "formatUsd's defaults for the whole and the cents emptied: toFixed(2) always gives both, so a default is never used",
  },
  {
    file: 'src/workflows/principles/hypothesis.ts',
    line: 203,
    mutator: 'Regex',
    replacement: '/[.;,!?](?=\\s)|\\n|\\bbut\\b/',
    why: 'a punctuation mark at the very end no longer ends a clause: it then stays at the end of the last clause, where no word pattern reads it',
  },
  // The loop guard's cycle detector and the order of an input's keys (loop-guard.ts).
  ...keyOrderComparator('src/workflows/principles/loop-guard.ts', 58),
  ...forOneReason(
    'src/workflows/principles/loop-guard.ts',
    'a history too short for two rounds compared anyway: its earlier round is shorter than the latest, and a call never equals a missing one',
    [
      [203, 'ConditionalExpression', 'false'],
      [203, 'ArithmeticOperator', '2 / length'],
    ],
  ),
  {
    file: 'src/workflows/principles/loop-guard.ts',
    line: 221,
    mutator: 'EqualityOperator',
    replacement: 'start <= ids.length',
    why: 'one more rotation, at start = length: that is the cycle as entered, already tried at start = 0',
  },
  {
    file: 'src/workflows/principles/loop-guard.ts',
    line: 223,
    mutator: 'EqualityOperator',
    replacement: "rotation.join('\\u0001') <= best.join('\\u0001')",
    why: 'a tie replaces the best rotation with an equal one: the same signature',
  },
  {
    file: 'src/workflows/principles/loop-guard.ts',
    line: 225,
    mutator: 'ArrayDeclaration',
    replacement: '["Stryker was here"]',
    why: 'the `?? []` fallback changed: a cycle has at least two calls, so a best rotation is always found',
  },
  // Planning (src/workflows/planning/).
  {
    file: 'src/workflows/planning/assessment.ts',
    line: 16,
    mutator: 'EqualityOperator',
    replacement: 'interval < 0',
    why: 'an interval of 0 let through: `cycle % 0` is NaN, so no assessment is due either way',
  },
  {
    file: 'src/workflows/planning/assessment.ts',
    line: 109,
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'the cycle check dropped beside the stagnant-cycles check: a cycle number is never negative, so cycles without progress never outnumber the cycles',
  },
  {
    file: 'src/workflows/planning/assessment.ts',
    line: 200,
    mutator: 'EqualityOperator',
    replacement: 'priority > PRIORITY_BOOST_CEILING',
    why: 'a priority at the ceiling boosted anyway: the boost is capped at the ceiling, so it stays where it was',
  },
  ...forOneReason(
    'src/workflows/planning/plan.ts',
    'the next step found by position or by status alone: in every plan the steps after the active one are pending and none before it is',
    [
      [156, 'LogicalOperator', 'step.index > active.index || step.status === StepStatus.Pending'],
      [156, 'ConditionalExpression', 'true'],
      [156, 'EqualityOperator', 'step.index >= active.index'],
    ],
  ),
  {
    file: 'src/workflows/planning/plan.ts',
    line: 320,
    mutator: 'StringLiteral',
    replacement: '""',
    why: "the `?? 'undefined'` fallback changed: a tool input is an object, and JSON.stringify of an object is never undefined",
  },
  ...keyOrderComparator('src/workflows/planning/plan.ts', 327),
  {
    file: 'src/workflows/planning/strategy.ts',
    line: 146,
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'criteria given as a list (or none) wrapped in one more list: joined, a list reads as its items with commas and none as nothing, which split into the same words',
  },
  {
    file: 'src/workflows/planning/strategy.ts',
    line: 146,
    mutator: 'ArrayDeclaration',
    replacement: '["Stryker was here"]',
    why: 'no criteria read as the words stryker, was, here: none is a keyword and none resonates with a pattern (each adds 0 to every score and to the total), so no goal is scored differently',
  },
  {
    file: 'src/workflows/planning/strategy.ts',
    line: 186,
    mutator: 'EqualityOperator',
    replacement: 'closest > WORD_RESONANCE_THRESHOLD',
    why: 'a cosine of exactly 0.4 never occurs: stems are ±1 vectors of 2,048, so a cosine is (1024 − h)/1024 for a Hamming distance h, and 409.6/1024 is not one',
  },
  // The sh tokenizer and the option parser (src/workflows/tools/).
  ...forOneReason(
    'src/workflows/tools/option-parser.ts',
    "a long option's `=` at index 0: the word starts with `--`, so `=` is never its first character",
    [
      [106, 'EqualityOperator', 'equals <= 0'],
      [107, 'EqualityOperator', 'equals <= 0'],
    ],
  ),
  {
    file: 'src/workflows/tools/shell-words.ts',
    line: 84,
    mutator: 'EqualityOperator',
    replacement: 'close >= open',
    why: 'the `}` at the same index as the `{`: one character cannot be both',
  },
  {
    file: 'src/workflows/tools/shell-words.ts',
    line: 188,
    mutator: 'EqualityOperator',
    replacement: 'end <= 0',
    why: 'the closing quote at index 0: the search starts after the opening quote, so it never finds one there',
  },
  {
    file: 'src/workflows/tools/shell-words.ts',
    line: 229,
    mutator: 'EqualityOperator',
    replacement: 'end <= 0',
    why: "a comment's newline at index 0: the search starts after the `#`, so it never finds one there",
  },
  {
    file: 'src/workflows/tools/read-only-find.ts',
    line: 38,
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: "the end of the arguments checked by `args[index]?.text ?? ''` too: past the end that is '', which is no leading option, so the loop stops there either way",
  },
  {
    file: 'src/workflows/tools/read-only-find.ts',
    line: 38,
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    why: "the `?? ''` fallback changed: the loop checks `args[index] !== undefined` first, so it is never used",
  },
  {
    file: 'src/workflows/tools/workspace-change-policy.ts',
    line: 62,
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    why: "the first segment's default changed: the path has a segment after `.git` here, so the default is never used",
  },
  // Goal decisions (src/workflows/goal/).
  {
    file: 'src/workflows/goal/tool-calls/approval-decision.ts',
    line: 94,
    mutator: 'StringLiteral',
    replacement: '""',
    why: "the `?? 'invalid'` fallback of a malformed decision's message changed: zod never fails a parse without an issue, so it is never used",
  },
  {
    file: 'src/workflows/goal/oversight/discipline.ts',
    line: 69,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'the early return when there are no notes dropped: appendUserBlocks returns the transcript unchanged when given no blocks',
  },
  {
    file: 'src/workflows/goal/tool-calls/remembered-denials.ts',
    line: 96,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: "an empty list's own early return dropped (`remembered.length === 0` as false): the newest-first search over no entries finds nothing either",
  },
  {
    file: 'src/workflows/goal/tool-calls/remembered-denials.ts',
    line: 98,
    mutator: 'ArithmeticOperator',
    replacement: 'remembered.length + 1',
    why: 'the newest-first search started two places past the end: the `earlier &&` check skips the missing entries, so it reaches the same denials in the same order',
  },
  {
    file: 'src/workflows/approvals/approval-rule.ts',
    line: 115,
    mutator: 'MethodExpression',
    replacement: 'text',
    why: "the rule text's outer trim dropped: the tool and pattern are trimmed after the split, and the schema trims both again",
  },
  {
    file: 'src/workflows/approvals/approval-rule.ts',
    line: 117,
    mutator: 'MethodExpression',
    replacement: 'trimmed.slice(0, colon)',
    why: "the tool's trim dropped: the tool-name schema trims it",
  },
  {
    file: 'src/workflows/approvals/approval-rule.ts',
    line: 118,
    mutator: 'EqualityOperator',
    replacement: 'colon <= 0',
    why: 'a colon first (`: x`) takes the pattern as `*`: the tool is then empty and refused as "tool is required" whatever the pattern',
  },
  {
    file: 'src/workflows/approvals/approval-rule.ts',
    line: 118,
    mutator: 'StringLiteral',
    replacement: '""',
    why: 'no colon gives an empty pattern instead of `*`: the next line maps an empty pattern to `*`',
  },
  {
    file: 'src/workflows/approvals/approval-rule.ts',
    line: 118,
    mutator: 'MethodExpression',
    replacement: 'trimmed.slice(colon + 1)',
    why: "the pattern's trim dropped: the whole text was trimmed, so the pattern has no trailing blanks (nor is it only blanks), and the pattern schema trims its start",
  },
  {
    file: 'src/workflows/approvals/approval-rule.ts',
    line: 124,
    mutator: 'StringLiteral',
    replacement: '""',
    why: 'the fallback for a failed parse without issues: zod reports at least one issue',
  },
  {
    file: 'src/workflows/approvals/rule-changes.ts',
    line: 34,
    mutator: 'StringLiteral',
    replacement: '""',
    why: "the approver's emptiness message emptied: zod then falls back to the schema's own error, the same words",
  },
  {
    file: 'src/workflows/approvals/rule-changes.ts',
    line: 43,
    mutator: 'StringLiteral',
    replacement: '""',
    why: "the rule id's emptiness message emptied: zod then falls back to the schema's own error, the same words",
  },
  {
    file: 'src/workflows/approvals/rule-changes.ts',
    line: 44,
    mutator: 'StringLiteral',
    replacement: '""',
    why: "the approver's emptiness message emptied: zod then falls back to the schema's own error, the same words",
  },
  {
    file: 'src/workflows/approvals/rule-changes.ts',
    line: 155,
    mutator: 'StringLiteral',
    replacement: '""',
    why: "the separator of a field's path: every field of these payloads is at the top level, so a path has one part",
  },
  {
    file: 'src/workflows/approvals/rule-changes.ts',
    line: 156,
    mutator: 'StringLiteral',
    replacement: '""',
    why: 'the fallback for a failed parse without issues: zod reports at least one issue',
  },
  {
    file: 'src/workflows/approvals/rule-book.ts',
    line: 52,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: "an empty rule list's own early return dropped: the searches over no rules find nothing either",
  },
  {
    file: 'src/workflows/approvals/rule-book.ts',
    line: 62,
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: "the allow search no longer skips forbid rules: a forbid rule that reaches it did not match by the forbid test, which covers all the allow test does (the same tool test, `*`, paths and inputs alike, and a command's one simple command is one of its pieces, matched from its first word)",
  },
  {
    file: 'src/workflows/approvals/rule-book.ts',
    line: 192,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: '`commands.length !== 1` dropped: a command subject without exactly one simple command always has notCoverable set ("it holds no command", "it chains several commands"), which the same line checks',
  },
  {
    file: 'src/workflows/approvals/rule-book.ts',
    line: 193,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'the `*` shortcut dropped: the pattern `*` matches every text in the table pass too',
  },
  {
    file: 'src/workflows/approvals/rule-book.ts',
    line: 193,
    mutator: 'StringLiteral',
    replacement: '""',
    why: 'the `*` shortcut compared with an empty pattern (never true: a pattern has at least one character): the pattern `*` matches every text in the table pass too',
  },
  {
    file: 'src/workflows/approvals/rule-book.ts',
    line: 193,
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    why: 'the fallback for a missing first command: the line above returned unless there is exactly one',
  },
  {
    file: 'src/workflows/approvals/rule-book.ts',
    line: 236,
    mutator: 'Regex',
    replacement: '/[;&|\\n`(){}]/',
    why: 'split at each separator instead of each run of them: the extra pieces are empty and deleted',
  },
  {
    file: 'src/workflows/approvals/rule-pattern.ts',
    line: 24,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'the literal prefilter dropped: it only saves time, the table pass gives the same answer',
  },
  {
    file: 'src/workflows/approvals/rule-pattern.ts',
    line: 26,
    mutator: 'ArrayDeclaration',
    replacement: 'new Array()',
    why: 'the start table without a length: unset entries read as undefined, falsy like false, writes grow the array, and the answer is `=== true`',
  },
  {
    file: 'src/workflows/approvals/rule-pattern.ts',
    line: 30,
    mutator: 'ArrayDeclaration',
    replacement: 'new Array()',
    why: 'the next table without a length: unset entries read as undefined, falsy like false, writes grow the array, and the answer is `=== true`',
  },
  {
    file: 'src/workflows/approvals/rule-pattern.ts',
    line: 62,
    mutator: 'MethodExpression',
    replacement: 'pattern.split(/[*?]+/).some(literal => subject.includes(literal))',
    why: 'the literal prefilter weakened (some literal instead of every one): it only saves time, the table pass gives the same answer',
  },
  {
    file: 'src/workflows/approvals/rule-pattern.ts',
    line: 62,
    mutator: 'Regex',
    replacement: '/[*?]/',
    why: 'the prefilter split at each wildcard instead of each run: the extra literals are empty, and every subject includes the empty text',
  },
  {
    file: 'src/workflows/approvals/rule-pattern.ts',
    line: 81,
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    why: "the fallback for a character past the pattern's end: the loop stays within it",
  },
  {
    file: 'src/workflows/approvals/rule-subject.ts',
    line: 93,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'an empty workspace no longer returns early: it resolves to `.`, whose prefix `./` starts no resolved path, and a path that resolves to `.` gives `.` either way',
  },
  {
    file: 'src/workflows/approvals/rule-subject.ts',
    line: 93,
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    why: 'an empty workspace compared with other text (so it no longer returns early): it resolves to `.`, whose prefix `./` starts no resolved path, and a path that resolves to `.` gives `.` either way',
  },
  // The hypervector encoding writes and reads Int8Array and Int32Array entries: a write past the
  // end is dropped and a read past it is undefined, which `?? 0` makes 0, so a loop bound one
  // further changes nothing; its vectors hold only -1, 0 and 1, for which a / b is a * b.
  ...forOneReason(
    'src/workflows/planning/hypervector.ts',
    'a loop one entry further: a typed array drops a write past its end, and a read past it is undefined, which `?? 0` makes 0',
    [
      [50, 'EqualityOperator', 'offset <= HYPERVECTOR_DIMENSIONS'],
      [52, 'EqualityOperator', 'offset + bit <= HYPERVECTOR_DIMENSIONS'],
      [62, 'EqualityOperator', 'index <= first.length'],
      [89, 'EqualityOperator', 'index <= HYPERVECTOR_DIMENSIONS'],
      [92, 'EqualityOperator', 'index <= HYPERVECTOR_DIMENSIONS'],
      [104, 'EqualityOperator', 'index <= first.length'],
      [176, 'EqualityOperator', 'index <= size'],
    ],
  ),
  ...forOneReason(
    'src/workflows/planning/hypervector.ts',
    "a random vector's inner bound loosened: 2,048 is a multiple of 32, so the 32-bit draws end on the last entry; an entry written one bit further (`bits >>> 32` is `bits`) is written again by the next draw, and writes past the end are dropped",
    [
      [52, 'EqualityOperator', 'bit <= 32'],
      [52, 'ConditionalExpression', 'true'],
      [52, 'ArithmeticOperator', 'offset - bit'],
    ],
  ),
  ...forOneReason(
    'src/workflows/planning/hypervector.ts',
    'binding divides instead of multiplying: entries are -1, 0 or 1, for which a / b is a * b, and the Infinity or NaN of a division by 0 is stored as 0 in an Int8Array, like the product',
    [
      [63, 'ArithmeticOperator', '(first[index] ?? 0) / (second[index] ?? 0)'],
      [
        178,
        'ArithmeticOperator',
        '(a[(index - 2 + size) % size] ?? 0) * (b[(index - 1 + size) % size] ?? 0) / (c[index] ?? 0)',
      ],
      [
        178,
        'ArithmeticOperator',
        '(a[(index - 2 + size) % size] ?? 0) / (b[(index - 1 + size) % size] ?? 0)',
      ],
    ],
  ),
  {
    file: 'src/workflows/planning/hypervector.ts',
    line: 150,
    mutator: 'Regex',
    replacement: '/[^A-Za-z0-9]/',
    why: 'tokenize splits at each separator instead of each run: the extra words are empty, and empty words are filtered out',
  },
  {
    file: 'src/workflows/planning/hypervector.ts',
    line: 142,
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    why: "undouble's fallback for a stem with no last character: it only sees stems of at least 3 characters",
  },
  {
    file: 'src/workflows/planning/hypervector.ts',
    line: 172,
    mutator: 'StringLiteral',
    replacement: '"Stryker was here!"',
    why: "encodeTrigram's defaults for a missing letter: encodeStem, its one caller, hands it three characters",
  },
  {
    file: 'src/workflows/principles/checkpoint-parrot.ts',
    line: 23,
    mutator: 'Regex',
    replacement: '/\\s/',
    why: 'a reply split at each space instead of each run: the extra words are empty, and empty words are filtered out',
  },
  {
    file: 'src/workflows/planning/consolidation.ts',
    line: 58,
    mutator: 'ArrayDeclaration',
    replacement: '[]',
    why: 'a transcript without a task message returned as [] instead of a copy of itself: it is then empty, so both are []',
  },
  // Call intent's word loop and the rough split of a command the tokenizer refuses.
  {
    file: 'src/workflows/principles/call-intent.ts',
    line: 183,
    mutator: 'EqualityOperator',
    replacement: 'index <= words.length',
    why: "the wrapper loop one word further: past the end the word is '', neither an assignment nor a wrapper, so the loop stops at the same index",
  },
  ...forOneReason(
    'src/workflows/principles/call-intent.ts',
    "a `?? ''` fallback made other text: an index below the length and split().pop() always find a word, and a program that is only wrappers is no target either way",
    [
      [169, 'StringLiteral', '"Stryker was here!"'],
      [184, 'StringLiteral', '"Stryker was here!"'],
      [188, 'StringLiteral', '"Stryker was here!"'],
      [204, 'StringLiteral', '"Stryker was here!"'],
    ],
  ),
  {
    file: 'src/workflows/principles/call-intent.ts',
    line: 258,
    mutator: 'MethodExpression',
    why: 'the rough split keeps commands with no words: an empty command has no program and names no target',
  },
  {
    file: 'src/workflows/principles/call-intent.ts',
    line: 164,
    mutator: 'Regex',
    replacement: '/\\s/',
    why: 'the words xargs reads split at each blank instead of each run: the extra words are empty, and empty words are filtered out',
  },
  ...forOneReason(
    'src/workflows/principles/call-intent.ts',
    'the rough split keeps commands with no words: an empty command has no program and names no target',
    [
      [266, 'ConditionalExpression', 'true'],
      [266, 'EqualityOperator', 'words.length >= 0'],
    ],
  ),
  // The guards (guards.ts and its guards-*.ts) and the principles' state.
  {
    file: 'src/workflows/principles/guards.ts',
    line: 62,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'progress is judged with `stateAfter: undefined` instead of no stateAfter: judgeProgress reads it with `??`, which treats both alike',
  },
  {
    file: 'src/workflows/principles/guards-loop.ts',
    line: 79,
    mutator: 'ConditionalExpression',
    replacement: 'false',
    why: 'the cycle check no longer returns early for a longest cycle under 2: detectCycle tries lengths 2 to the longest, so it finds none either',
  },
  ...forOneReason(
    'src/workflows/principles/principles.ts',
    'the budget warnings handled when there are none: nothing is pushed, and metaNoteLine([]) is undefined, so no note is added',
    [
      [273, 'ConditionalExpression', 'true'],
      [273, 'EqualityOperator', 'evaluation.warnings.length >= 0'],
    ],
  ),
  {
    file: 'src/workflows/principles/principles.ts',
    line: 276,
    mutator: 'ConditionalExpression',
    replacement: 'true',
    why: 'the meta note added without checking the line: with at least one warning metaNoteLine always returns a line',
  },
];

const KILLED = new Set(['Killed', 'Timeout']);
const VALID = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage']);

function main(): void {
  const [input = 'reports/mutation.json', output = 'reports/mutation.md'] = process.argv.slice(2);
  const report = JSON.parse(readFileSync(input, 'utf8')) as Report;
  writeFileSync(output, render(report));
  console.log(`mutation report: ${output}`);
}

function isEquivalent(file: string, mutant: Mutant): string | undefined {
  return EQUIVALENT.find(
    (entry) =>
      entry.file === file &&
      entry.line === mutant.location.start.line &&
      entry.mutator === mutant.mutatorName &&
      (entry.replacement === undefined || entry.replacement === mutant.replacement),
  )?.why;
}

interface Tally {
  killed: number;
  survived: number;
  noCoverage: number;
  equivalent: number;
  valid: number;
}

function tally(files: ReadonlyArray<readonly [string, readonly Mutant[]]>): Tally {
  const result: Tally = { killed: 0, survived: 0, noCoverage: 0, equivalent: 0, valid: 0 };
  for (const [file, mutants] of files) {
    for (const mutant of mutants) {
      if (!VALID.has(mutant.status)) continue;
      result.valid += 1;
      if (KILLED.has(mutant.status)) result.killed += 1;
      else if (isEquivalent(file, mutant) !== undefined) result.equivalent += 1;
      else if (mutant.status === 'NoCoverage') result.noCoverage += 1;
      else result.survived += 1;
    }
  }
  return result;
}

const percent = (part: number, whole: number): string =>
  whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;

function row(name: string, counts: Tally): string {
  return `| ${name} | ${counts.valid} | ${counts.killed} | ${counts.survived} | ${counts.noCoverage} | ${counts.equivalent} | ${percent(counts.killed, counts.valid)} | ${percent(counts.killed, counts.valid - counts.equivalent)} |`;
}

function render(report: Report): string {
  const files = Object.entries(report.files)
    .map(([file, data]) => [file, data.mutants] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  const header = [
    '| | mutants | killed | survived | no test reaches | equivalent | score | without equivalents |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const lines: string[] = [
    '# Mutation testing',
    '',
    'Generated by `npm run test:mutation:full` (StrykerJS 9, its tap runner over the unit tests,',
    'its TypeScript checker) with `tsx scripts/mutation-report.ts`: do not edit by hand. "mutants"',
    'counts those that compile; the score is those killed (or timed out) over them.',
    '',
    '## Score per module group',
    '',
    ...header,
  ];
  const groupOf = (file: string): string | undefined => GROUPS.find(([, pattern]) => pattern.test(file))?.[0];
  for (const [name] of GROUPS) {
    const inGroup = files.filter(([file]) => groupOf(file) === name);
    if (inGroup.length > 0) lines.push(row(name, tally(inGroup)));
  }
  lines.push(row('**All**', tally(files)), '', '## Score per file', '', ...header);
  for (const entry of files) lines.push(row(`\`${entry[0]}\``, tally([entry])));

  lines.push('', '## Equivalent mutants', '');
  let equivalents = 0;
  for (const [file, mutants] of files) {
    for (const mutant of mutants) {
      const why =
        VALID.has(mutant.status) && !KILLED.has(mutant.status) ? isEquivalent(file, mutant) : undefined;
      if (why === undefined) continue;
      equivalents += 1;
      lines.push(`- ${describe(file, mutant)}: ${why}`);
    }
  }
  if (equivalents === 0) lines.push('None named.');

  lines.push('', '## Surviving mutants', '');
  let survivors = 0;
  for (const [file, mutants] of files) {
    for (const mutant of mutants) {
      if (!VALID.has(mutant.status) || KILLED.has(mutant.status) || isEquivalent(file, mutant)) continue;
      survivors += 1;
      lines.push(
        `- ${describe(file, mutant)}${mutant.status === 'NoCoverage' ? ' (no test reaches it)' : ''}`,
      );
    }
  }
  if (survivors === 0) lines.push('None.');
  return `${lines.join('\n')}\n`;
}

function describe(file: string, mutant: Mutant): string {
  const replacement = (mutant.replacement ?? '').replace(/\s+/g, ' ').trim();
  const shown = replacement.length > 80 ? `${replacement.slice(0, 77)}...` : replacement;
  return `\`${file}:${mutant.location.start.line}\` ${mutant.mutatorName} → \`${shown.replace(/`/g, "'")}\``;
}

main();
