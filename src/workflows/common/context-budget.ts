import type { ContentBlock, ToolResultBlock, TranscriptMessage } from './transcript';

/**
 * A hard bound on the context sent to the model. Without one, a goal that reads a few large files
 * grows its transcript past what a model accepts and past Temporal's 2 MB payload limit, and then
 * every workflow task fails, forever. When the transcript is over budget, the oldest large tool
 * results (and tool inputs) are replaced by a short note, oldest first, until it fits: the task
 * message stays whole, every tool_use keeps its tool_result (only contents shrink), and the latest
 * messages are touched only when the rest was not enough. Pure and deterministic: it runs in
 * workflow code, and replay must cut exactly the same blocks.
 */
export interface ContextBudget {
  /** Characters of the serialized transcript the model may be sent. */
  readonly maxChars: number;
  /** The newest messages, kept whole unless eliding everything older was not enough. */
  readonly keepLatestMessages: number;
}

export interface FittedTranscript {
  readonly transcript: TranscriptMessage[];
  /** Blocks whose content was replaced or cut. */
  readonly elidedBlocks: number;
  readonly charsBefore: number;
  readonly charsAfter: number;
}

export const ELISION_MARK = '[Elided by keel to keep the context within its budget:';
/** Blocks smaller than this are never worth eliding. */
const WORTH_ELIDING = 400;

export function fitToBudget(
  transcript: readonly TranscriptMessage[],
  budget: ContextBudget,
): FittedTranscript {
  const charsBefore = sizeOf(transcript);
  if (charsBefore <= budget.maxChars) {
    return { transcript: [...transcript], elidedBlocks: 0, charsBefore, charsAfter: charsBefore };
  }
  const messages = transcript.map((message) => ({ ...message, content: [...message.content] }));
  let chars = charsBefore;
  let elidedBlocks = 0;
  const keptFrom = Math.max(1, messages.length - budget.keepLatestMessages);
  // First the older messages, then the kept ones but the last, then the last message itself.
  const passes: [number, number][] = [
    [1, keptFrom],
    [keptFrom, messages.length - 1],
    [Math.max(1, messages.length - 1), messages.length],
  ];
  for (const [from, to] of passes) {
    for (let index = from; index < to && chars > budget.maxChars; index += 1) {
      const message = messages[index];
      if (!message) continue;
      for (let at = 0; at < message.content.length && chars > budget.maxChars; at += 1) {
        const block = message.content[at] as ContentBlock;
        const before = JSON.stringify(block).length;
        if (before < WORTH_ELIDING) continue;
        // The last message keeps what fits of its blocks; older ones keep only the note.
        const keepChars =
          index === messages.length - 1 ? Math.max(0, before - (chars - budget.maxChars) - 400) : 0;
        const smaller = elide(block, keepChars);
        const after = JSON.stringify(smaller).length;
        if (after >= before) continue;
        message.content[at] = smaller;
        chars -= before - after;
        elidedBlocks += 1;
      }
    }
  }
  return { transcript: messages, elidedBlocks, charsBefore, charsAfter: sizeOf(messages) };
}

function sizeOf(transcript: readonly TranscriptMessage[]): number {
  return JSON.stringify(transcript).length;
}

function elide(block: ContentBlock, keepChars: number): ContentBlock {
  switch (block.type) {
    case 'tool_result':
      return { ...block, content: elidedText(resultText(block), keepChars, 'this tool result') };
    case 'tool_use':
      // The input must stay an object; its shape no longer matters once the call has run.
      return {
        ...block,
        input: { elided: elidedText(JSON.stringify(block.input), keepChars, 'this tool input') },
      };
    case 'text':
      return { ...block, text: elidedText(block.text, keepChars, 'this text') };
  }
}

function resultText(block: ToolResultBlock): string {
  if (typeof block.content === 'string') return block.content;
  return block.content
    .map((part) => (part.type === 'text' ? part.text : `[image ${part.source.media_type}]`))
    .join('\n');
}

function elidedText(text: string, keepChars: number, what: string): string {
  const kept = text.slice(0, keepChars);
  const note = `${ELISION_MARK} ${what} had ${text.length} characters${kept ? `; the first ${kept.length} are above` : ''}. Call the tool again if you need it.]`;
  return kept ? `${kept}\n${note}` : note;
}
