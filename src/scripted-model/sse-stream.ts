import type { ServerResponse } from 'node:http';
import type { Answer, AnswerBlock } from './answer';

/**
 * Streams an answer as the API does (platform.claude.com/docs/en/build-with-claude/streaming):
 * "Each stream uses the following event flow: 1. message_start: contains a Message object with
 * empty content. 2. A series of content blocks, each of which has a content_block_start, one or
 * more content_block_delta events, and a content_block_stop event. [...] 3. One or more
 * message_delta events, indicating top-level changes to the final Message object. 4. A final
 * message_stop event." Streams "may also include any number of ping events". The usage in
 * message_start carries the input and cache counts; message_delta carries the output tokens.
 * Rebuilt by the SDK (MessageStream.finalMessage()), the events give exactly `answer.message`.
 */
export const TEXT_CHUNK_CHARACTERS = 40;
const JSON_CHUNKS = 3;

export async function streamAnswer(
  response: ServerResponse,
  answer: Answer,
  options: {
    chunkDelayMs: number;
    /** A bad day's hook (bad-days.ts): false stops the stream before event `index`. */
    beforeEvent?: ((index: number, response: ServerResponse) => Promise<boolean>) | undefined;
  },
): Promise<'completed' | 'interrupted'> {
  const { message } = answer;
  const events: unknown[] = [
    {
      type: 'message_start',
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: { ...message.usage, output_tokens: 1 },
      },
    },
    { type: 'ping' },
  ];
  message.content.forEach((block, index) => {
    events.push(
      { type: 'content_block_start', index, content_block: opening(block) },
      ...deltas(block, answer.cutJson.get(index)).map((delta) => ({
        type: 'content_block_delta',
        index,
        delta,
      })),
      { type: 'content_block_stop', index },
    );
    if (index % 2 === 1) events.push({ type: 'ping' });
  });
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = message.usage;
  events.push(
    {
      type: 'message_delta',
      delta: {
        stop_reason: message.stop_reason,
        stop_sequence: message.stop_sequence,
        stop_details: message.stop_details,
      },
      // Cumulative totals: the SDK overwrites, never adds.
      usage: { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens },
    },
    { type: 'message_stop' },
  );

  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': `req_scripted_${Date.now()}`,
  });
  for (const [index, event] of events.entries()) {
    if (response.destroyed) return 'interrupted';
    if (options.beforeEvent && !(await options.beforeEvent(index, response))) return 'interrupted';
    if (response.destroyed) return 'interrupted';
    response.write(`event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`);
    if (options.chunkDelayMs > 0 && index < events.length - 1)
      await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs));
  }
  if (response.destroyed) return 'interrupted';
  response.end();
  return 'completed';
}

/** The block as content_block_start announces it: its content comes in the deltas. */
function opening(block: AnswerBlock): AnswerBlock {
  switch (block.type) {
    case 'text':
      return { ...block, text: '' };
    case 'thinking':
      return { ...block, thinking: '', signature: '' };
    case 'tool_use':
      return { ...block, input: {} };
    default:
      return block; // redacted_thinking arrives whole
  }
}

function deltas(block: AnswerBlock, cutJson: string | undefined): Array<Record<string, unknown>> {
  switch (block.type) {
    case 'text':
      return chunks(String(block.text), TEXT_CHUNK_CHARACTERS).map((text) => ({ type: 'text_delta', text }));
    case 'thinking':
      // extended-thinking ("Streaming thinking"): the signature comes last, in a signature_delta
      // just before content_block_stop.
      return [
        ...chunks(String(block.thinking), TEXT_CHUNK_CHARACTERS).map((thinking) => ({
          type: 'thinking_delta',
          thinking,
        })),
        { type: 'signature_delta', signature: block.signature },
      ];
    case 'tool_use': {
      const json = cutJson ?? JSON.stringify(block.input);
      const size = Math.max(1, Math.ceil(json.length / JSON_CHUNKS));
      return chunks(json, size).map((partial_json) => ({ type: 'input_json_delta', partial_json }));
    }
    default:
      return [];
  }
}

function chunks(text: string, size: number): string[] {
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result.length > 0 ? result : [''];
}
