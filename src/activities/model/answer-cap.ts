import type { ContentBlock } from '../../workflows/common/transcript';

/**
 * The most of a model answer keel keeps, in serialized characters. An answer is bounded by
 * max_tokens (a few tens of thousands of characters), but an endpoint can send more; an activity
 * result over Temporal's 2 MB payload limit cannot be recorded, so Temporal would retry the
 * activity — a new paid model call each time — for ever. Cutting it here records it once.
 */
export const MAX_ANSWER_CHARS = 200_000;

export interface CappedAnswer {
  readonly content: ContentBlock[];
  /** Characters the answer had when it was cut; undefined when it fitted. */
  readonly cutFromChars?: number;
}

export function capAnswer(content: ContentBlock[], maxChars = MAX_ANSWER_CHARS): CappedAnswer {
  const size = JSON.stringify(content).length;
  if (size <= maxChars) return { content };
  // Text keeps its beginning; a tool call whose input alone is too large cannot be kept.
  const share = Math.floor(maxChars / Math.max(1, content.length)) - 200;
  const capped = content.map((block): ContentBlock => {
    if (block.type === 'text' && block.text.length > share)
      return { ...block, text: block.text.slice(0, share) };
    if (block.type === 'tool_use' && JSON.stringify(block.input).length > share)
      return { ...block, input: { error: `keel dropped this input: it was over ${share} characters` } };
    return block;
  });
  capped.push({
    type: 'text',
    text: `[keel: the model's answer had ${size} characters, over the ${maxChars}-character limit, and was cut.]`,
  });
  return { content: capped, cutFromChars: size };
}
