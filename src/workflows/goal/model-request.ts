import type { TranscriptMessage } from '../common/transcript';
import type { ModelToolDefinition } from '../tools/harness-tools';
import type { ModelCallInput } from './model-call';

/**
 * What the worker stored of the goal's previous model turn: the request it sent plus the answer,
 * under `key`. The workflow keeps this only in memory (not in state, not across continue-as-new):
 * it is an optimisation, and a run without it sends the whole request.
 */
export interface StoredModelRequest {
  readonly key: string;
  readonly system: string;
  /** The tool definitions as JSON, to tell cheaply whether they changed. */
  readonly toolsJson: string;
  /** The exact message objects the stored request holds, the answer last. */
  readonly messages: readonly TranscriptMessage[];
}

export type ModelRequestParts = Pick<ModelCallInput, 'messages' | 'continues' | 'system' | 'tools'>;

/**
 * The request of the next turn: by reference to the stored one when the transcript still starts
 * with exactly its messages (then only the messages after them travel, and the system prompt and
 * tools only when they changed), else whole. Without this every model activity's input carried
 * the whole transcript, so history grew with the square of a goal's length.
 *
 * The prefix is compared by object identity: transcript messages are never changed in place
 * (appendUserBlocks, fitToBudget and consolidation make new ones), so an identical object is an
 * identical message. Pure and deterministic: replay rebuilds the same objects in the same order.
 */
export function nextModelRequest(
  stored: StoredModelRequest | undefined,
  next: { system: string; tools: ModelToolDefinition[]; messages: readonly TranscriptMessage[] },
): ModelRequestParts {
  const whole = { system: next.system, tools: next.tools, messages: [...next.messages] };
  if (stored === undefined || !startsWith(next.messages, stored.messages)) return whole;
  const appended = next.messages.slice(stored.messages.length);
  // The Messages API needs the request to end with a user turn; nothing new means nothing to send.
  if (appended.length === 0) return whole;
  return {
    continues: { request: stored.key },
    messages: appended,
    ...(next.system === stored.system ? {} : { system: next.system }),
    ...(JSON.stringify(next.tools) === stored.toolsJson ? {} : { tools: next.tools }),
  };
}

/** What to remember of a turn whose request the worker stored under `key`. */
export function storedModelRequest(
  key: string,
  sent: { system: string; tools: ModelToolDefinition[]; messages: readonly TranscriptMessage[] },
  answer: TranscriptMessage,
): StoredModelRequest {
  return {
    key,
    system: sent.system,
    toolsJson: JSON.stringify(sent.tools),
    messages: [...sent.messages, answer],
  };
}

function startsWith(messages: readonly TranscriptMessage[], prefix: readonly TranscriptMessage[]): boolean {
  if (prefix.length > messages.length) return false;
  return prefix.every((message, index) => messages[index] === message);
}
