import {
  prefixBlocks,
  withoutCacheControl,
  type MessagesRequestBody,
  type RequestBlock,
} from './request-body';

/**
 * A deterministic token estimate: four characters of a block's JSON (without its cache_control)
 * a token, rounded up per block. Not the real tokenizer, but stable, monotonic in the content and
 * per block, which is what the prompt-cache accounting and the context-window check need.
 */
export const CHARACTERS_PER_TOKEN = 4;

export function blockTokens(block: RequestBlock): number {
  return Math.ceil(JSON.stringify(withoutCacheControl(block)).length / CHARACTERS_PER_TOKEN);
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
