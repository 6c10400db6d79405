/**
 * A small sh tokenizer for the command classifier: splits a command line into simple commands of
 * words, following sh quoting, and refuses what it cannot see through (substitutions, subshells,
 * redirections that write). Pure: the workflow classifies with it, the fallback runner reuses it.
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

export const QUOTED_CHARACTER = '\u0000';

export type SplitResult = { ok: true; commands: ShellWord[][] } | { ok: false; reason: string };

/** Output redirections that cannot write a file: fd duplication (2>&1, >&-) and /dev/null. */
const HARMLESS_REDIRECTION = /^(?:&\d+|&-|>?[ \t]*\/dev\/null(?=$|[\s;|&]))/;

/**
 * Splits on ; newline | || && into simple commands of words, following sh quoting.
 * Fails on anything whose effect it cannot see from the words.
 */
export function splitSimpleCommands(command: string): SplitResult {
  const commands: ShellWord[][] = [];
  let words: ShellWord[] = [];
  let text = '';
  let active = '';
  let inWord = false; // distinguishes an empty quoted word ('') from no word at all
  let nextIsInput = false; // the word after `<` is a file the shell opens for reading
  let quote: "'" | '"' | undefined;
  const add = (char: string, isActive: boolean): void => {
    text += char;
    active += isActive ? char : QUOTED_CHARACTER;
  };
  const endWord = (): void => {
    if (inWord) {
      words.push(nextIsInput ? { text, active, redirectedInput: true } : { text, active });
      nextIsInput = false;
    }
    text = '';
    active = '';
    inWord = false;
  };
  const dropDigitWord = (): boolean => {
    // A digit word glued to `>` or `<` is a file descriptor number, not an argument.
    if (!inWord || !/^\d+$/.test(text)) return false;
    text = '';
    active = '';
    inWord = false;
    return true;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
    nextIsInput = false;
  };
  const fail = (reason: string): SplitResult => ({ ok: false, reason });

  for (let index = 0; index < command.length; index += 1) {
    const char = command.charAt(index);
    const next = command.charAt(index + 1);
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else add(char, false);
      continue;
    }
    // Substitutions run another command, even inside double quotes.
    if (char === '`') return fail('command substitution (backticks) runs another command');
    if (char === '$' && next === '(') return fail('command substitution $(…) runs another command');
    if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && '$`"\\\n'.includes(next) && next !== '') {
        add(next, false);
        index += 1;
      } else add(char, char === '$'); // "$HOME" still expands
      continue;
    }
    switch (char) {
      case '\\':
        if (next === '') return fail('the command ends with a backslash');
        add(next, false);
        inWord = true;
        index += 1;
        break;
      case "'":
      case '"':
        quote = char;
        inWord = true;
        break;
      case ' ':
      case '\t':
        endWord();
        break;
      case '\n':
      case ';':
        endCommand();
        break;
      case '|':
        if (next === '&') return fail('|& is not plain sh');
        if (next === '|') index += 1;
        endCommand();
        break;
      case '&':
        if (next !== '&') return fail('& runs a background job (or redirects output)');
        index += 1;
        endCommand();
        break;
      case '(':
      case ')':
        return fail('subshells are not classified');
      case '>': {
        if (!dropDigitWord()) endWord();
        const harmless = HARMLESS_REDIRECTION.exec(command.slice(index + 1));
        if (harmless === null) return fail('output redirection (>) can write files');
        index += harmless[0].length;
        break;
      }
      case '<':
        if (next === '(' || next === '>') return fail('process substitution or <> can write or execute');
        if (next === '<') return fail('here-documents are not classified');
        if (!dropDigitWord()) endWord();
        nextIsInput = true;
        break;
      default:
        add(char, true);
        inWord = true;
    }
  }
  if (quote !== undefined) return fail('unbalanced quotes');
  endCommand();
  return { ok: true, commands };
}
