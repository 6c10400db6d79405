import type { z } from 'zod';

/**
 * One parser for every structured LLM output (plans, reflections, beliefs, reviews). Models
 * answer in three ways — clean JSON, JSON wrapped in prose / code fences / reasoning, or prose
 * only — and this handles all three without throwing: a model's mistake is data for the caller
 * (retry, fall back, count it in the raw-fallback rate), never an exception that kills a goal.
 *
 * Pure and deterministic: it runs inside workflow code.
 */

/** How the value was obtained, best first. */
export const ParseMethod = {
  /** The whole (trimmed) output was one JSON object. */
  Json: 'json',
  /** A JSON object found inside prose, code fences or after reasoning. */
  Embedded: 'embedded',
  /** No usable JSON: the prose itself became the value (rawFallback). */
  Prose: 'prose',
} as const;
export type ParseMethod = (typeof ParseMethod)[keyof typeof ParseMethod];

export interface ParseStructuredOutputOptions<Schema extends z.ZodType> {
  raw: string;
  schema: Schema;
  /** Kinds the caller accepts; any other (or a missing) `kind` becomes `fallbackKind`. */
  allowedKinds?: readonly string[];
  /** The kind used for unknown kinds and for the prose fallback `{ kind, text }`. */
  fallbackKind?: string;
  /** Fields tried, in order, to fill a missing `text` field. Default: content, then message. */
  textFields?: readonly string[];
}

export type StructuredOutputResult<Value> =
  | { ok: true; value: Value; rawFallback: boolean; method: ParseMethod }
  | {
      ok: false;
      /** One line naming every zod issue, fit for a log line or a retry prompt. */
      error: string;
      issues: readonly z.core.$ZodIssue[];
      rawFallback: boolean;
      method: ParseMethod;
      /** The object that failed validation, after kind/text normalisation. */
      candidate: unknown;
    };

const DEFAULT_TEXT_FIELDS = ['content', 'message'] as const;

export function parseStructuredOutput<Schema extends z.ZodType>(
  options: ParseStructuredOutputOptions<Schema>,
): StructuredOutputResult<z.output<Schema>> {
  const clean = parseJsonObject(options.raw.trim());
  if (clean !== undefined) return validate(options, clean, ParseMethod.Json);

  const text = stripCodeFences(stripThinkBlocks(options.raw));
  const embedded = findLastJsonObject(text);
  if (embedded !== undefined) return validate(options, embedded, ParseMethod.Embedded);

  // The prose is the answer. When reasoning swallowed everything, its text is still a better
  // fallback than an empty string.
  const prose = text.trim() || options.raw.replace(THINK_TAG, '').trim();
  const value: Record<string, unknown> = { text: prose };
  if (options.fallbackKind !== undefined) value.kind = options.fallbackKind;
  return validate(options, value, ParseMethod.Prose);
}

/** Share of outputs that needed the prose fallback; 0 when there were none. */
export function rawFallbackRate(flags: readonly boolean[]): number {
  if (flags.length === 0) return 0;
  return flags.filter(Boolean).length / flags.length;
}

const THINK_TAG = /<\/?think>/gi;
const CLOSED_THINK_BLOCK = /<think>[\s\S]*?<\/think>/gi;

/**
 * Removes model reasoning. Closed `<think>…</think>` blocks go entirely: JSON inside them is a
 * draft, not the answer. A stray `</think>` with no opening tag (templates that put `<think>` in
 * the prompt) drops everything before it. An unclosed `<think>` cannot say where reasoning ends:
 * if a JSON object follows it, only the tag is removed so the last object (the answer, which
 * comes after the reasoning) is still found; if none follows, the rest of the text is reasoning
 * and is dropped.
 */
export function stripThinkBlocks(text: string): string {
  let result = text.replace(CLOSED_THINK_BLOCK, '');
  const strayClose = result.search(/<\/think>/i);
  if (strayClose >= 0) result = result.slice(strayClose + '</think>'.length);
  const unclosed = result.search(/<think>/i);
  if (unclosed < 0) return result;
  const before = result.slice(0, unclosed);
  const after = result.slice(unclosed + '<think>'.length);
  return findLastJsonObject(after) === undefined ? before : before + after;
}

/** Removes ``` fence lines (with or without a language) and keeps what they enclosed. */
export function stripCodeFences(text: string): string {
  return text.replace(/^[ \t]*```[\w-]*[ \t]*$/gm, '');
}

/**
 * Bounds the brace matching. Each unparseable candidate costs a scan to its end, so text full of
 * unclosed `{` is quadratic; workflow code must not stall (Temporal fails a workflow task that
 * runs for seconds). A few million steps take milliseconds, and past them the best object found
 * so far is returned: the limit depends only on the text, so replay stays deterministic.
 */
const MAX_SCAN_STEPS = 5_000_000;

/**
 * The last balanced `{…}` in the text that parses as a JSON object. Brace matching is
 * string-aware (braces inside strings, escaped quotes), but only inside a candidate object:
 * quotes in the surrounding prose are not JSON and must not derail the scan. A candidate that
 * does not parse (e.g. `{see below}`) is skipped and the scan resumes just after its `{`, so a
 * valid object nested in or following it is still found.
 */
export function findLastJsonObject(text: string): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  const budget = { steps: MAX_SCAN_STEPS };
  let start = text.indexOf('{');
  while (start >= 0 && budget.steps > 0) {
    const end = matchingBrace(text, start, budget);
    const parsed = end === undefined ? undefined : parseJsonObject(text.slice(start, end + 1));
    if (parsed !== undefined && end !== undefined) {
      found = parsed;
      start = text.indexOf('{', end + 1);
    } else {
      start = text.indexOf('{', start + 1);
    }
  }
  return found;
}

/** Index of the `}` closing the `{` at `start`; undefined when it never closes (or the budget ran out). */
function matchingBrace(text: string, start: number, budget: { steps: number }): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    if (--budget.steps < 0) return undefined;
    const character = text[index];
    if (inString) {
      // Skip the escaped character, so \" does not end the string and \\ does not escape a quote.
      if (character === '\\') index++;
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
    } else if (character === '{') {
      depth++;
    } else if (character === '}') {
      depth--;
      if (depth === 0) return index;
    }
  }
  return undefined;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validate<Schema extends z.ZodType>(
  options: ParseStructuredOutputOptions<Schema>,
  value: Record<string, unknown>,
  method: ParseMethod,
): StructuredOutputResult<z.output<Schema>> {
  const rawFallback = method === ParseMethod.Prose;
  const candidate = normalise(options, value);
  const result = options.schema.safeParse(candidate);
  if (result.success) return { ok: true, value: result.data, rawFallback, method };
  const issues = result.error.issues;
  return { ok: false, error: describeIssues(issues), issues, rawFallback, method, candidate };
}

/** Repairs the two mistakes models make most: an invented kind, and text under another name. */
function normalise<Schema extends z.ZodType>(
  options: ParseStructuredOutputOptions<Schema>,
  value: Record<string, unknown>,
): Record<string, unknown> {
  const result = { ...value };
  const { allowedKinds, fallbackKind } = options;
  if (allowedKinds && fallbackKind !== undefined) {
    const kind = result.kind;
    if (typeof kind !== 'string' || !allowedKinds.includes(kind)) result.kind = fallbackKind;
  }
  if (typeof result.text !== 'string') {
    for (const field of options.textFields ?? DEFAULT_TEXT_FIELDS) {
      const alternative = result[field];
      if (typeof alternative === 'string') {
        result.text = alternative;
        break;
      }
    }
  }
  return result;
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}
