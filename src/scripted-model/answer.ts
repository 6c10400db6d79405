import type { MessagesRequestBody } from './request-body';
import type { ScriptedStructured, ScriptedTurn } from './scenario';
import { contentTokens, type InputUsage } from './token-count';

/**
 * The assistant message a scripted turn answers with: exactly what the non-streaming path
 * returns, and what a stream of it must rebuild (sse-stream.ts).
 */
export interface AnswerBlock {
  type: string;
  [key: string]: unknown;
}

export interface AnswerMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnswerBlock[];
  stop_reason: string;
  stop_sequence: string | null;
  stop_details: null;
  usage: {
    input_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
    cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
    output_tokens: number;
  };
}

export interface Answer {
  message: AnswerMessage;
}

export function answerTurn(options: {
  body: MessagesRequestBody;
  scenario: string;
  turnIndex: number;
  turn: ScriptedTurn;
  usage: InputUsage;
}): Answer {
  const { scenario, turnIndex, turn } = options;
  const slug = scenario.replace(/[^A-Za-z0-9]+/g, '_');
  const content: AnswerBlock[] = [];
  if (turn.text) content.push({ type: 'text', text: turn.text });
  turn.toolCalls.forEach((call, index) => {
    content.push({
      type: 'tool_use',
      id: call.id ?? `toolu_${slug}_${turnIndex + 1}_${index + 1}`,
      name: call.name,
      input: call.input,
    });
  });
  return {
    message: message({
      id: `msg_${slug}_${turnIndex + 1}`,
      model: `scripted:${scenario}`,
      content,
      stopReason: turn.toolCalls.length > 0 ? 'tool_use' : 'end_turn',
      usage: options.usage,
      outputTokens: contentTokens(content),
    }),
  };
}

/** A structured call's answer: the forced tool's input, or text to exercise parser fallbacks. */
export function answerStructured(options: {
  scenario: string;
  tool: string;
  attempt: number;
  entry: ScriptedStructured;
  usage: InputUsage;
}): Answer {
  const { scenario, tool, attempt, entry } = options;
  const content: AnswerBlock[] =
    entry.input !== undefined
      ? [{ type: 'tool_use', id: `toolu_${tool}_${attempt + 1}`, name: tool, input: entry.input }]
      : [{ type: 'text', text: entry.text ?? '' }];
  return {
    message: message({
      id: `msg_${tool}_${attempt + 1}`,
      model: `scripted:${scenario}`,
      content,
      stopReason: entry.input !== undefined ? 'tool_use' : 'end_turn',
      usage: options.usage,
      outputTokens: contentTokens(content),
    }),
  };
}

function message(options: {
  id: string;
  model: string;
  content: AnswerBlock[];
  stopReason: string;
  usage: InputUsage;
  outputTokens: number;
}): AnswerMessage {
  const { usage } = options;
  return {
    id: options.id,
    type: 'message',
    role: 'assistant',
    model: options.model,
    content: options.content,
    stop_reason: options.stopReason,
    stop_sequence: null,
    stop_details: null,
    usage: {
      input_tokens: usage.inputTokens,
      cache_creation_input_tokens: usage.cacheCreationInputTokens,
      cache_read_input_tokens: usage.cacheReadInputTokens,
      cache_creation: {
        ephemeral_5m_input_tokens: usage.ephemeral5mInputTokens,
        ephemeral_1h_input_tokens: usage.ephemeral1hInputTokens,
      },
      output_tokens: options.outputTokens,
    },
  };
}
