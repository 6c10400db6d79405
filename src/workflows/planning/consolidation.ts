import { consolidationPlan } from './assessment';
import { describeMessage, type TranscriptMessage } from '../common/transcript';

export const BELIEF_MARKER = '[Belief from consolidated turns]';

/** Says how many model turns the belief stands for (the scripted model counts on it too). */
export function beliefHeading(condensedTurns: number): string {
  return `${BELIEF_MARKER} (replaces ${condensedTurns} earlier model turns)`;
}

/** The model turns condensed away, read back from a transcript's first message. */
export function condensedTurnsIn(firstMessageText: string): number {
  let total = 0;
  for (const match of firstMessageText.matchAll(/replaces (\d+) earlier model turns/g))
    total += Number(match[1]);
  return total;
}

/**
 * Which prefix of the transcript to condense into one belief (seed 004), or undefined. The cut
 * always ends on a user message, so the messages kept after it start with an assistant turn and
 * every kept tool_use still has its tool_result: the transcript stays a valid conversation.
 */
export function condensableThrough(options: {
  transcript: readonly TranscriptMessage[];
  keepLatestMessages: number;
  targetChars: number;
}): number | undefined {
  const turnsChars = options.transcript.map((message) => JSON.stringify(message.content).length);
  const plan = consolidationPlan({
    turnsChars,
    keepLatest: options.keepLatestMessages,
    targetChars: options.targetChars,
  });
  let through = plan.condense.at(-1);
  while (through !== undefined && through >= 2 && options.transcript[through]?.role !== 'user') through -= 1;
  return through !== undefined && through >= 2 ? through : undefined;
}

/** The condensed messages as text for the belief prompt. */
export function condensedText(transcript: readonly TranscriptMessage[], through: number): string {
  return transcript
    .slice(1, through + 1)
    .map((message) => describeMessage(message, 600))
    .join('\n');
}

/**
 * The task message stays first (with the belief added to it), then the kept latest messages: the
 * belief replaces the condensed turns in the model's context.
 */
export function replaceWithBelief(
  transcript: readonly TranscriptMessage[],
  through: number,
  belief: string,
): TranscriptMessage[] {
  const [task, ...rest] = transcript;
  if (!task) return [...transcript];
  const condensedTurns = rest.slice(0, through).filter((message) => message.role === 'assistant').length;
  const withBelief: TranscriptMessage = {
    role: 'user',
    content: [...task.content, { type: 'text', text: `${beliefHeading(condensedTurns)} ${belief}` }],
  };
  return [withBelief, ...rest.slice(through)];
}
