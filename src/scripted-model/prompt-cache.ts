import { createHash } from 'node:crypto';
import { blockBreakpoints, type BlockBreakpoint, type Ttl } from './breakpoints';
import {
  prefixBlocks,
  withoutCacheControl,
  type MessagesRequestBody,
  type PrefixBlock,
} from './request-body';
import { blockTokens, type InputUsage } from './token-count';

/**
 * Prompt caching as the API bills it (platform.claude.com/docs/en/build-with-claude/prompt-caching).
 *
 * - A breakpoint (a block with cache_control) writes the prefix up to and including it: tools,
 *   system, messages in that order. Prefixes shorter than the model's minimum cacheable length are
 *   "processed without caching": neither written nor read.
 * - An entry lives 5 minutes (or an hour with ttl '1h') and "is refreshed for no additional cost
 *   each time the cached content is used".
 * - Reads "look backward": from each breakpoint "the system checks at most 20 positions per
 *   breakpoint, counting the breakpoint itself as the first", for a prefix an earlier request
 *   wrote; a run of consecutive tool_use blocks counts as one position, as does a run of
 *   tool_result blocks. A match needs the prefix identical block for block.
 * - What invalidates: "Changes at each level invalidate that level and all subsequent levels";
 *   the thinking settings and tool_choice are rendered ahead of the messages, so changing them
 *   invalidates message blocks while tools and system entries stay valid.
 * - Billing ("Mixing different TTLs"): A = tokens at the highest cache hit, B = tokens at the
 *   highest 1-hour breakpoint after A, C = tokens at the last breakpoint; cache reads for A,
 *   1-hour writes for B − A, 5-minute writes for C − B, and input_tokens "only counts tokens after
 *   the last breakpoint".
 * - The cache is per model (and per organization, which for this server is everyone).
 */
export const LOOKBACK_POSITIONS = 20;
const TTL_MS: Record<Ttl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/**
 * The minimum cacheable prompt length per model, from the same page's "Cache limitations" table.
 * Longest prefix wins; a model not listed gets 1,024 tokens, the most common value.
 */
export const MINIMUM_CACHEABLE_TOKENS: Readonly<Record<string, number>> = {
  'claude-opus-5': 512,
  'claude-sonnet-5-5': 512,
  'claude-fable-5': 512,
  'claude-mythos-5': 512,
  'claude-sonnet-5': 1024,
  'claude-opus-4-8': 1024,
  'claude-opus-4-7': 2048,
  'claude-opus-4-6': 4096,
  'claude-opus-4-5': 4096,
  'claude-opus-4-1': 1024,
  'claude-opus-4': 1024,
  'claude-sonnet-4-6': 1024,
  'claude-sonnet-4-5': 1024,
  'claude-sonnet-4': 1024,
  'claude-3-7-sonnet': 1024,
  'claude-haiku-4-5': 4096,
  'claude-3-5-haiku': 2048,
  'claude-3-haiku': 2048,
};
export const DEFAULT_MINIMUM_CACHEABLE_TOKENS = 1024;

export function minimumCacheableTokens(model: string): number {
  const id = model
    .trim()
    .toLowerCase()
    .replace(/^(?:[a-z]+\.)?anthropic\./, '');
  let best: string | undefined;
  for (const key of Object.keys(MINIMUM_CACHEABLE_TOKENS)) {
    if (id.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? DEFAULT_MINIMUM_CACHEABLE_TOKENS : (MINIMUM_CACHEABLE_TOKENS[best] as number);
}

interface Entry {
  expiresAt: number;
  ttlMs: number;
}

export class PromptCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Reads and writes the cache for one request the model answers, and returns its input usage. */
  account(body: MessagesRequestBody): InputUsage {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);

    const model = body.model ?? '';
    const blocks = prefixBlocks(body);
    const cumulative = cumulativeTokens(blocks);
    const total = cumulative.at(-1) ?? 0;
    const keys = prefixKeys(model, body, blocks);
    const minimum = minimumCacheableTokens(model);
    const breakpoints = blockBreakpoints(body, blocks).filter(
      ({ index }) => (cumulative[index] ?? 0) >= minimum,
    );

    // Reads: the longest cached prefix any breakpoint's lookback finds.
    let read = 0;
    for (const breakpoint of breakpoints) {
      for (const position of lookbackPositions(blocks, breakpoint.index)) {
        const entry = this.entries.get(keys[position] as string);
        if (entry === undefined) continue;
        entry.expiresAt = now + entry.ttlMs; // a read refreshes the entry
        read = Math.max(read, cumulative[position] ?? 0);
        break;
      }
    }
    // Writes: every breakpoint's prefix not cached yet.
    for (const { index, ttl } of breakpoints) {
      const key = keys[index] as string;
      const existing = this.entries.get(key);
      if (existing === undefined || existing.ttlMs < TTL_MS[ttl])
        this.entries.set(key, { expiresAt: now + TTL_MS[ttl], ttlMs: TTL_MS[ttl] });
    }
    const at = (breakpoint: BlockBreakpoint | undefined) =>
      breakpoint ? (cumulative[breakpoint.index] ?? 0) : 0;
    const last = Math.max(read, at(breakpoints.at(-1)));
    const lastHour = Math.min(last, Math.max(read, ...breakpoints.filter((b) => b.ttl === '1h').map(at)));
    return {
      inputTokens: total - last,
      cacheReadInputTokens: read,
      cacheCreationInputTokens: last - read,
      ephemeral1hInputTokens: lastHour - read,
      ephemeral5mInputTokens: last - lastHour,
    };
  }
}

function cumulativeTokens(blocks: PrefixBlock[]): number[] {
  let sum = 0;
  return blocks.map((entry) => (sum += blockTokens(entry.block)));
}

/**
 * A key per prefix: the model and a hash chained block by block. Message blocks carry their role
 * and message boundary; the thinking settings and tool_choice seed the messages section.
 */
function prefixKeys(model: string, body: MessagesRequestBody, blocks: PrefixBlock[]): string[] {
  let hash = createHash('sha256').update(model).digest('hex');
  let inMessages = false;
  return blocks.map((entry) => {
    const parts: unknown[] = [entry.section];
    if (entry.section === 'messages') {
      if (!inMessages) parts.push({ thinking: body.thinking ?? null, tool_choice: body.tool_choice ?? null });
      inMessages = true;
      parts.push(entry.role, entry.startsMessage);
    }
    parts.push(withoutCacheControl(entry.block));
    hash = createHash('sha256').update(hash).update(JSON.stringify(parts)).digest('hex');
    return `${model}\0${hash}`;
  });
}

/** The positions a breakpoint's lookback checks, from the breakpoint back. */
function lookbackPositions(blocks: PrefixBlock[], from: number): number[] {
  const positions = [from];
  for (let index = from - 1; index >= 0 && positions.length < LOOKBACK_POSITIONS; index--) {
    if (sameRun(blocks[index], blocks[index + 1])) continue; // inside a run: not a position of its own
    positions.push(index);
  }
  return positions;
}

function sameRun(a: PrefixBlock | undefined, b: PrefixBlock | undefined): boolean {
  const type = a?.block.type;
  return (
    a?.section === 'messages' && (type === 'tool_use' || type === 'tool_result') && b?.block.type === type
  );
}
