/** How scripts/mutation-report.ts names an equivalent mutant, and helpers that name several at once. */

/** A surviving mutant no test can kill, by file, line and mutator, with why. */
export interface Equivalent {
  readonly file: string;
  readonly line: number;
  readonly mutator: string;
  /** Where one line holds several mutants of one mutator: which one. */
  readonly replacement?: string;
  readonly why: string;
}

/** Several equivalent mutants of one file for one reason: each row is line, mutator, replacement. */
export function forOneReason(
  file: string,
  why: string,
  rows: ReadonlyArray<readonly [line: number, mutator: string, replacement?: string]>,
): Equivalent[] {
  return rows.map(([line, mutator, replacement]) => ({ file, line, mutator, replacement, why }));
}

/**
 * The `(a < b ? -1 : a > b ? 1 : 0)` comparator that sorts an object's keys, changed where it
 * decides nothing (the loop guard and the plan both sort keys so).
 */
export function keyOrderComparator(file: string, line: number): Equivalent[] {
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
