/**
 * The texts a goal keeps of a model's answer: the thought line the ledger shows, a paused answer
 * sent back without the trailing whitespace the API refuses, and the parts of an answer cut at
 * max_tokens joined into one text (bounded).
 */
import type { TranscriptMessage } from '../../common/transcript';

/** How much of a turn's thinking the ledger keeps: enough to follow, never the whole. */
export const THOUGHT_CHARS = 240;

export function abridged(text: string, chars: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > chars ? `${line.slice(0, chars - 1)}…` : line;
}

export function withoutTrailingSpace(message: TranscriptMessage): TranscriptMessage {
  const last = message.content.at(-1);
  if (last?.type !== 'text' || last.text === last.text.trimEnd()) return message;
  return {
    ...message,
    content: [...message.content.slice(0, -1), { type: 'text', text: last.text.trimEnd() }],
  };
}

export function untrimmedTextOf(message: TranscriptMessage): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/**
 * The most of an answer's cut parts the goal keeps: an endpoint that cuts every answer would
 * otherwise grow the state (and continue-as-new's payload) by an answer a turn.
 */
const MAX_JOINED_CHARS = 200_000;

/** The parts of an answer cut at max_tokens and the part that completed it, as one text. */
export function joinedText(before: string | undefined, text: string): string {
  const joined = before === undefined || before === '' ? text : `${before}${text}`;
  return joined.length > MAX_JOINED_CHARS
    ? `${joined.slice(0, MAX_JOINED_CHARS)}\n[keel: the answer went on for ${joined.length} characters; only the first ${MAX_JOINED_CHARS} are kept.]`
    : joined;
}
