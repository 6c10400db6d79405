/**
 * A finished Messages answer as the API streams it (`"stream": true`): server-sent events in the
 * order of Anthropic's "Streaming Messages" page — message_start (the message with no content and
 * its input usage), then per block content_block_start / content_block_delta / content_block_stop,
 * then message_delta (stop reason, output tokens) and message_stop. The SDK's
 * `messages.stream().finalMessage()` rebuilds exactly the message given here.
 *
 * Written at once, as one string: the loopback is zero-latency, and the floor pays for it too.
 */
export interface LoopbackMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: LoopbackBlock[];
  stop_reason: string;
  stop_sequence: null;
  stop_details: null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
}

export type LoopbackBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export function streamedMessage(message: LoopbackMessage): string {
  let text = event('message_start', {
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      // As the API does: input usage now, a placeholder for output until message_delta.
      usage: { ...message.usage, output_tokens: 1 },
    },
  });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      text += event('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      for (const piece of halves(block.text))
        text += event('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: piece },
        });
    } else {
      text += event('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      // The input as JSON text in pieces that are not JSON on their own, as the API sends it.
      for (const piece of halves(JSON.stringify(block.input)))
        text += event('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        });
    }
    text += event('content_block_stop', { type: 'content_block_stop', index });
  });
  text += event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null, stop_details: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  text += event('message_stop', { type: 'message_stop' });
  return text;
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Two pieces (one when too short to cut): enough to make the client join them. */
function halves(text: string): string[] {
  if (text.length < 2) return [text];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}
