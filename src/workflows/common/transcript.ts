import { z } from 'zod';
import { MODEL_IMAGE_TYPES } from '../tools/tool-outcome';

/**
 * The conversation in Anthropic Messages wire shapes, kept as plain data so it can live in
 * workflow state, cross continue-as-new, and be sent to the model activity unchanged.
 */
export const textBlockSchema = z.lazy(() => z.object({ type: z.literal('text'), text: z.string() }));
export const toolUseBlockSchema = z.lazy(() =>
  z.object({
    type: z.literal('tool_use'),
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
  }),
);
/** An image a tool returned (MCP image contents), base64 as the Messages API takes it. */
export const imageBlockSchema = z.lazy(() =>
  z.object({
    type: z.literal('image'),
    source: z.object({ type: z.literal('base64'), media_type: z.enum(MODEL_IMAGE_TYPES), data: z.string() }),
  }),
);
/**
 * A PDF a tool returned (read_file), base64 as the Messages API takes it inside a tool_result
 * (docs.claude.com/en/docs/build-with-claude/pdf-support).
 */
export const documentBlockSchema = z.lazy(() =>
  z.object({
    type: z.literal('document'),
    source: z.object({
      type: z.literal('base64'),
      media_type: z.literal('application/pdf'),
      data: z.string(),
    }),
  }),
);
export const toolResultBlockSchema = z.lazy(() =>
  z.object({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    /** Text, or text with the images and PDFs the tool returned. */
    content: z.union([
      z.string(),
      z.array(z.discriminatedUnion('type', [textBlockSchema, imageBlockSchema, documentBlockSchema])),
    ]),
    is_error: z.boolean().optional(),
  }),
);
/**
 * The model's extended thinking, kept with its signature: the API verifies the signature when the
 * block comes back, and requires the assistant turn holding a tool call to be sent back beginning
 * with its thinking (platform.claude.com/docs/en/build-with-claude/extended-thinking, "Preserving
 * thinking blocks"). Never changed, never shown as the model's answer.
 */
export const thinkingBlockSchema = z.lazy(() =>
  z.object({
    type: z.literal('thinking'),
    thinking: z.string(),
    signature: z.string(),
  }),
);
/** Thinking the API encrypted (safety redaction): opaque `data`, sent back unchanged. */
export const redactedThinkingBlockSchema = z.lazy(() =>
  z.object({
    type: z.literal('redacted_thinking'),
    data: z.string(),
  }),
);
export const contentBlockSchema = z.lazy(() =>
  z.discriminatedUnion('type', [
    textBlockSchema,
    toolUseBlockSchema,
    toolResultBlockSchema,
    thinkingBlockSchema,
    redactedThinkingBlockSchema,
  ]),
);
export const transcriptMessageSchema = z.lazy(() =>
  z.object({
    role: z.enum(['user', 'assistant']),
    content: z.array(contentBlockSchema),
  }),
);

export type TextBlock = z.infer<typeof textBlockSchema>;
export type ToolUseBlock = z.infer<typeof toolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof toolResultBlockSchema>;
export type ThinkingBlock = z.infer<typeof thinkingBlockSchema>;
export type RedactedThinkingBlock = z.infer<typeof redactedThinkingBlockSchema>;
export type ContentBlock = z.infer<typeof contentBlockSchema>;
export type TranscriptMessage = z.infer<typeof transcriptMessageSchema>;

export function userText(text: string): TranscriptMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function toolUsesOf(message: TranscriptMessage): ToolUseBlock[] {
  return message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
}

/** A thinking or redacted-thinking block: the model's reasoning, never its answer. */
export function isThinking(block: ContentBlock): block is ThinkingBlock | RedactedThinkingBlock {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

/** The model's visible thinking in a message, for watch views and the ledger (abridge it there). */
export function thinkingOf(message: TranscriptMessage): string {
  return message.content
    .map((block) =>
      block.type === 'thinking' ? block.thinking : block.type === 'redacted_thinking' ? '[redacted]' : '',
    )
    .filter((text) => text !== '')
    .join('\n')
    .trim();
}

export function textOf(message: TranscriptMessage): string {
  return message.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n')
    .trim();
}

/**
 * Appends user-side blocks, merging into a trailing user message: the Messages API wants roles
 * to alternate, and tool results, harness notes and follow-ups of one turn belong together.
 * Tool results must come first in that message, so they are placed ahead of text blocks.
 */
export function appendUserBlocks(
  transcript: TranscriptMessage[],
  blocks: ContentBlock[],
): TranscriptMessage[] {
  if (blocks.length === 0) return transcript;
  const last = transcript[transcript.length - 1];
  if (last?.role !== 'user') return [...transcript, { role: 'user', content: orderUserBlocks(blocks) }];
  return [
    ...transcript.slice(0, -1),
    { role: 'user', content: orderUserBlocks([...last.content, ...blocks]) },
  ];
}

function orderUserBlocks(blocks: ContentBlock[]): ContentBlock[] {
  return [
    ...blocks.filter((block) => block.type === 'tool_result'),
    ...blocks.filter((b) => b.type !== 'tool_result'),
  ];
}

/** A one-line rendering of a message, for status views and the CLI. */
/** A tool result's text; images and documents are named, not inlined. */
export function toolResultText(block: ToolResultBlock): string {
  if (typeof block.content === 'string') return block.content;
  return block.content
    .map((part) => (part.type === 'text' ? part.text : `[${part.type} ${part.source.media_type}]`))
    .join('\n');
}

/** Adds text to the end of a tool result, whichever form its content has. */
export function withAppendedText(block: ToolResultBlock, text: string): ToolResultBlock {
  if (typeof block.content === 'string') return { ...block, content: `${block.content}\n${text}` };
  return { ...block, content: [...block.content, { type: 'text', text }] };
}

export function describeMessage(message: TranscriptMessage, maxLength = 200): string {
  const parts = message.content.map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'tool_use':
        return `[tool_use ${block.name} ${JSON.stringify(block.input)}]`;
      case 'tool_result':
        return `[tool_result${block.is_error ? ' (error)' : ''}] ${toolResultText(block)}`;
      case 'thinking':
        return `[thinking: ${block.thinking.length > 80 ? `${block.thinking.slice(0, 79)}…` : block.thinking}]`;
      case 'redacted_thinking':
        return '[thinking, redacted]';
    }
  });
  const line = `${message.role}: ${parts.join(' ')}`.replace(/\s+/g, ' ').trim();
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line;
}
