import { modelLimits } from './model-limits';
import type { TranscriptMessage } from './transcript';

/**
 * The context budget in tokens (issue 42): characters say little about what a request costs of
 * a model's window. English prose is about four characters a token, minified JSON and base64
 * about two, Chinese text about one; a character budget that is safe for the first overflows the
 * window with the others. So the workflow counts tokens the way the API does where it can: the
 * last answer's usage says exactly how many tokens its request held (input of every kind, read
 * from the cache or not), its output is known too, and only what was added since is estimated,
 * here, conservatively. Pure and deterministic: it runs in workflow code and replays the same.
 */

/** What the API said of the last request: its tokens, and the transcript it was measured on. */
export interface ContextMeasure {
  /** Input tokens of every kind of the last request, plus its answer's output tokens. */
  readonly tokens: number;
  /** Messages of the transcript the measure covers (the request's and the answer). */
  readonly messages: number;
  /** Serialized characters of those messages: the measure holds only while they are unchanged. */
  readonly chars: number;
}

/**
 * The window assumed for a model keel does not know (another provider's id, a newer model): the
 * smallest window of the current Claude models. `model.contextWindowTokens` overrides it.
 */
export const UNKNOWN_MODEL_WINDOW_TOKENS = 200_000;

/** Whitespace-free runs at least this long with this many distinct characters are dense. */
const DENSE_RUN_CHARS = 32;
const DENSE_RUN_DISTINCT = 16;
/**
 * Characters a token, on the safe side of what tokenizers do: ordinary text and code about four
 * (three here), dense runs (minified JSON, base64, hashes glued together) about two (one and a
 * half here), and every UTF-16 unit beyond ASCII (CJK text, emoji) a token of its own.
 */
const CHARS_PER_TOKEN_PLAIN = 3;
const CHARS_PER_TOKEN_DENSE = 1.5;

/** A conservative token estimate of a text: never far below what a tokenizer would count. */
export function estimateTokens(text: string): number {
  let plain = 0;
  let dense = 0;
  let wide = 0;
  for (const run of text.split(/\s/)) {
    const runWide = countWide(run);
    const ascii = run.length - runWide;
    wide += runWide;
    if (ascii >= DENSE_RUN_CHARS && new Set(run).size >= DENSE_RUN_DISTINCT) dense += ascii;
    else plain += ascii;
  }
  return Math.ceil(plain / CHARS_PER_TOKEN_PLAIN + dense / CHARS_PER_TOKEN_DENSE) + wide;
}

/** UTF-16 units beyond ASCII: a surrogate pair (an emoji) is two. */
function countWide(run: string): number {
  return run.replace(/[^\u0080-\uffff]/g, '').length;
}

/**
 * Token estimates of transcript messages, by message object (the goal's messages are never
 * changed in place; see context-budget.ts's sizes), so a long goal estimates each message once.
 */
const estimatedTokens = new WeakMap<TranscriptMessage, number>();
const serializedChars = new WeakMap<TranscriptMessage, number>();

/**
 * An image costs what its pixels do, not its base64: about (width × height) / 750 tokens once the
 * API has scaled it to fit 1568 px, so at most about 1,600
 * (platform.claude.com/docs/en/build-with-claude/vision, "Calculate image costs").
 */
export const IMAGE_TOKENS = 1600;
/**
 * A PDF costs 1,500–3,000 tokens a page and an image of each page
 * (platform.claude.com/docs/en/build-with-claude/pdf-support); its pages are not known here, so
 * a token for every four bytes, and at least a page's worth. Rough on purpose: the next answer's
 * usage replaces the estimate with the API's own count.
 */
export const PDF_TOKENS_MIN = 4600;
const PDF_BYTES_PER_TOKEN = 4;

function messageTokens(message: TranscriptMessage): number {
  return estimatedTokens.get(message) ?? estimateMessage(message);
}

function estimateMessage(message: TranscriptMessage): number {
  let media = 0;
  const text = JSON.stringify(message, function (this: { type?: unknown }, key, value: unknown) {
    // Thinking's signatures and redacted thinking are not text the window holds, and media is
    // counted by what it is, not by its base64.
    const opaque =
      (key === 'signature' && this.type === 'thinking') ||
      (key === 'data' && (this.type === 'base64' || this.type === 'redacted_thinking'));
    if (opaque) return '';
    const source = value as { type?: unknown; media_type?: unknown; data?: unknown } | null;
    if (source?.type === 'base64' && typeof source.data === 'string') {
      media +=
        source.media_type === 'application/pdf'
          ? Math.max(PDF_TOKENS_MIN, Math.ceil((source.data.length * 3) / 4 / PDF_BYTES_PER_TOKEN))
          : IMAGE_TOKENS;
    }
    return value;
  });
  // JSON writes a newline or tab as two characters without whitespace; read as what they are,
  // so code is not taken for one long dense run.
  const tokens = estimateTokens(text.replace(/\\[nrt]/g, ' ')) + media;
  estimatedTokens.set(message, tokens);
  return tokens;
}

function messageChars(message: TranscriptMessage): number {
  return serializedChars.get(message) ?? serializeMessage(message);
}

function serializeMessage(message: TranscriptMessage): number {
  const chars = JSON.stringify(message).length;
  serializedChars.set(message, chars);
  return chars;
}

/** Serialized characters of the first `count` messages. */
export function charsOf(transcript: readonly TranscriptMessage[], count = transcript.length): number {
  let total = 0;
  for (let index = 0; index < count && index < transcript.length; index += 1)
    total += messageChars(transcript[index] as TranscriptMessage);
  return total;
}

/** The measure of a request just answered: its usage over the transcript with the answer in it. */
export function measureContext(
  transcript: readonly TranscriptMessage[],
  usage: { inputTokensOfAllKinds: number; outputTokens: number },
): ContextMeasure {
  return {
    tokens: usage.inputTokensOfAllKinds + usage.outputTokens,
    messages: transcript.length,
    chars: charsOf(transcript),
  };
}

/**
 * The tokens the next request over `transcript` will hold: the measure where it still holds (the
 * messages it covered are there, unchanged), plus estimates of the messages added since; the
 * whole request estimated (messages, and the system prompt and tools as `overhead`) otherwise.
 */
export function expectedTokens(
  transcript: readonly TranscriptMessage[],
  overhead: string,
  measure?: ContextMeasure,
): number {
  const holds =
    measure !== undefined &&
    measure.messages <= transcript.length &&
    charsOf(transcript, measure.messages) === measure.chars;
  const from = holds ? measure.messages : 0;
  let tokens = holds ? measure.tokens : estimateTokens(overhead);
  for (let index = from; index < transcript.length; index += 1)
    tokens += messageTokens(transcript[index] as TranscriptMessage);
  return tokens;
}

/** What of a model's window a request may fill: the window less the answer's room, at most. */
export function requestTokenLimit(options: {
  /** The models the goal's turns may go to: the smallest window rules. */
  models: readonly string[];
  /** `model.contextWindowTokens`: the user's word for the window, over keel's table. */
  windowTokens?: number | undefined;
  maxTokens: number;
}): number {
  const windows = options.models.map(
    (model) => options.windowTokens ?? modelLimits(model)?.contextWindowTokens ?? UNKNOWN_MODEL_WINDOW_TOKENS,
  );
  const window = Math.min(...windows);
  // An answer's room larger than half the window would leave the transcript too little: newer
  // models stop at the window (model_context_window_exceeded) rather than refuse such a request.
  return Math.max(window - options.maxTokens, Math.floor(window / 2));
}

/**
 * The character budget that brings a transcript of `expected` tokens within `limit`, for
 * fitToBudget (which cuts to 3/4 of the budget it is given, so trimming stays rare); undefined
 * when it is within the limit already. The transcript's own characters a token, from the same
 * figures, convert the one into the other: dense content gets a smaller budget in characters.
 */
export function charBudgetForTokens(options: {
  transcriptChars: number;
  expected: number;
  overheadTokens: number;
  limit: number;
}): number | undefined {
  if (options.expected <= options.limit) return undefined;
  const transcriptTokens = Math.max(1, options.expected - options.overheadTokens);
  const room = Math.max(0, options.limit - options.overheadTokens);
  return Math.floor((options.transcriptChars * room) / transcriptTokens);
}

/**
 * The token figures of a refusal for length: "prompt is too long: 208310 tokens > 200000 maximum"
 * (platform.claude.com/docs/en/build-with-claude/context-windows); undefined when the message
 * does not say them.
 */
export function tooLongFigures(message: string): { tokens: number; maximum: number } | undefined {
  const match = /(\d+) tokens > (\d+)(?: maximum)?/.exec(message);
  if (!match) return undefined;
  const tokens = Number(match[1]);
  const maximum = Number(match[2]);
  return tokens > maximum && maximum > 0 ? { tokens, maximum } : undefined;
}
