/**
 * The parts of a Messages API request body the loopback server reads, and the request as the
 * API processes it: one ordered list of blocks, tools → system → messages
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching: "Cache prefixes are created in
 * the following order: `tools`, `system`, then `messages`"). Validation, token counting and the
 * prompt cache all walk this one list, so they agree on what a block and a breakpoint are.
 */
export interface CacheControl {
  type?: unknown;
  ttl?: unknown;
}

/** A content block, a system block or a tool definition, as sent (unknown fields kept). */
export interface RequestBlock {
  type?: string;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  thinking?: unknown;
  signature?: unknown;
  data?: unknown;
  cache_control?: CacheControl | null;
  [key: string]: unknown;
}

export interface RequestMessage {
  role: string;
  content: unknown;
}

export interface MessagesRequestBody {
  model?: string;
  max_tokens?: unknown;
  messages?: RequestMessage[];
  system?: unknown;
  tools?: unknown[];
  tool_choice?: { type?: string; name?: string };
  thinking?: { type?: string; budget_tokens?: unknown };
  temperature?: unknown;
  top_k?: unknown;
  stream?: unknown;
  stop_sequences?: unknown;
  /** Automatic caching: a breakpoint on the last cacheable block. */
  cache_control?: CacheControl | null;
  [key: string]: unknown;
}

export type Section = 'tools' | 'system' | 'messages';

/** A cache_control marker and where it sits ("messages.2.content.0.cache_control"). */
export interface Breakpoint {
  path: string;
  control: CacheControl;
}

export interface PrefixBlock {
  section: Section;
  /** "tools.0", "system.1", "messages.3.content.0". */
  path: string;
  block: RequestBlock;
  /** The message's index and role, for message blocks. */
  messageIndex?: number;
  role?: string;
  /** The first block of its message: the boundary between messages is part of the prefix. */
  startsMessage: boolean;
  /** The block's own cache_control and those nested in a tool_result's content, in processing order. */
  breakpoints: Breakpoint[];
}

/** A message's content as blocks: a string is one text block, as the API reads it. */
export function messageBlocks(message: RequestMessage | undefined): RequestBlock[] {
  if (message === undefined) return [];
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  if (!Array.isArray(message.content)) return [];
  return (message.content as unknown[]).filter(isObject);
}

/** The system prompt as blocks: a string system is one block. */
export function systemBlocks(body: MessagesRequestBody): RequestBlock[] {
  if (typeof body.system === 'string') return [{ type: 'text', text: body.system }];
  if (!Array.isArray(body.system)) return [];
  return (body.system as unknown[]).filter(isObject);
}

export function prefixBlocks(body: MessagesRequestBody): PrefixBlock[] {
  const blocks: PrefixBlock[] = [];
  (body.tools ?? []).filter(isObject).forEach((tool, index) => {
    const path = `tools.${index}`;
    blocks.push({
      section: 'tools',
      path,
      block: tool,
      startsMessage: false,
      breakpoints: own(tool, path),
    });
  });
  systemBlocks(body).forEach((block, index) => {
    const path = `system.${index}`;
    blocks.push({ section: 'system', path, block, startsMessage: false, breakpoints: own(block, path) });
  });
  (body.messages ?? []).forEach((message, messageIndex) => {
    messageBlocks(message).forEach((block, index) => {
      const path = `messages.${messageIndex}.content.${index}`;
      blocks.push({
        section: 'messages',
        path,
        block,
        messageIndex,
        role: message.role,
        startsMessage: index === 0,
        breakpoints: [...nested(block, path), ...own(block, path)],
      });
    });
  });
  return blocks;
}

/** The block without its cache_control markers: moving a breakpoint changes no content. */
export function withoutCacheControl(block: RequestBlock): RequestBlock {
  const { cache_control: _marker, ...rest } = block;
  if (rest.type === 'tool_result' && Array.isArray(rest.content)) {
    rest.content = (rest.content as unknown[]).map((inner) =>
      isObject(inner) ? withoutCacheControl(inner as RequestBlock) : inner,
    );
  }
  return rest;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(block: Record<string, unknown>, path: string): Breakpoint[] {
  const control = block.cache_control;
  return isObject(control) ? [{ path: `${path}.cache_control`, control }] : [];
}

// A tool_result's content blocks may carry cache_control of their own; they are processed
// before the tool_result's own marker (it closes the block).
function nested(block: RequestBlock, path: string): Breakpoint[] {
  if (block.type !== 'tool_result' || !Array.isArray(block.content)) return [];
  return (block.content as unknown[]).flatMap((inner, index) =>
    isObject(inner) ? own(inner, `${path}.content.${index}`) : [],
  );
}
