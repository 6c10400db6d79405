/**
 * A small sh tokenizer for the command classifier: splits a command line into simple commands of
 * words, following sh quoting, and refuses what it cannot see through (substitutions, subshells,
 * redirections that write, syntax dash and bash read differently). Pure: the workflow classifies
 * with it, the fallback runner reuses it. /bin/sh may be dash or bash, so where the two disagree
 * the command is refused rather than read one way.
 */

/** One word after quote removal, plus the characters the shell would still act on. */
export interface ShellWord {
  /** The word as the program receives it (quotes removed). */
  readonly text: string;
  /**
   * Same length as `text`: a character the shell still interprets (unquoted, or `$` inside double
   * quotes) is kept; a quoted or escaped one is replaced by QUOTED_CHARACTER. Globs, `~` and `$`
   * expansions are looked for here, so `grep '$HOME' .` stays a literal search.
   */
  readonly active: string;
  /** True for the file after `<`: read by the shell, not an argument of the command. */
  readonly redirectedInput?: boolean;
}

/** Stands for a quoted character in `active`; a NUL cannot occur in a command (it is refused). */
export const QUOTED_CHARACTER = '\u0000';

export type SplitResult = { ok: true; commands: ShellWord[][] } | { ok: false; reason: string };

/**
 * Control characters (all but tab and newline: a CR or an escape sequence can hide text from
 * whoever reads the command), invisible or non-ASCII blanks, bidirectional overrides, variation
 * selectors and tags. sh takes them literally, a reader does not. Ranges of code points, inclusive.
 */
const UNREADABLE: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x08],
  [0x0b, 0x1f],
  [0x7f, 0xa0],
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x1680, 0x1680],
  [0x17b4, 0x17b5],
  [0x180e, 0x180e],
  [0x2000, 0x200f],
  [0x2028, 0x202f],
  [0x205f, 0x206f],
  [0x3000, 0x3000],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe007f],
];

function isUnreadable(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return UNREADABLE.some(([first, last]) => code >= first && code <= last);
}

/** Look like quotes or operators, but sh takes them literally: the command does not do what it says. */
const LOOKALIKE =
  /[\u00b4\u02bc\u2018-\u201f\u2032-\u2037\u2044\u2215\uff02-\uff04\uff06-\uff09\uff0f\uff1b\uff1c\uff1e\uff40\uff5c]/;

/** Where a redirection's word goes; `input` files are kept as words (the classifier checks them). */
type Redirection = 'input' | 'output' | 'duplicate';

/**
 * Splits on ; newline | || && into simple commands of words, following sh quoting, comments and
 * line continuations. Fails on anything whose effect it cannot see from the words.
 */
export function splitSimpleCommands(command: string): SplitResult {
  if ([...command].some(isUnreadable)) return fail('the command holds a control or invisible character');
  if (LOOKALIKE.test(command)) return fail('the command holds a character that looks like sh syntax');
  return new Splitter(command).split();
}

const fail = (reason: string): SplitResult => ({ ok: false, reason });

/** bash expands `{a,b}` and `{1..3}` into words the classifier never sees; dash does not. */
function whyBraceExpands(word: ShellWord): string | undefined {
  const open = word.active.indexOf('{');
  const close = word.active.lastIndexOf('}');
  if (open >= 0 && close > open && /,|\.\./.test(word.text.slice(open + 1, close)))
    return `${word.text} is a brace expansion in bash (not in dash)`;
  return undefined;
}

class Splitter {
  private readonly commands: ShellWord[][] = [];
  private words: ShellWord[] = [];
  private text = '';
  private active = '';
  private inWord = false; // distinguishes an empty quoted word ('') from no word at all
  private redirection: Redirection | undefined; // the next word is this redirection's target
  private commandHasContent = false; // a word or a redirection since the last separator
  private awaitingCommand = false; // after | && ||: a command must follow (newlines may come first)
  private index = 0;

  constructor(private readonly source: string) {}

  split(): SplitResult {
    while (this.peek() !== '') {
      const reason = this.step();
      if (reason !== undefined) return fail(reason);
    }
    const reason = this.endWord() ?? this.endCommand();
    if (reason !== undefined) return fail(reason);
    if (this.awaitingCommand) return fail('the command ends with an operator');
    return { ok: true, commands: this.commands };
  }

  /** Consumes one token or one character of a word; returns why not, when it must refuse. */
  private step(): string | undefined {
    const char = this.take();
    switch (char) {
      case '\\':
        return this.escaped();
      case "'":
        return this.singleQuoted();
      case '"':
        return this.doubleQuoted();
      case '`':
        return 'command substitution (backticks) runs another command';
      case '$':
        return this.dollar();
      case ' ':
      case '\t':
        return this.endWord();
      case '#':
        if (this.inWord) return this.add(char, true);
        return this.comment();
      case '\n':
        return this.endWord() ?? this.endCommand(); // after | && || the next line continues
      case ';':
        if (this.peek() === ';' || this.peek() === '&') return `;${this.peek()} is case syntax`;
        return this.separator(false);
      case '|':
        if (this.peek() === '&') return '|& is not plain sh';
        if (this.peek() === '|') this.take();
        return this.separator(true);
      case '&':
        if (this.peek() === '>') return '&> runs a background job in dash and redirects output in bash';
        if (this.peek() !== '&') return '& runs a background job';
        this.take();
        return this.separator(true);
      case '(':
      case ')':
        return 'subshells are not classified';
      case '>':
      case '<':
        return this.redirect(char);
      default:
        return this.add(char, true);
    }
  }

  /** The next character, after the line continuations (backslash-newline) sh removes before it. */
  private peek(): string {
    while (this.source.startsWith('\\\n', this.index)) this.index += 2;
    return this.source.charAt(this.index);
  }

  private take(): string {
    const char = this.peek();
    this.index += 1;
    return char;
  }

  private add(char: string, isActive: boolean): undefined {
    this.text += char;
    this.active += isActive ? char : QUOTED_CHARACTER;
    this.inWord = true;
    return undefined;
  }

  /** An unquoted backslash quotes the next character (a backslash-newline was already removed). */
  private escaped(): string | undefined {
    const next = this.source.charAt(this.index);
    if (next === '') return 'the command ends with a backslash';
    this.index += 1;
    return this.add(next, false);
  }

  /** Single quotes keep everything, backslash-newline included, up to the next quote. */
  private singleQuoted(): string | undefined {
    const end = this.source.indexOf("'", this.index);
    if (end < 0) return 'unbalanced quotes';
    this.inWord = true;
    // One UTF-16 unit at a time, as everywhere: `active` must stay index for index with `text`.
    for (let index = this.index; index < end; index += 1) this.add(this.source.charAt(index), false);
    this.index = end + 1;
    return undefined;
  }

  private doubleQuoted(): string | undefined {
    this.inWord = true;
    for (;;) {
      const char = this.take();
      if (char === '') return 'unbalanced quotes';
      if (char === '"') return undefined;
      if (char === '`') return 'command substitution (backticks) runs another command';
      if (char === '$') {
        const next = this.peek();
        if (next === '(') return 'command substitution $(…) runs another command';
        if (next === '{') return '${…} expansions are not classified';
        if (next === '[') return '$[…] is arithmetic in bash and literal in dash';
        this.add(char, true); // "$HOME" still expands
      } else if (char === '\\' && '$`"\\'.includes(this.source.charAt(this.index))) {
        this.add(this.source.charAt(this.index), false);
        this.index += 1;
      } else this.add(char, false);
    }
  }

  private dollar(): string | undefined {
    const next = this.peek();
    if (next === '(') return 'command substitution $(…) runs another command';
    if (next === '{') return '${…} expansions are not classified';
    if (next === '[') return '$[…] is arithmetic in bash and literal in dash';
    if (next === "'") return "$'…' is ANSI-C quoting in bash and a $ before a quoted string in dash";
    if (next === '"') return '$"…" is a translated string in bash and a $ before a quoted string in dash';
    return this.add('$', true);
  }

  /** A `#` that starts a word starts a comment: up to the newline, which still ends the command. */
  private comment(): undefined {
    const end = this.source.indexOf('\n', this.index);
    this.index = end < 0 ? this.source.length : end;
    return undefined;
  }

  private separator(needsCommandAfter: boolean): string | undefined {
    const reason = this.endWord();
    if (reason !== undefined) return reason;
    if (!this.commandHasContent) return 'an operator with no command before it';
    this.awaitingCommand = needsCommandAfter;
    return this.endCommand();
  }

  private redirect(operator: '>' | '<'): string | undefined {
    const reason = this.endWordBeforeRedirection();
    if (reason !== undefined) return reason;
    if (this.redirection !== undefined) return 'a redirection without a target';
    const next = this.peek();
    if (operator === '<') {
      if (next === '<') return 'here-documents and here-strings are not classified';
      if (next === '>') return '<> opens a file for writing';
      if (next === '(') return 'process substitution runs another command';
    } else if (next === '>' || next === '|') this.take();
    if (next === '&') this.take();
    this.redirection = next === '&' ? 'duplicate' : operator === '<' ? 'input' : 'output';
    this.commandHasContent = true;
    return undefined;
  }

  /**
   * Before `>` or `<`, a word of one unquoted digit is a file descriptor. More digits are a
   * descriptor in bash but an argument in dash, and `{name}` is bash's allocated descriptor.
   */
  private endWordBeforeRedirection(): string | undefined {
    // After `>&` the digits are the target (bash; dash refuses `2>&1>x` as a syntax error).
    if (this.redirection !== undefined) return this.endWord();
    const unquoted = this.text === this.active;
    if (this.inWord && unquoted && /^\d$/.test(this.text)) {
      this.text = '';
      this.active = '';
      this.inWord = false;
      return undefined;
    }
    if (this.inWord && unquoted && /^(?:\d+|\{[A-Za-z_]\w*\})$/.test(this.text))
      return `${this.text} before a redirection means different things in dash and bash`;
    return this.endWord();
  }

  private endWord(): string | undefined {
    if (!this.inWord) return undefined;
    const word: ShellWord = { text: this.text, active: this.active };
    this.text = '';
    this.active = '';
    this.inWord = false;
    const braces = whyBraceExpands(word);
    if (braces !== undefined) return braces;
    this.commandHasContent = true;
    this.awaitingCommand = false;
    const redirection = this.redirection;
    this.redirection = undefined;
    if (redirection === undefined) this.words.push(word);
    else if (redirection === 'input') this.words.push({ ...word, redirectedInput: true });
    else return whyRedirectionWrites(redirection, word);
    return undefined;
  }

  private endCommand(): string | undefined {
    if (this.redirection !== undefined) return 'a redirection without a target';
    if (this.words.length > 0) this.commands.push(this.words);
    this.words = [];
    this.commandHasContent = false;
    return undefined;
  }
}

/**
 * Output may go to /dev/null, and `>&N` / `<&N` / `>&-` only duplicate or close descriptors:
 * `>&word` with any other word writes the file `word` in bash.
 */
function whyRedirectionWrites(redirection: 'output' | 'duplicate', target: ShellWord): string | undefined {
  if (redirection === 'duplicate')
    return /^(?:\d+|-)$/.test(target.text) && target.text === target.active
      ? undefined
      : `${target.text} after >& or <& is not a file descriptor (bash opens it as a file)`;
  return target.text === '/dev/null' ? undefined : 'output redirection (>) can write files';
}
