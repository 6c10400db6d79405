import type Anthropic from '@anthropic-ai/sdk';

import type { StreamProgress } from '../../workflows/goal/model-turn/call-settings';

const LATEST_CHARS = 160;

/**
 * The events earlier attempts of a call received, from the heartbeat Temporal hands the next
 * attempt (the last one the earlier attempt sent): 0 for a first attempt or other details.
 */
export function eventsBeforeAttempt(heartbeatDetails: unknown): number {
  if (typeof heartbeatDetails !== 'object' || heartbeatDetails === null) return 0;
  const earlier = heartbeatDetails as { kind?: unknown; events?: unknown; eventsBefore?: unknown };
  if (earlier.kind !== 'model-stream') return 0;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
  return count(earlier.eventsBefore) + count(earlier.events);
}

export class StreamProgressTracker {
  constructor(private readonly eventsBefore = 0) {}

  private outputChars = 0;
  private events = 0;
  private bytes = 0;

  /** Takes a chunk of the stream's raw bytes (pings too), as it arrives. */
  received(bytes: number): void {
    this.bytes += bytes;
  }

  private reportedTokens: number | undefined;
  private latest = '';
  private writing: StreamProgress['writing'] = 'nothing yet';
  private tool: string | undefined;

  /** Takes one event of the Messages stream. */
  observe(event: Anthropic.MessageStreamEvent): void {
    this.events += 1;
    switch (event.type) {
      case 'content_block_start': {
        const block = event.content_block;
        this.writing =
          block.type === 'thinking' || block.type === 'redacted_thinking'
            ? 'thinking'
            : block.type === 'tool_use' || block.type === 'server_tool_use'
              ? 'tool'
              : 'text';
        this.tool = block.type === 'tool_use' || block.type === 'server_tool_use' ? block.name : undefined;
        if (this.writing !== 'tool') this.latest = '';
        break;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        const text =
          delta.type === 'text_delta'
            ? delta.text
            : delta.type === 'thinking_delta'
              ? delta.thinking
              : delta.type === 'input_json_delta'
                ? delta.partial_json
                : '';
        this.outputChars += text.length;
        if (delta.type !== 'input_json_delta') this.latest = (this.latest + text).slice(-LATEST_CHARS);
        break;
      }
      case 'message_delta':
        this.reportedTokens = event.usage.output_tokens;
        break;
      default:
        break;
    }
  }

  snapshot(): StreamProgress {
    return {
      kind: 'model-stream',
      outputTokens: this.reportedTokens ?? Math.ceil(this.outputChars / 4),
      bytes: this.bytes,
      events: this.events,
      ...(this.eventsBefore === 0 ? {} : { eventsBefore: this.eventsBefore }),
      latest: this.latest,
      writing: this.writing,
      ...(this.tool === undefined ? {} : { tool: this.tool }),
    };
  }
}
