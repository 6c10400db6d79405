import { forOneReason, type Equivalent } from './equivalent';

/** Equivalent mutants (see scripts/mutation-report.ts) of the hypervector encoding, call intents, and the guards and principles' state. */
export const equivalentsOfHypervectorsIntentsAndGuards: readonly Equivalent[] = [
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
