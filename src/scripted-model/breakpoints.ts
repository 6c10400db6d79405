import type { CacheControl, MessagesRequestBody, PrefixBlock, RequestBlock } from './request-body';

/**
 * Where a request's cache breakpoints are
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching): every block that carries
 * cache_control (a tool_result's nested markers belong to the tool_result: "cache the top-level
 * block"), plus automatic caching's one, which a top-level `cache_control` puts "on the last
 * cacheable block" — walking back past blocks that cannot carry one — and which uses one of the
 * four slots unless that block already carries the same marker.
 */
export type Ttl = '5m' | '1h';

export interface BlockBreakpoint {
  /** Index in prefixBlocks(body). */
  index: number;
  ttl: Ttl;
}

export function ttlOf(control: CacheControl): Ttl {
  return control.ttl === '1h' ? '1h' : '5m';
}

/** Thinking blocks and empty text blocks cannot carry cache_control. */
export function cacheable(block: RequestBlock): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  return !(block.type === 'text' && (typeof block.text !== 'string' || block.text === ''));
}

/** The block automatic caching marks, or undefined (no top-level cache_control, nothing cacheable). */
export function automaticBreakpointIndex(
  body: MessagesRequestBody,
  blocks: PrefixBlock[],
): number | undefined {
  if (body.cache_control === undefined || body.cache_control === null) return undefined;
  for (let index = blocks.length - 1; index >= 0; index--) {
    if (cacheable((blocks[index] as PrefixBlock).block)) return index;
  }
  return undefined;
}

/** One breakpoint per marked block, in prefix order; a block's last marker decides its ttl. */
export function blockBreakpoints(body: MessagesRequestBody, blocks: PrefixBlock[]): BlockBreakpoint[] {
  const result: BlockBreakpoint[] = [];
  const automatic = automaticBreakpointIndex(body, blocks);
  blocks.forEach((entry, index) => {
    const last = entry.breakpoints.at(-1);
    if (last !== undefined) result.push({ index, ttl: ttlOf(last.control) });
    else if (index === automatic && body.cache_control)
      result.push({ index, ttl: ttlOf(body.cache_control) });
  });
  return result;
}
