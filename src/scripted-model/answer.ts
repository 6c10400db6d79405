import type { MessagesRequestBody } from './request-body';
import type { ScriptedStructured, ScriptedTurn } from './scenario';
import { thinkingMode } from './thinking-rules';
import type { ThinkingSigner } from './thinking-signature';
import { contentTokens, type InputUsage } from './token-count';
import { contextWindowOf } from './validation';

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
  stop_details: { type: 'refusal'; category: null; explanation: null } | null;
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
  /** Content index → the JSON a stream sends for a tool call cut by max_tokens. */
  cutJson: Map<number, string>;
}

export function answerTurn(options: {
  body: MessagesRequestBody;
  scenario: string;
  turnIndex: number;
  turn: ScriptedTurn;
  signer: ThinkingSigner;
  usage: InputUsage;
  /** The server's context window setting (the model's own otherwise): an answer stops at it. */
  window?: number | undefined;
}): Answer {
  const { body, scenario, turnIndex, turn, signer } = options;
  const slug = scenario.replace(/[^A-Za-z0-9]+/g, '_');
  const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : 0;
  // platform.claude.com/docs/en/build-with-claude/handling-stop-reasons: max_tokens means the
  // answer "reached your max_tokens limit" — whatever was being written is cut there.
  const cutAtMaxTokens =
    turn.stopReason === 'max_tokens' ||
    (turn.cutBelowMaxTokens !== undefined && maxTokens < turn.cutBelowMaxTokens);
  // handling-stop-reasons: model_context_window_exceeded, the answer "reached the model's context
  // window limit": input and output together cannot pass the window; what was written stands.
  const input =
    options.usage.inputTokens + options.usage.cacheReadInputTokens + options.usage.cacheCreationInputTokens;
  const windowLeft = contextWindowOf(body, options.window) - input;
  const wholeTokens = turn.outputTokens ?? contentTokens(wholeContent(turn));
  const cutAtWindow =
    !cutAtMaxTokens && (turn.stopReason === 'model_context_window_exceeded' || wholeTokens > windowLeft);
  const cut = cutAtMaxTokens || cutAtWindow;
  const content: AnswerBlock[] = [];
  const cutJson = new Map<number, string>();
  // platform.claude.com/docs/en/build-with-claude/extended-thinking: thinking blocks come first,
  // and only when the request enables thinking.
  if (thinkingMode(body) !== undefined) {
    if (turn.thinking !== undefined)
      content.push({ type: 'thinking', thinking: turn.thinking, signature: signer.sign(turn.thinking) });
    else if (turn.redactedThinking)
      content.push({ type: 'redacted_thinking', data: signer.redactedData(`${scenario}#${turnIndex}`) });
  }
  if (turn.text) content.push({ type: 'text', text: turn.text });
  turn.toolCalls.forEach((call, index) => {
    const block = {
      type: 'tool_use',
      id: call.id ?? `toolu_${slug}_${turnIndex + 1}_${index + 1}`,
      name: call.name,
      input: call.input,
    };
    if (cut && index === turn.toolCalls.length - 1) {
      const partial = cutToolInput(call.input);
      block.input = partial.input;
      cutJson.set(content.length, partial.json);
    }
    content.push(block);
  });
  const stopReason: string = cutAtMaxTokens
    ? 'max_tokens'
    : cutAtWindow
      ? 'model_context_window_exceeded'
      : (turn.stopReason ?? (turn.toolCalls.length > 0 ? 'tool_use' : 'end_turn'));
  const outputTokens = cutAtWindow
    ? Math.max(0, Math.min(wholeTokens, windowLeft))
    : (turn.outputTokens ?? (cut ? maxTokens : contentTokens(content)));
  return {
    message: message({
      id: `msg_${slug}_${turnIndex + 1}`,
      model: `scripted:${scenario}`,
      content,
      stopReason,
      stopSequence: stopSequenceFor(stopReason, body),
      usage: options.usage,
      outputTokens,
    }),
    cutJson,
  };
}

/** The turn's text and calls as written, uncut: how long the whole answer would be. */
function wholeContent(turn: ScriptedTurn): unknown[] {
  return [
    ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
    ...turn.toolCalls.map((call) => ({ type: 'tool_use', name: call.name, input: call.input })),
  ];
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
      stopSequence: null,
      usage: options.usage,
      outputTokens: contentTokens(content),
    }),
    cutJson: new Map(),
  };
}

/**
 * A tool call cut by max_tokens. The JSON stops inside the key of its last entry, so a partial
 * JSON parse of it (the SDK's, streaming) gives every entry but the last; the whole answer holds
 * that same input, so the two paths agree.
 */
export function cutToolInput(input: Record<string, unknown>): {
  json: string;
  input: Record<string, unknown>;
} {
  const entries = Object.entries(input);
  const last = entries.at(-1);
  if (last === undefined) return { json: '{', input: {} };
  const kept = Object.fromEntries(entries.slice(0, -1));
  const head = entries.length > 1 ? `${JSON.stringify(kept).slice(0, -1)},` : '{';
  const key = JSON.stringify(last[0]);
  return { json: head + key.slice(0, 1 + Math.floor((key.length - 2) / 2)), input: kept };
}

function message(options: {
  id: string;
  model: string;
  content: AnswerBlock[];
  stopReason: string;
  stopSequence: string | null;
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
    stop_sequence: options.stopSequence,
    // handling-stop-reasons: on a refusal, "Read stop_details"; this server names no category.
    stop_details:
      options.stopReason === 'refusal' ? { type: 'refusal', category: null, explanation: null } : null,
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

// handling-stop-reasons: stop_sequence "Read stop_sequence to see which one fired": the first of
// the request's stop_sequences (null when it sent none).
function stopSequenceFor(stopReason: string, body: MessagesRequestBody): string | null {
  if (stopReason !== 'stop_sequence') return null;
  const sequences = body.stop_sequences;
  return Array.isArray(sequences) && typeof sequences[0] === 'string' ? sequences[0] : null;
}
