/**
 * Cadence reflection (principle 3 of the harness): every N tool calls the workflow injects a
 * scheduled checkpoint asking the model to recalibrate against the original task. It is a
 * metronome, not a guard: it fires whether or not the agent looks stuck, because slow drift
 * never trips a guard and is only visible in hindsight, ten wasted steps later.
 *
 * Pure and deterministic: the workflow calls these after each turn that used tools.
 */

/** 000 proposed 10; 003 records the later change to 7. 0 disables checkpoints. */
export const DEFAULT_REFLECTION_CADENCE = 7;

/** The text every checkpoint message starts with, so other code (stats, judges, UIs) can spot one. */
export const CHECKPOINT_MARKER = '[Scheduled checkpoint]';

/** Longest task quote in a checkpoint; longer tasks are cut to fit, ending in "...". */
export const MAX_QUOTED_TASK_CHARACTERS = 300;

/**
 * Tool calls since the last checkpoint when a checkpoint is due; undefined otherwise.
 *
 * - cadence <= 0 disables checkpoints entirely;
 * - the difference saturates at 0, so a marker ahead of the count (a stale marker after a reset
 *   that missed it) never fires instead of producing a nonsense delta;
 * - `>=` rather than `===`: one turn may run several calls and jump past the cadence, and the
 *   prompt then reports the real number.
 */
export function checkpointDue(
  toolCalls: number,
  lastCheckpointAt: number,
  cadence: number,
): number | undefined {
  if (cadence <= 0) return undefined;
  const since = Math.max(0, toolCalls - lastCheckpointAt);
  return since >= cadence ? since : undefined;
}

/**
 * `text` unchanged when it has at most `maxCharacters` characters, otherwise its first
 * `maxCharacters - 3` characters plus "...". Counts code points, not UTF-16 units, so a cut never
 * splits a surrogate pair (tasks are often not ASCII).
 */
export function truncateText(text: string, maxCharacters: number): string {
  const characters = Array.from(text);
  if (characters.length <= maxCharacters) return text;
  return `${characters.slice(0, Math.max(0, maxCharacters - 3)).join('')}...`;
}

export interface CheckpointPromptOptions {
  toolCallsSinceCheckpoint: number;
  /** The task as the user gave it; undefined or blank asks the model to restate the goal. */
  taskText?: string | undefined;
}

/**
 * The checkpoint message injected as a user turn. Framed as routine recalibration, never as a
 * failure or a stop, because it fires on a schedule. Its three questions apply to any task and any
 * tool, so it names no tool, language or ecosystem (the harness must not teach ecosystem tricks).
 */
export function checkpointPrompt({ toolCallsSinceCheckpoint, taskText }: CheckpointPromptOptions): string {
  const count = toolCallsSinceCheckpoint;
  const calls = count === 1 ? '1 tool call' : `${count} tool calls`;
  const hasTask = taskText !== undefined && taskText.trim() !== '';
  const taskLines = hasTask
    ? [
        'The original task, quoted verbatim:',
        '<task>',
        truncateText(taskText, MAX_QUOTED_TASK_CHARACTERS),
        '</task>',
      ]
    : ['The original task was not recorded: restate the goal in one sentence first.'];
  return [
    `${CHECKPOINT_MARKER} This is a routine recalibration that comes on a fixed schedule, not an interruption.`,
    `You have made ${calls} since the last checkpoint.`,
    ...taskLines,
    'Before your next tool call, answer in plain text:',
    '1. Say whether the current plan still matches the task; if it does not, say how the plan changes.',
    `2. State what the last ${calls} proved or ruled out.`,
    '3. Name the next concrete output (an edit, an answer, a summary) and roughly how many steps away it is.',
  ].join('\n');
}
