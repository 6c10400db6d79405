import { isThinking, type ContentBlock, type ToolResultBlock, type TranscriptMessage } from './transcript';

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
  /** Whole old turns (an assistant message and the user message after it) removed. */
  readonly droppedTurns: number;
  readonly charsBefore: number;
  readonly charsAfter: number;
}

export const ELISION_MARK = '[Elided by keel to keep the context within its budget:';
export const DROPPED_TURNS_MARK = '[keel dropped the oldest turns to keep the context within its budget:';
/**
 * A transcript over budget is cut to this share of it, so the next cut comes many
 * turns later: between cuts each turn's request extends the last one (nextModelRequest) instead
 * of being sent whole, which an exact fit would force on every turn once a goal is long.
 */
export const HEADROOM_SHARE = 0.75;
/** Blocks smaller than this are never worth eliding. */
const WORTH_ELIDING = 400;

/**
 * Cuts to HEADROOM_SHARE of the budget, and when eliding old blocks is not enough, drops the
 * oldest whole turns (an assistant message with the user message answering it, so every tool_use
 * keeps its tool_result), counted in a note after the task: small blocks are never elided, so
 * without dropping turns a goal of thousands of calls would outgrow any budget.
 */
export function fitToBudget(
  transcript: readonly TranscriptMessage[],
  budget: ContextBudget,
): FittedTranscript {
  const charsBefore = sizeOfSettled(transcript);
  if (charsBefore <= budget.maxChars) {
    return {
      transcript: [...transcript],
      elidedBlocks: 0,
      droppedTurns: 0,
      charsBefore,
      charsAfter: charsBefore,
    };
  }
  const target = Math.floor(budget.maxChars * HEADROOM_SHARE);
  // Copy on write: a message this cut leaves alone stays the same object, so the next request
  // can name it in the stored one instead of sending it again (nextModelRequest).
  let messages = [...transcript];
  const copies = new Set<TranscriptMessage>();
  const writable = (index: number): TranscriptMessage => {
    const message = messages[index] as TranscriptMessage;
    if (copies.has(message)) return message;
    const copy = { ...message, content: [...message.content] };
    messages[index] = copy;
    copies.add(copy);
    return copy;
  };
  let chars = charsBefore;
  let elidedBlocks = 0;
  let droppedTurns = 0;
  const elideIn = (from: number, to: number): void => {
    const lastAssistant = lastAssistantIndex();
    for (let index = from; index < to && chars > target; index += 1) {
      let message = messages[index];
      if (!message) continue;
      for (let at = 0; at < message.content.length && chars > target; at += 1) {
        const block = message.content[at] as ContentBlock;
        const before = JSON.stringify(block).length;
        if (before < WORTH_ELIDING) continue;
        if (isThinking(block)) {
          // Thinking is signed: it can be left out of an earlier turn (the API allows that) but
          // never cut. The last assistant message keeps it (a tool-use loop needs it whole).
          if (index === lastAssistant || message.content.every(isThinking)) continue;
          message = writable(index);
          message.content.splice(at, 1);
          at -= 1;
          chars -= before + 1;
          elidedBlocks += 1;
          continue;
        }
        // The last message keeps what fits of its blocks; older ones keep only the note.
        const keepChars = index === messages.length - 1 ? Math.max(0, before - (chars - target) - 400) : 0;
        const smaller = elide(block, keepChars);
        const after = JSON.stringify(smaller).length;
        if (after >= before) continue;
        message = writable(index);
        message.content[at] = smaller;
        chars -= before - after;
        elidedBlocks += 1;
      }
    }
  };
  // Recomputed per pass: dropping old turns moves every index.
  const lastAssistantIndex = (): number => {
    for (let index = messages.length - 1; index >= 0; index -= 1)
      if (messages[index]?.role === 'assistant') return index;
    return -1;
  };
  const keptFrom = (): number => Math.max(1, messages.length - budget.keepLatestMessages);
  // First the older messages, then whole old turns, then the kept ones but the
  // last, then the last message itself.
  elideIn(1, keptFrom());
  if (chars > target) {
    const dropped = dropOldestTurns(messages, keptFrom(), chars - target);
    messages = dropped.messages;
    droppedTurns = dropped.droppedTurns;
    chars = sizeOf(messages);
  }
  elideIn(keptFrom(), messages.length - 1);
  elideIn(Math.max(1, messages.length - 1), messages.length);
  return { transcript: messages, elidedBlocks, droppedTurns, charsBefore, charsAfter: sizeOf(messages) };
}

/**
 * Removes assistant/user pairs right after the task message until `excessChars` are gone or
 * only the kept latest messages are left, and says how many turns are gone in a note that
 * follows the task (one note, its count growing with later drops).
 */
function dropOldestTurns(
  messages: TranscriptMessage[],
  keptFrom: number,
  excessChars: number,
): { messages: TranscriptMessage[]; droppedTurns: number } {
  const [task, ...rest] = messages;
  if (!task) return { messages, droppedTurns: 0 };
  // The note itself takes room: a generous allowance for it (its count can grow by digits).
  const noteAllowance = DROPPED_TURNS_MARK.length + 200;
  let removedChars = 0;
  let count = 0;
  while (
    removedChars < excessChars + noteAllowance &&
    count + 2 < keptFrom &&
    rest[count]?.role === 'assistant' &&
    rest[count + 1]?.role === 'user'
  ) {
    removedChars += JSON.stringify(rest[count]).length + JSON.stringify(rest[count + 1]).length + 2;
    count += 2;
  }
  if (count === 0) return { messages, droppedTurns: 0 };
  const earlier = task.content.find(
    (block): block is Extract<ContentBlock, { type: 'text' }> =>
      block.type === 'text' && block.text.startsWith(DROPPED_TURNS_MARK),
  );
  const turnsBefore = earlier ? droppedTurnsIn(earlier.text) : 0;
  const turns = turnsBefore + count / 2;
  const note: ContentBlock = {
    type: 'text',
    text: `${DROPPED_TURNS_MARK} ${turns} turn${turns === 1 ? '' : 's'} dropped after this task. What they found is in the later turns or can be looked up again.]`,
  };
  const taskContent = [...task.content.filter((block) => block !== earlier), note];
  return { messages: [{ ...task, content: taskContent }, ...rest.slice(count)], droppedTurns: count / 2 };
}

/** The turns a transcript's dropped-turns note counts (0 without one), read from its text. */
export function droppedTurnsIn(text: string): number {
  const at = text.indexOf(DROPPED_TURNS_MARK);
  if (at < 0) return 0;
  return Number(/^ (\d+) turns? dropped/.exec(text.slice(at + DROPPED_TURNS_MARK.length))?.[1] ?? 0);
}

/**
 * Serialized sizes of transcript messages, by message object. The check above runs before every
 * model turn, and serializing the whole transcript each time was an eighth of a long goal's replay
 * time. Only the goal's own messages are measured here; they are never changed in place (the
 * copies this file changes are measured directly), so a remembered size stays true. Keyed weakly:
 * dropped messages take their sizes with them.
 */
const settledSizes = new WeakMap<TranscriptMessage, number>();

/** The same number as sizeOf: "[", the messages with a comma between each two, "]". */
function sizeOfSettled(transcript: readonly TranscriptMessage[]): number {
  if (transcript.length === 0) return 2;
  let total = transcript.length + 1;
  for (const message of transcript) {
    let size = settledSizes.get(message);
    if (size === undefined) {
      size = JSON.stringify(message).length;
      settledSizes.set(message, size);
    }
    total += size;
  }
  return total;
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
    case 'thinking':
    case 'redacted_thinking':
      return block; // signed: left out whole or kept whole, never cut (see elideIn)
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
