import { forOneReason, type Equivalent } from './equivalent';

/** Equivalent mutants (see scripts/mutation-report.ts) of the codec, the workspace and its journal, the workspace path rule and the hypothesis comparator. */
export const equivalentsOfCodecWorkspaceAndHypothesis: readonly Equivalent[] = [
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
];
