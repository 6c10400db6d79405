import type { TranscriptMessage } from '../../common/transcript';
import type { CarriedModelRequest } from './carried-request';
import type { ModelToolDefinition } from '../../tools/harness-tools';
import type { ModelCallInput, RequestSegment } from './call-settings';

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
 * The request of the next turn, by reference to the stored one wherever it can: the messages it
 * still has travel as index ranges into it, only the others (new ones, and old ones a cut of the
 * context changed, which are small) travel whole, and the system prompt and tools only when they
 * changed. Usually that is "all of the stored request, then the new tool results". Without this
 * every model activity's input carried the whole transcript, so history grew with the square of a
 * goal's length; and a cut of the context (context-budget.ts) would send it whole again.
 *
 * Messages are matched by object identity: transcript messages are never changed in place
 * (appendUserBlocks, fitToBudget and consolidation make new ones), so the same object is the same
 * message. Pure and deterministic: replay rebuilds the same objects in the same order.
 */
export function nextModelRequest(
  stored: StoredModelRequest | undefined,
  next: { system: string; tools: ModelToolDefinition[]; messages: readonly TranscriptMessage[] },
): ModelRequestParts {
  const whole = { system: next.system, tools: next.tools, messages: [...next.messages] };
  if (stored === undefined) return whole;
  const indexOf = new Map(stored.messages.map((message, index) => [message, index]));
  const segments: RequestSegment[] = [];
  const sent: TranscriptMessage[] = [];
  for (const message of next.messages) {
    const index = indexOf.get(message);
    const last = segments.at(-1);
    if (index === undefined) {
      segments.push(null);
      sent.push(message);
    } else if (Array.isArray(last) && last[1] === index) last[1] = index + 1;
    else segments.push([index, index + 1]);
  }
  // Nothing of the stored request is left, or nothing new (a request must end with a user turn).
  if (sent.length === next.messages.length || sent.length === 0) return whole;
  const appendsToAll =
    Array.isArray(segments[0]) &&
    segments[0][0] === 0 &&
    segments[0][1] === stored.messages.length &&
    segments.slice(1).every((segment) => segment === null);
  return {
    continues: { request: stored.key, ...(appendsToAll ? {} : { segments }) },
    messages: sent,
    ...(next.system === stored.system ? {} : { system: next.system }),
    ...(JSON.stringify(next.tools) === stored.toolsJson ? {} : { tools: next.tools }),
  };
}

/** The stored request to carry to a new run, if the transcript still starts with its messages. */
export function carriedModelRequest(
  stored: StoredModelRequest | undefined,
  transcript: readonly TranscriptMessage[],
): CarriedModelRequest | undefined {
  if (stored === undefined || !stored.messages.every((message, index) => transcript[index] === message))
    return undefined;
  return {
    key: stored.key,
    messageCount: stored.messages.length,
    system: stored.system,
    toolsJson: stored.toolsJson,
  };
}

/** The carried request again, over the new run's own message objects. */
export function resumedModelRequest(
  carried: CarriedModelRequest | undefined,
  transcript: readonly TranscriptMessage[],
): StoredModelRequest | undefined {
  if (carried === undefined || carried.messageCount > transcript.length) return undefined;
  return {
    key: carried.key,
    system: carried.system,
    toolsJson: carried.toolsJson,
    messages: transcript.slice(0, carried.messageCount),
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
