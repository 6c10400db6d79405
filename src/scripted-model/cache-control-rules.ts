import { automaticBreakpointIndex, ttlOf } from './breakpoints';
import { prefixBlocks, type Breakpoint, type MessagesRequestBody } from './request-body';

const MAX_BREAKPOINTS = 4;

/**
 * What the API refuses in cache_control markers
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching), checked in processing order:
 * tools, system, messages.
 */
export function cacheControlRejection(body: MessagesRequestBody): string | undefined {
  const blocks = prefixBlocks(body);
  const markers: Marker[] = blocks.flatMap((entry) =>
    entry.breakpoints.map((marker) => ({
      ...marker,
      blockPath: marker.path.replace(/\.cache_control$/, ''),
      blockType: entry.block.type,
      emptyText: entry.block.type === 'text' && entry.block.text === '',
    })),
  );
  // "You can define up to 4 cache breakpoints"; automatic caching takes one of the four slots
  // unless the block it lands on is already marked with the same lifetime.
  let count = markers.length;
  const automatic = automaticBreakpointIndex(body, blocks);
  if (automatic !== undefined && body.cache_control) {
    const onBlock = blocks[automatic]?.breakpoints.at(-1);
    if (onBlock === undefined) count += 1;
    // The API refuses a differing ttl here; its wording for it is not published.
    else if (ttlOf(onBlock.control) !== ttlOf(body.cache_control))
      return `cache_control: the top-level cache_control's ttl differs from the one on ${onBlock.path}`;
  }
  if (count > MAX_BREAKPOINTS)
    return `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${count}.`;

  let seenFiveMinutes = false;
  const all = body.cache_control ? [...markers, topLevel(body)] : markers;
  for (const marker of all) {
    // `"ephemeral"` is the only cache type; `ttl` is "5m" (the default) or "1h".
    if (marker.control.type !== 'ephemeral') return `${marker.path}.type: Input should be 'ephemeral'`;
    const ttl = marker.control.ttl;
    if (ttl !== undefined && ttl !== '5m' && ttl !== '1h')
      return `${marker.path}.ttl: Input should be '5m' or '1h'`;
    // "Thinking blocks cannot be cached directly with `cache_control`" (the API's exact wording
    // for this refusal is not published).
    if (marker.blockType === 'thinking' || marker.blockType === 'redacted_thinking')
      return `${marker.blockPath}: cache_control cannot be set for thinking blocks`;
    // "Empty text blocks cannot be cached."
    if (marker.emptyText) return `${marker.blockPath}: cache_control cannot be set for empty text blocks`;
    // "Cache entries with longer TTL must appear before shorter TTLs (that is, a 1-hour cache
    // entry must appear before any 5-minute cache entries)."
    if (ttlOf(marker.control) === '1h' && seenFiveMinutes)
      return (
        `${marker.path}.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. ` +
        'Note that blocks are processed in the following order: `tools`, `system`, `messages`.'
      );
    if (ttlOf(marker.control) === '5m') seenFiveMinutes = true;
  }
  return undefined;
}

interface Marker extends Breakpoint {
  blockPath: string;
  blockType?: string;
  emptyText: boolean;
}

// Automatic caching marks the last cacheable block, which comes after every explicit marker.
function topLevel(body: MessagesRequestBody): Marker {
  return {
    path: 'cache_control',
    control: body.cache_control ?? {},
    blockPath: 'cache_control',
    emptyText: false,
  };
}
