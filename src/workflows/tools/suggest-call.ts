/**
 * Renders a concrete tool call as candidate-next-action text, e.g. `read_file {"path":"a.ts"}`,
 * so a failure can hand the model something it can issue as-is rather than prose advice.
 */
export function suggestCall(toolName: string, input: Readonly<Record<string, unknown>>): string {
  return `${toolName} ${JSON.stringify(input)}`;
}

/** Keeps one-line labels short: whitespace collapsed, cut with an ellipsis past `maximum` characters. */
export function shorten(text: string, maximum: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= maximum ? oneLine : `${oneLine.slice(0, maximum - 1)}…`;
}
