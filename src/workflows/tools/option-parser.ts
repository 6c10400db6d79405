import type { ShellWord } from './shell-words';

/**
 * How one program reads its options, as an allowlist: an option not named here makes the call
 * not read-only. Long options must be spelled in full, because getopt_long (and git) accept any
 * unambiguous prefix of *every* option the program has, and only the safe ones are listed here:
 * `sort --out=x` is `--output=x`. An exact name always wins over a prefix, so listed names are exact.
 */
export interface OptionSpec {
  /** Short options without a value, as one string: 'lah' allows -l, -a, -h and -lah. */
  readonly flags?: string;
  /** Short options whose value is the rest of the word, else the next word (getopt's `x:`). */
  readonly valued?: string;
  /** Short options whose value, if any, is the rest of the word (getopt's `x::`, git's -M50%). */
  readonly gluedValue?: string;
  /** Long options (without --) that take no value. */
  readonly longFlags?: readonly string[];
  /** Long options whose value follows `=` or is the next word (getopt_long's required_argument). */
  readonly longValued?: readonly string[];
  /**
   * Long options whose value, if any, follows `=`. Also where unsure whether the next word is the
   * value: it is then checked as an argument of its own, which is never less strict.
   */
  readonly longOptional?: readonly string[];
  /** `-NUM` as a whole word is an option (head -20, git log -5). */
  readonly numberOption?: boolean;
  /** tree: a value option takes the next word even inside a cluster, and the cluster goes on. */
  readonly valuesFromNextWords?: boolean;
  /**
   * No option of the program, known or not, writes, runs a program or reads a path it was not
   * given, whatever its value: so a glob that expands to option-like file names (a file named
   * `-o`) cannot make it do more. Otherwise a word that starts with a glob counts as unseen options.
   */
  readonly globsAreHarmless?: boolean;
  /** Options known to write, run or read unseen paths, and why: named in the reason (prefixes too). */
  readonly dangerous?: Readonly<Record<string, string>>;
}

export interface ParsedOption {
  /** A letter for short options, the full name for long ones. */
  readonly name: string;
  readonly value?: string;
}

export interface ParsedOptions {
  readonly ok: true;
  readonly options: ParsedOption[];
  /** The operands, in order: words that are neither options nor their values. */
  readonly positionals: ShellWord[];
}

export type ParsedArguments = ParsedOptions | { ok: false; reason: string };

/** Parses a program's arguments the way getopt_long does (options may follow operands). */
export function parseArguments(
  program: string,
  args: readonly ShellWord[],
  spec: OptionSpec,
): ParsedArguments {
  const options: ParsedOption[] = [];
  const positionals: ShellWord[] = [];
  const fail = (reason: string): ParsedArguments => ({ ok: false, reason });
  let endOfOptions = false;
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index] as ShellWord;
    if (!endOfOptions && spec.globsAreHarmless !== true && startsWithGlob(word))
      return fail(`${word.text} may expand to file names that ${program} reads as options`);
    if (endOfOptions || word.text === '-' || !word.text.startsWith('-')) {
      positionals.push(word);
      continue;
    }
    if (word.text === '--') {
      endOfOptions = true;
      continue;
    }
    // A value given as the next word is taken now, so the loop skips it.
    const taken: ShellWord[] = [];
    const takeNext = (): ShellWord | undefined => {
      const next = args[index + 1];
      index += 1;
      if (next !== undefined) taken.push(next);
      return next;
    };
    const reason = word.text.startsWith('--')
      ? parseLong(program, word.text, spec, options, takeNext)
      : parseShort(program, word.text, spec, options, takeNext);
    if (reason !== undefined) return fail(reason);
    // A glob expands to several words: all but the first would be read as options or operands.
    const globbed = spec.globsAreHarmless === true ? undefined : taken.find(startsWithGlob);
    if (globbed !== undefined)
      return fail(`${globbed.text} may expand to file names that ${program} reads as options`);
  }
  return { ok: true, options, positionals };
}

type NextWord = () => ShellWord | undefined;

function parseLong(
  program: string,
  text: string,
  spec: OptionSpec,
  options: ParsedOption[],
  takeNext: NextWord,
): string | undefined {
  const equals = text.indexOf('=');
  const name = equals < 0 ? text.slice(2) : text.slice(2, equals);
  const glued = equals < 0 ? undefined : text.slice(equals + 1);
  if (spec.longFlags?.includes(name) === true) {
    if (glued !== undefined) return `${program} --${name} takes no value`;
    options.push({ name });
    return undefined;
  }
  if (spec.longOptional?.includes(name) === true) {
    options.push(glued === undefined ? { name } : { name, value: glued });
    return undefined;
  }
  if (spec.longValued?.includes(name) === true) {
    const value = glued ?? takeNext()?.text;
    if (value === undefined) return `${program} --${name} needs a value it can see`;
    options.push({ name, value });
    return undefined;
  }
  const abbreviates = (option: string): boolean =>
    name !== '' && option.length > 1 && option.startsWith(name);
  return whyUnknown(program, `--${name}`, spec, abbreviates);
}

function parseShort(
  program: string,
  text: string,
  spec: OptionSpec,
  options: ParsedOption[],
  takeNext: NextWord,
): string | undefined {
  if (spec.numberOption === true && /^-\d+$/.test(text)) {
    options.push({ name: '#', value: text.slice(1) });
    return undefined;
  }
  for (let position = 1; position < text.length; position += 1) {
    const letter = text.charAt(position);
    const rest = text.slice(position + 1);
    if (spec.flags?.includes(letter) === true) {
      options.push({ name: letter });
    } else if (spec.gluedValue?.includes(letter) === true) {
      options.push(rest === '' ? { name: letter } : { name: letter, value: rest });
      return undefined;
    } else if (spec.valued?.includes(letter) === true) {
      const value = rest === '' || spec.valuesFromNextWords === true ? takeNext()?.text : rest;
      if (value === undefined) return `${program} -${letter} needs a value it can see`;
      options.push({ name: letter, value });
      if (spec.valuesFromNextWords !== true) return undefined;
    } else {
      return whyUnknown(program, `-${letter}`, spec, (option) => option === letter);
    }
  }
  return undefined;
}

/** Names the dangerous option an unknown one is (or, for a long one, may abbreviate). */
function whyUnknown(
  program: string,
  written: string,
  spec: OptionSpec,
  means: (dangerousOption: string) => boolean,
): string {
  const known = Object.entries(spec.dangerous ?? {}).find(([option]) => means(option));
  if (known === undefined) return `${program} ${written} is not a known read-only option`;
  const [option, why] = known;
  return written === `-${option}` || written === `--${option}`
    ? `${program} ${written} ${why}`
    : `${program} ${written} may abbreviate --${option}, which ${why}`;
}

/** A word whose first character is a glob can expand to any file name, `-o` included. */
export function startsWithGlob(word: ShellWord): boolean {
  return /^[*?[]/.test(word.active);
}
