/**
 * The ways a program's options are written, to state an allowlist from its manual as commands:
 * the rule tests of read-only-options.ts and read-only-git.ts give these to the classifier.
 */
export interface ManualOptions {
  /** Letters without a value: each alone, then all in one cluster. */
  readonly flags?: string;
  /** Letters whose value is the rest of the word or the next word: `-Xv`, `-X v`, `-aX v`. */
  readonly valued?: string;
  /** Letters whose value, if any, is the rest of the word: `-X` and `-Xv`. */
  readonly gluedValue?: string;
  /** Long options without a value. */
  readonly longFlags?: readonly string[];
  /** Long options with a value after `=` or as the next word. */
  readonly longValued?: readonly string[];
  /** Long options whose value is optional or only seen after `=`: bare, then with `=value`. */
  readonly longOptional?: readonly string[];
}

/**
 * Every form of every option in `manual`, each as `command` followed by it. `value` is the value
 * given to valued options; tree reads a valued letter's value from the next word only, so with
 * `gluedLetterValues: false` no `-Xv` form is written.
 */
export function optionForms(
  command: string,
  manual: ManualOptions,
  { value = '1', gluedLetterValues = true }: { value?: string; gluedLetterValues?: boolean } = {},
): string[] {
  const flags = [...(manual.flags ?? '')];
  const firstFlag = flags[0] ?? '';
  return [
    ...flags.map((letter) => `${command} -${letter}`),
    ...(flags.length > 1 ? [`${command} -${flags.join('')}`] : []),
    ...[...(manual.valued ?? '')].flatMap((letter) => [
      ...(gluedLetterValues ? [`${command} -${letter}${value}`] : []),
      `${command} -${letter} ${value}`,
      `${command} -${firstFlag}${letter} ${value}`,
    ]),
    ...[...(manual.gluedValue ?? '')].flatMap((letter) => [
      `${command} -${letter}`,
      `${command} -${letter}${value}`,
      `${command} -${firstFlag}${letter}${value}`,
    ]),
    ...(manual.longFlags ?? []).map((name) => `${command} --${name}`),
    ...(manual.longValued ?? []).flatMap((name) => [
      `${command} --${name}=${value}`,
      `${command} --${name} ${value}`,
    ]),
    ...(manual.longOptional ?? []).flatMap((name) => [
      `${command} --${name}`,
      `${command} --${name}=${value}`,
    ]),
  ];
}
