/**
 * The whole of a tool call, as a human deciding on it must read it. A call's label (callSummary, a
 * tool's own summarize) is cut to one short line, and an approver who sees only the label can be
 * shown a harmless `echo` while the rest of the command deletes a directory. This text is never
 * cut, and nothing in it can hide: characters a terminal or a web page would not show as
 * themselves are written as escapes, and a long run of blanks as its count. Pure and
 * deterministic: the workflow renders it from recorded input, and the CLI renders the same.
 */

/** Blank columns in a row beyond which the run is shown as a count, so it cannot push text out of view. */
const LONGEST_BLANK_RUN = 16;
const TAB_COLUMNS = 8;

/** Starts a line keel wrapped (see goal-details); escaped in the text, so only keel can write it. */
export const CONTINUATION_MARK = '↪';

/**
 * What must not reach a screen as itself: controls (Cc: `\r` returns the cursor, `\x1b` starts a
 * terminal escape sequence, backspace erases), format characters (Cf: bidi overrides reorder what
 * follows, zero-width ones hide between letters), every space but the plain one (a no-break space
 * looks like a word break and is none to a shell), line and paragraph separators, surrogates and
 * private or unassigned code points, other default-ignorable ones (Hangul fillers, variation
 * selectors), and the marks this renderer writes itself.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Default_Ignorable_Code_Point}⟨⟩↪]/gu;

/**
 * The call's text: a `command` (run_command) verbatim, with any other input after it on a comment
 * line; otherwise the whole input as indented JSON, keys in the order given. Newlines and tabs
 * stay (the text is shown as a block); see visibleText for everything else.
 */
export function callText(input: unknown): string {
  const command = isRecord(input) ? input.command : undefined;
  if (isRecord(input) && typeof command === 'string') {
    const { command: _command, ...rest } = input;
    const other = Object.keys(rest).length === 0 ? '' : `\n# other input: ${JSON.stringify(rest)}`;
    return visibleText(`${command}${other}`);
  }
  return visibleText(JSON.stringify(input, null, 2) ?? String(input));
}

/**
 * The text with nothing hidden: `\r`, `\x1b`, other controls as `\u0008`; format, space-like and
 * other invisible characters as `\u{202E}`; a run of blanks wider than 16 columns as
 * `⟨40 spaces⟩`. Newlines and tabs stay unless `oneLine` (then `\n`, `\t`). Backslashes are left
 * as written, so a command reads as it was typed: `\r` in the text may be those two characters.
 */
export function visibleText(text: string, options: { oneLine?: boolean } = {}): string {
  const oneLine = options.oneLine === true;
  const escaped = text.replace(HIDDEN, (character) => escape(character, oneLine));
  return escaped.replace(/[ \t]+/g, (run) => (columns(run) > LONGEST_BLANK_RUN ? blankRunMark(run) : run));
}

/**
 * JSON for a terminal: JSON.stringify leaves DEL, C1 controls and format characters as they are;
 * here they are `\uXXXX` escapes, so the document parses to the same value and shows everything.
 */
export function visibleJson(value: unknown): string {
  const json = JSON.stringify(value, null, 2) ?? 'null';
  return json.replace(HIDDEN, (character) => {
    // Its own indentation and line breaks stay, and the marks are only hidden in a call's text.
    if (character === ' ' || character === '\n' || '⟨⟩↪'.includes(character)) return character;
    let units = '';
    for (let index = 0; index < character.length; index++)
      units += `\\u${character.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`;
    return units;
  });
}

function escape(character: string, oneLine: boolean): string {
  switch (character) {
    case ' ':
      return ' ';
    case '\n':
      return oneLine ? '\\n' : '\n';
    case '\t':
      return oneLine ? '\\t' : '\t';
    case '\r':
      return '\\r';
    case '\x1b':
      return '\\x1b';
  }
  const code = character.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  // Controls (C0, DEL, C1) in the \uXXXX form JavaScript and JSON use; anything else as \u{…}.
  return code <= 0x9f ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`;
}

function columns(run: string): number {
  let width = 0;
  for (const character of run) width += character === '\t' ? TAB_COLUMNS : 1;
  return width;
}

function blankRunMark(run: string): string {
  const tabs = run.split('\t').length - 1;
  const spaces = run.length - tabs;
  const parts = [
    ...(spaces > 0 ? [`${spaces} space${spaces === 1 ? '' : 's'}`] : []),
    ...(tabs > 0 ? [`${tabs} tab${tabs === 1 ? '' : 's'}`] : []),
  ];
  return `⟨${parts.join(' and ')}⟩`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
