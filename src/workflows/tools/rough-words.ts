/**
 * A command line the tokenizer refuses (substitutions, redirections, loops), split the way sh
 * would at least split it: into commands at `;`, newlines, `&&`, `||` and `|`, and into words at
 * blanks, with quotes and backslashes followed. A quoted string is one word whatever it holds:
 * `python -c "…"` with a multi-line script is one command of three words, not a command per line
 * of the script. Nothing is expanded; operators and redirection marks stay in the words, for the
 * caller to read.
 */
export function splitRoughly(command: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  // A word can be empty and still be one (`''`), so whether one is open is kept apart.
  let inWord = false;
  let quote: "'" | '"' | undefined;
  // Whether the last character was an unquoted `>`: `>|` is a redirection, `">"|` a pipe.
  let afterGreater = false;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index] ?? '';
    const greaterBefore = afterGreater;
    afterGreater = false;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      // Inside double quotes a backslash escapes only these (sh's rule); elsewhere it stays.
      else if (char === '\\' && quote === '"' && /[\\"$`\n]/.test(command[index + 1] ?? '')) {
        index += 1;
        word += command[index] ?? '';
      } else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\') {
      index += 1;
      // A backslash before a newline joins the lines.
      if (command[index] !== '\n') word += command[index] ?? '';
      inWord = true;
    } else if (char === '\n' || char === ';') endCommand();
    else if (command.startsWith('&&', index) || command.startsWith('||', index)) {
      endCommand();
      index += 1;
    } else if (char === '|' && !greaterBefore) {
      // `>|` (write even with noclobber) is a redirection, not a pipe.
      endCommand();
    } else if (char === ' ' || char === '\t') endWord();
    else {
      word += char;
      inWord = true;
      afterGreater = char === '>';
    }
  }
  endCommand();
  return commands;
}
