import { recogniseMedia } from '../activities/tools/media-files';
import {
  prefixBlocks,
  withoutCacheControl,
  type MessagesRequestBody,
  type RequestBlock,
} from './request-body';

/**
 * A deterministic token count: four characters of a block's JSON (without its cache_control) a
 * token, rounded up per block, and more for dense text, as real tokenizers count it: every
 * character beyond ASCII (CJK text, emoji) a token of its own, and long whitespace-free runs of
 * many different characters (minified JSON, base64, glued hashes) two characters a token. Token
 * counts depend on the content, not its length (platform.claude.com/docs/en/build-with-claude/
 * token-counting); without this, a loopback server would let keel count characters and never
 * see a dense transcript overflow the window. Not the real tokenizer, but stable, monotonic in
 * the content and per block, which is what the prompt-cache accounting and the window check need.
 */
export const CHARACTERS_PER_TOKEN = 4;
/** A whitespace-free run this long, of at least this many distinct characters, is dense. */
const DENSE_RUN_CHARS = 48;
const DENSE_RUN_DISTINCT = 20;

export function blockTokens(block: RequestBlock): number {
  let media = 0;
  // Images and PDFs count by what they are (mediaTokens), not by their base64.
  const json = JSON.stringify(
    withoutCacheControl(block),
    function (this: { type?: unknown }, key, value: unknown) {
      if (key === 'data' && this.type === 'base64' && typeof value === 'string') {
        media += mediaTokens(value);
        return '';
      }
      return value;
    },
  );
  return Math.ceil(json.length / CHARACTERS_PER_TOKEN + denseExtra(block)) + media;
}

/**
 * platform.claude.com/docs/en/build-with-claude/vision: an image costs (width × height) / 750
 * tokens, scaled down first when it is over about 1,600; pdf-support: a PDF page costs its text
 * (1,500–3,000 tokens) and an image of the page, so 3,000 + 1,600 here.
 */
export const IMAGE_MAX_TOKENS = 1600;
export const PDF_PAGE_TOKENS = 3000 + IMAGE_MAX_TOKENS;

function mediaTokens(base64: string): number {
  const media = recogniseMedia(new Uint8Array(Buffer.from(base64, 'base64')));
  if (media?.kind === 'pdf') return (media.pages ?? 1) * PDF_PAGE_TOKENS;
  if (media?.width === undefined || media.height === undefined) return IMAGE_MAX_TOKENS;
  return Math.min(IMAGE_MAX_TOKENS, Math.ceil((media.width * media.height) / 750));
}

/** Tokens dense text adds to its characters' quarter token each, over the block's strings. */
function denseExtra(value: unknown): number {
  if (typeof value === 'string') {
    let extra = 0;
    for (const run of value.split(/\s+/)) {
      let wide = 0;
      for (let at = 0; at < run.length; at += 1) if (run.charCodeAt(at) > 127) wide += 1;
      extra += wide * (1 - 1 / CHARACTERS_PER_TOKEN);
      const ascii = run.length - wide;
      if (ascii >= DENSE_RUN_CHARS && new Set(run).size >= DENSE_RUN_DISTINCT) extra += ascii / 4;
    }
    return extra;
  }
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + denseExtra(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  const record = value as Record<string, unknown>;
  // Images and PDFs (mediaTokens), thinking signatures and redacted thinking are not text here.
  if (record.type === 'base64' || record.type === 'redacted_thinking') return 0;
  return Object.entries(record).reduce(
    (sum: number, [key, item]) => (key === 'signature' ? sum : sum + denseExtra(item)),
    0,
  );
}

/** Input tokens of the whole request: every tool definition, system block and message block. */
export function requestTokens(body: MessagesRequestBody): number {
  return prefixBlocks(body).reduce((total, entry) => total + blockTokens(entry.block), 0);
}

/** Output tokens of an answer's content when the turn names no number. */
export function contentTokens(content: unknown[]): number {
  return Math.ceil(JSON.stringify(content).length / CHARACTERS_PER_TOKEN);
}

/** The input side of an answer's usage: what was read from the cache, written to it, and paid in full. */
export interface InputUsage {
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  ephemeral5mInputTokens: number;
  ephemeral1hInputTokens: number;
}
