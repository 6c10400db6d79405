/**
 * Loop detection, a hard guard (issue 10): the same tool with the same normalized input, and the
 * same result, repeated within a window of recent calls. A reflection prompt is a soft constraint
 * a weak model ignores (seed 003); a repeated identical call with an identical result is plain
 * evidence, so the harness names it, and if the model carries on, stops it.
 *
 * Pure and deterministic: the workflow feeds it the calls of each turn in the model's order.
 */

export interface LoopSettings {
  enabled: boolean;
  /** How many of the latest executed calls are compared. */
  window: number;
  /** Identical calls within the window that earn a direct prompt. */
  warnAt: number;
  /** Identical calls within the window that stop the goal (or fail the plan step). */
  stopAt: number;
  /** Count a repeat only when the result is the same too (a poll whose answer changes is no loop). */
  matchResults: boolean;
}

export const DEFAULT_LOOP_SETTINGS: LoopSettings = {
  enabled: true,
  window: 10,
  warnAt: 3,
  stopAt: 5,
  matchResults: true,
};

/** One executed call as the loop guard remembers it (kept in workflow state, so small). */
export interface RememberedCall {
  /** Tool name plus normalized input: what makes two calls "the same call". */
  key: string;
  /** A digest of the result text; equal digests mean the same result. */
  result: string;
  summary: string;
  /** The goal's tool-call count when the call ran (1-based). */
  atToolCall: number;
}

/** Input fields that say why a call is made, not what it does: two calls differing only here are the same call. */
const NON_IDENTIFYING_FIELDS: ReadonlySet<string> = new Set(['hypothesis']);

/**
 * A stable text for a tool input: object keys sorted, strings trimmed with inner whitespace
 * collapsed, and the hypothesis left out. `{path: "a.ts "}` and `{ path: 'a.ts' }` are one call.
 */
export function normalizedInput(input: unknown): string {
  return JSON.stringify(normalize(input, true));
}

function normalize(value: unknown, topLevel: boolean): unknown {
  if (typeof value === 'string') return value.trim().replace(/\s+/g, ' ');
  if (Array.isArray(value)) return value.map((item) => normalize(item, false));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([key, item]) => item !== undefined && !(topLevel && NON_IDENTIFYING_FIELDS.has(key)))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => [key, normalize(item, false)] as const);
    return Object.fromEntries(entries);
  }
  return value ?? null;
}

export function callKey(toolName: string, input: unknown): string {
  return `${toolName} ${normalizedInput(input)}`;
}

/**
 * FNV-1a (32 bit) of the text plus its length, as hex: enough to tell results apart without
 * keeping them in workflow state. Not cryptographic; it needs no Node built-ins (workflow code).
 */
export function resultDigest(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${hash.toString(16).padStart(8, '0')}:${text.length}`;
}

export type LoopVerdict =
  | { kind: 'none' }
  | {
      kind: 'warn' | 'stop';
      key: string;
      summary: string;
      repeats: number;
      window: number;
      firstAtToolCall: number;
      /** Every repeat gave the same result (always so when results are matched). */
      sameResult: boolean;
    };

/**
 * After `latest` joined `recent` (the window's calls, oldest first, `latest` last): how many
 * calls in the window are the same as `latest`, and whether that earns a prompt or a stop.
 * `warnedKeys` are calls the model was already told about: those stop at `stopAt`; a call never
 * warned about is warned first, even if it jumped past `stopAt` in one turn of parallel calls.
 */
export function detectLoop(options: {
  recent: readonly RememberedCall[];
  settings: LoopSettings;
  warnedKeys: readonly string[];
  /**
   * Warned keys whose warning the model has read (it has had a turn since): only those can stop.
   * A call warned about in this very turn (a flood of parallel repeats) is not stopped yet.
   * Defaults to `warnedKeys`.
   */
  deliveredKeys?: readonly string[];
  /**
   * The tool-call count of the latest new lasting state: calls at or before it are not repeated
   * by later ones (re-running the tests after an edit, re-reading a file after editing it).
   */
  sinceToolCall?: number;
}): LoopVerdict {
  const { recent, settings } = options;
  const latest = recent[recent.length - 1];
  if (!settings.enabled || latest === undefined) return { kind: 'none' };
  const since = options.sinceToolCall ?? Number.NEGATIVE_INFINITY;
  const same = recent
    .slice(-settings.window)
    .filter((call) => call.atToolCall > since || call === latest)
    .filter((call) => call.key === latest.key && (!settings.matchResults || call.result === latest.result));
  const repeats = same.length;
  const found = {
    key: latest.key,
    summary: latest.summary,
    repeats,
    window: settings.window,
    firstAtToolCall: same[0]?.atToolCall ?? latest.atToolCall,
    sameResult: same.every((call) => call.result === latest.result),
  };
  const warned = options.warnedKeys.includes(latest.key);
  const delivered = (options.deliveredKeys ?? options.warnedKeys).includes(latest.key);
  if (warned && delivered && repeats >= settings.stopAt) return { kind: 'stop', ...found };
  if (!warned && repeats >= settings.warnAt) return { kind: 'warn', ...found };
  return { kind: 'none' };
}

/** The window as the state keeps it: the newest `window` calls. */
export function remember(
  recent: readonly RememberedCall[],
  call: RememberedCall,
  window: number,
): RememberedCall[] {
  return [...recent, call].slice(-Math.max(1, window));
}

/** Next actions for a successful call repeated unchanged (a failed one brings the tool's own). */
export const REPEATED_SUCCESS_CANDIDATES: readonly string[] = [
  'Use the result you already have: it has not changed since the first call',
  'Make a different call that moves the task forward (another input, another tool, or an edit)',
  'Give your final answer, or say in plain text what blocks the task',
];

/**
 * The direct prompt after a loop is detected: it names the repeated call and how often it ran,
 * and lists next actions (the tool's own for a failing call). Tool- and ecosystem-neutral.
 */
export function loopPrompt(options: {
  summary: string;
  repeats: number;
  window: number;
  sameResult: boolean;
  failed: boolean;
  candidates: readonly string[];
  stopAt: number;
  /** What happens if it goes on: "stops the goal as stuck", "fails the plan step". */
  consequence: string;
}): string {
  const candidates = options.candidates.length > 0 ? options.candidates : REPEATED_SUCCESS_CANDIDATES;
  const result = options.sameResult
    ? options.failed
      ? ', failing the same way each time'
      : ' with the same result each time'
    : '';
  // Output that moved between calls may be a poll: it is not told its repeats change nothing.
  const advice = options.sameResult
    ? 'Repeating it will not change the outcome. Do not make this call again. Instead:'
    : 'Its output changed between calls. If you are waiting for something, sleep between checks (`sleep 10; <check>`): keel bounds a wait by its time, not by its repeats. Otherwise:';
  return [
    `[Loop detected] You have made the same call ${options.repeats} times in your last ${options.window} tool calls${result}:`,
    `  ${options.summary}`,
    advice,
    ...candidates.map((candidate, index) => `${index + 1}. ${candidate}`),
    `If this call is repeated until it has run ${options.stopAt} times, keel ${options.consequence}.`,
  ].join('\n');
}

/** The longest repeated sequence of calls the cycle detector looks for (issue 22). */
export const DEFAULT_MAX_CYCLE_LENGTH = 4;

export interface CycleFound {
  /** Calls in one round of the cycle (2 to the maximum). */
  length: number;
  /** The cycle however it is entered: its calls in a fixed rotation, as one string. */
  signature: string;
  /** The calls of the latest round, oldest first, for the prompt. */
  summaries: string[];
}

/**
 * A cycle: the latest calls are two identical rounds of 2 to `maxLength` different calls (each
 * with the same result when results are matched) — an edit rotation debug → info → warn → debug,
 * or read A, read B, read A, read B. One call repeated is the repeat counter's case, not a cycle.
 * The shortest cycle wins (A B A B A B A B is a 2-cycle, not a 4-cycle).
 */
export function detectCycle(options: {
  recent: readonly RememberedCall[];
  maxLength: number;
  matchResults: boolean;
}): CycleFound | undefined {
  const { recent, matchResults } = options;
  const identity = (call: RememberedCall) => (matchResults ? `${call.key}⇒${call.result}` : call.key);
  for (let length = 2; length <= options.maxLength; length++) {
    if (recent.length < 2 * length) break;
    const earlier = recent.slice(-2 * length, -length).map(identity);
    const latest = recent.slice(-length);
    const ids = latest.map(identity);
    if (!ids.every((id, index) => id === earlier[index])) continue;
    if (new Set(ids).size < 2) continue;
    return {
      length,
      signature: canonicalRotation(ids).join('\u0001'),
      summaries: latest.map((call) => call.summary),
    };
  }
  return undefined;
}

/** The rotation that sorts first: the same cycle entered anywhere has one signature. */
function canonicalRotation(ids: readonly string[]): string[] {
  let best: string[] | undefined;
  for (let start = 0; start < ids.length; start++) {
    const rotation = [...ids.slice(start), ...ids.slice(0, start)];
    if (best === undefined || rotation.join('\u0001') < best.join('\u0001')) best = rotation;
  }
  return best ?? [];
}

/** The direct prompt after a cycle is detected: it names the rounds' calls. */
export function cyclePrompt(options: {
  summaries: readonly string[];
  rounds: number;
  consequence: string;
}): string {
  return [
    `[Cycle detected] Your last ${options.summaries.length * options.rounds} tool calls went ${options.rounds} times round the same ${options.summaries.length} calls, with the same results each round:`,
    ...options.summaries.map((summary) => `  ${summary}`),
    'Going round again will not change the outcome. Do not repeat this sequence. Instead:',
    '1. Use the results you already have: they did not change between rounds',
    '2. Make a call that moves the task forward (another input, another tool, or a different edit)',
    '3. Give your final answer, or say in plain text what blocks the task',
    `If the same round is made once more, keel ${options.consequence}.`,
  ].join('\n');
}
