import { MAX_OUTPUT_TOKENS, modelLimits } from '../../common/model-limits';
import type { ContentBlock } from '../../common/transcript';

/**
 * What a model answer's stop reason means for the goal
 * (platform.claude.com/docs/en/build-with-claude/handling-stop-reasons). Pure: the workflow
 * decides from the recorded answer alone, so replay decides the same.
 *
 * - `answer`: the model finished (end_turn, tool_use, stop_sequence): its calls run, or its text
 *   is the final answer.
 * - `cut-call`: max_tokens stopped it while it wrote a tool call, so that call's input is
 *   incomplete (a write_file cut mid-content would write half a file). Nothing of it is run.
 * - `cut-text`: max_tokens (or a full context window) stopped it mid-text: asked to continue.
 * - `refusal`: the model declined; the goal fails with ModelRefused.
 * - `paused`: the API paused a long turn (pause_turn); the turn is sent back as it is to go on.
 */
export type StopVerdict = 'answer' | 'cut-call' | 'cut-text' | 'refusal' | 'paused';

export function judgeStop(stopReason: string | null, content: readonly ContentBlock[]): StopVerdict {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return content.some((block) => block.type === 'tool_use') ? 'cut-call' : 'cut-text';
    case 'refusal':
      return 'refusal';
    case 'pause_turn':
      return 'paused';
    default:
      return 'answer';
  }
}

/**
 * The max_tokens to ask a cut answer again with: the model's whole output limit (output is
 * billed by what is written, not by the room given), or twice the room when keel does not know
 * the model; undefined when the answer already had all the room there is.
 */
export function moreRoomThan(model: string, maxTokens: number): number | undefined {
  const limit = modelLimits(model)?.maxOutputTokens ?? Math.min(MAX_OUTPUT_TOKENS, maxTokens * 2);
  return limit > maxTokens ? limit : undefined;
}

/** The tool_result of a call whose input was cut off: it was not run. */
export function cutCallResult(maxTokens: number): string {
  return `Not run: your answer reached the max_tokens limit (${maxTokens} tokens) while you were writing this call, so its input is incomplete. Make the call smaller (for example, write a large file in several parts) and call it again.`;
}

/** Told to the model after an answer cut off mid-text. */
export const CONTINUE_CUT_TEXT =
  '[keel: your answer reached the max_tokens limit and was cut off. Continue exactly where it stopped, without repeating what you already wrote.]';
