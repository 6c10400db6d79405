import type Anthropic from '@anthropic-ai/sdk';
import { isThinking, type ContentBlock, type TranscriptMessage } from '../../workflows/common/transcript';
import type { ModelToolDefinition } from '../../workflows/tools/harness-tools';

/**
 * Where a model request marks its prompt-cache breakpoints
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching). The cached prefix runs tools →
 * system → messages, and a request reads the longest prefix an earlier request wrote that it
 * begins with exactly. keel's requests are built for that: every turn's request is the previous
 * one plus the answer and the new tool results. So four breakpoints, the API's maximum:
 *
 * 1. the last tool definition (the tools rarely change; they survive a change of system prompt),
 * 2. the system prompt,
 * 3. the last message of the previous turn's request (the message before the newest assistant
 *    answer): the entry the previous turn wrote, read back here even when this turn added more
 *    than the 20 blocks the API looks back from a breakpoint,
 * 4. the newest message: written now, read by the next turn.
 *
 * What varies per turn and is not kept in the transcript (`turnNote`, e.g. the active plan step)
 * is appended after breakpoint 4, so it never changes a cached prefix.
 */
export interface CacheableRequest {
  system: string;
  tools: readonly ModelToolDefinition[];
  messages: readonly TranscriptMessage[];
}

export interface CacheSettings {
  enabled: boolean;
  ttl: '5m' | '1h';
}

export interface WireRequest {
  system: string | Anthropic.TextBlockParam[];
  tools: Anthropic.ToolUnion[];
  messages: Anthropic.MessageParam[];
  /** How many cache_control marks the request carries (at most 4). */
  breakpoints: number;
}

export const MAX_BREAKPOINTS = 4;

export function wireRequest(request: CacheableRequest, cache: CacheSettings, turnNote?: string): WireRequest {
  const control: Anthropic.CacheControlEphemeral = {
    type: 'ephemeral',
    ...(cache.ttl === '1h' ? { ttl: '1h' } : {}),
  };
  let breakpoints = 0;
  const tools: Anthropic.ToolUnion[] = request.tools.map((tool, index) =>
    cache.enabled && index === request.tools.length - 1
      ? (breakpoints++, { ...tool, cache_control: control })
      : { ...tool },
  );
  // An empty text block may not carry cache_control; an empty system prompt is left out whole.
  const system: WireRequest['system'] =
    cache.enabled && request.system !== ''
      ? (breakpoints++, [{ type: 'text', text: request.system, cache_control: control }])
      : request.system;
  const marked = cache.enabled ? messagesToMark(request.messages) : new Set<number>();
  const messages = request.messages.map((message, index): Anthropic.MessageParam => {
    const content = message.content.map(toWireBlock);
    if (marked.has(index)) {
      const at = lastCacheableBlock(message.content);
      if (at !== undefined) {
        content[at] = { ...content[at], cache_control: control } as Anthropic.ContentBlockParam;
        breakpoints++;
      }
    }
    return { role: message.role, content };
  });
  const last = messages.at(-1);
  if (turnNote !== undefined && turnNote !== '' && last?.role === 'user') {
    messages[messages.length - 1] = {
      role: 'user',
      content: [...(last.content as Anthropic.ContentBlockParam[]), { type: 'text', text: turnNote }],
    };
  }
  return { system, tools, messages, breakpoints };
}

/**
 * The newest message and the last message of the previous turn's request: in keel's
 * user/assistant alternation, the message two before the newest when the one between is the
 * model's answer. A request that ends with the model's own answer (a paused turn continued)
 * marks its last message and the one before the answer.
 */
function messagesToMark(messages: readonly TranscriptMessage[]): Set<number> {
  const marked = new Set<number>();
  const newest = messages.length - 1;
  if (newest < 0) return marked;
  marked.add(newest);
  const answer = messages[newest]?.role === 'assistant' ? newest : newest - 1;
  if (messages[answer]?.role === 'assistant' && answer - 1 >= 0) marked.add(answer - 1);
  return marked;
}

/** Thinking blocks and empty text may not carry cache_control; the last other block does. */
function lastCacheableBlock(content: readonly ContentBlock[]): number | undefined {
  for (let index = content.length - 1; index >= 0; index -= 1) {
    const block = content[index] as ContentBlock;
    if (isThinking(block)) continue;
    if (block.type === 'text' && block.text === '') continue;
    return index;
  }
  return undefined;
}

/** A fresh copy, so marking a block never changes the transcript (or the stored request). */
function toWireBlock(block: ContentBlock): Anthropic.ContentBlockParam {
  return { ...block };
}
