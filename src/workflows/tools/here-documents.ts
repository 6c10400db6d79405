/**
 * sh's here-documents (`cat > fix.py << 'EOF'` … `EOF`), taken out of a command line: the lines
 * between the mark and its delimiter are the text a program reads on its input, not commands, and
 * the delimiter is no file. Models write files this way all the time (the recorded trajectories:
 * `cat > test_fix.py << 'EOF'` hundreds of times), so whoever reads a command's words must not take
 * a script's `import sys` or the word `EOF` for what the command is about. Pure and line-based, as
 * sh reads them: a mark inside quotes or a comment opens nothing.
 */

export interface HereDocument {
  /** The command line the mark stands on, without its marks and delimiters. */
  readonly line: string;
  /** The document's lines, up to its delimiter (or to the end, where none closes it). */
  readonly body: string;
}

export interface SeparatedCommand {
  /** The command line without here-documents: their marks, delimiters and lines left out. */
  readonly command: string;
  readonly documents: readonly HereDocument[];
}

interface Mark {
  readonly delimiter: string;
  /** `<<-`: leading tabs of the document's lines, the delimiter's included, are stripped. */
  readonly stripsTabs: boolean;
}

/** Characters that end an unquoted word: blanks and sh's operators. */
const WORD_END = /[\s;&|<>()]/;

export function separateHereDocuments(command: string): SeparatedCommand {
  const lines = command.split('\n');
  const kept: string[] = [];
  const documents: HereDocument[] = [];
  let index = 0;
  while (index < lines.length) {
    const { text, marks } = readMarks(lines[index] ?? '');
    kept.push(text);
    index += 1;
    // The documents follow their line in the order of their marks, each up to its delimiter.
    for (const { delimiter, stripsTabs } of marks) {
      const body: string[] = [];
      while (index < lines.length) {
        const line = lines[index] ?? '';
        index += 1;
        if ((stripsTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
        body.push(line);
      }
      documents.push({ line: text, body: body.join('\n') });
    }
  }
  return { command: kept.join('\n'), documents };
}

/** The here-document marks of one line (`<<EOF`, `<<- 'END'`, `<<"x"`), and the line without them. */
function readMarks(line: string): { text: string; marks: Mark[] } {
  const marks: Mark[] = [];
  let text = '';
  let quote: "'" | '"' | undefined;
  let index = 0;
  while (index < line.length) {
    const char = line[index] ?? '';
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"') {
        text += char;
        index += 1;
        text += line[index] ?? '';
        index += 1;
        continue;
      }
      text += char;
      index += 1;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === '\\') {
      text += char + (line[index + 1] ?? '');
      index += 2;
      continue;
    } else if (char === '#' && (index === 0 || /\s/.test(line[index - 1] ?? ''))) {
      // A comment runs to the end of the line: a mark in it opens nothing.
      return { text: text + line.slice(index), marks };
    } else if (line.startsWith('<<<', index)) {
      // A here-string: the word after it is the input itself, on this line.
      text += '<<<';
      index += 3;
      continue;
    } else if (line.startsWith('<<', index)) {
      const mark = readDelimiter(line, index + 2);
      if (mark !== undefined) {
        marks.push(mark);
        index = mark.end;
        continue;
      }
    }
    text += char;
    index += 1;
  }
  return { text, marks };
}

/** The delimiter after `<<` (at `start`): quotes removed, as sh compares it with each line. */
function readDelimiter(line: string, start: number): (Mark & { end: number }) | undefined {
  const stripsTabs = line[start] === '-';
  let index = start + (stripsTabs ? 1 : 0);
  while (line[index] === ' ' || line[index] === '\t') index += 1;
  let delimiter = '';
  let word = false;
  while (index < line.length && !WORD_END.test(line[index] ?? '')) {
    const char = line[index] ?? '';
    word = true;
    if (char === "'" || char === '"') {
      const close = line.indexOf(char, index + 1);
      if (close < 0) return undefined;
      delimiter += line.slice(index + 1, close);
      index = close + 1;
    } else if (char === '\\') {
      delimiter += line[index + 1] ?? '';
      index += 2;
    } else {
      delimiter += char;
      index += 1;
    }
  }
  // `<<` with no word after it is a syntax error in sh: nothing to separate.
  return word ? { delimiter, stripsTabs, end: index } : undefined;
}
