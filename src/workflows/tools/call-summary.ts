import { shorten } from './suggest-call';

/**
 * A one-line label of a call from its tool's name and input alone, e.g.
 * `read_file: src/app.ts offset=40 limit=20` or `search: src pattern="TODO"`. The workflow renders
 * it for the calls it prepares without asking the worker (whose tools have labels of their own);
 * it names the activity in the Web UI and is what the ledger, the guards and their prompts quote.
 * A `path` leads, bare; the hypothesis is left out (the model's expectation, not the call); other
 * fields follow in the model's order as key=value. Deterministic: the input is recorded history.
 */
export function callSummary(toolName: string, input: unknown): string {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return toolName;
  const { hypothesis: _hypothesis, path, ...rest } = input as Record<string, unknown>;
  const parts = typeof path === 'string' ? [path] : [];
  if (path !== undefined && typeof path !== 'string') parts.push(`path=${valueText(path)}`);
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) parts.push(`${key}=${valueText(value)}`);
  }
  return parts.length === 0 ? toolName : `${toolName}: ${shorten(parts.join(' '), 120)}`;
}

/** Strings quoted (a pattern's spaces stay visible), anything long cut. */
function valueText(value: unknown): string {
  return shorten(JSON.stringify(value) ?? String(value), 60);
}
