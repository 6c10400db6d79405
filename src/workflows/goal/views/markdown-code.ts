/** Markdown code in the Web UI's details: inline and fenced, whatever backticks the text holds. */

/**
 * Inline code that survives backticks in the text: CommonMark lets the delimiter be any run of
 * backticks longer than the longest run inside, with a space of padding when the text touches one.
 */
export function inlineCode(text: string): string {
  const fence = '`'.repeat(longestBacktickRun(text) + 1);
  const padding = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${padding}${text}${padding}${fence}`;
}

/**
 * A fenced code block nothing in the text can end early: the fence is longer than any run of
 * backticks inside, so no line of the text can close it (CommonMark, 4.5).
 */
export function codeBlock(text: string): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}\n${text}\n${fence}`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}
