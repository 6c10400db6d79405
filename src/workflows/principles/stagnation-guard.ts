/**
 * Enforced stagnation (issues 10 and 22): seed 001's self-assessment *suggests* abandoning a goal
 * without progress; a model that ignores suggestions never abandons. Progress is defined in
 * progress.ts: new information or a new, lasting state. Two stretches are watched:
 *
 * - **stagnation**: calls that brought nothing new. Counted as a share of the latest calls, not as
 *   an unbroken run, so one cosmetic write every few calls (a scratch file, "attempt 7") does not
 *   reset it. A direct prompt first; if the model goes on bringing nothing new, the goal stops (or,
 *   with planning on, the step fails and the plan backtracks).
 * - **exploration**: calls since the last new lasting state. Reading what the goal has not seen is
 *   exploration, and careful work reads a lot before it writes (real agents read up to 31 calls
 *   before their first edit), so this limit is long; it catches a model that reads forever.
 *
 * Every stop comes after a warning the model has read (a turn of its own since the warning).
 */

export interface StagnationSettings {
  enabled: boolean;
  /** How many of the latest calls the share is taken over. */
  window: number;
  /** Calls without anything new, within the window, that earn a direct prompt. */
  warnAfterCalls: number;
  /** Calls without anything new, within the window, that stop the goal after the prompt. */
  stopAfterCalls: number;
  /** Model turns in a row without anything new that stop it too (seed 001's abandon limit, 16). */
  stopAfterTurns: number;
  /** Calls without a new lasting state (reading new things only) that earn a direct prompt. */
  exploreWarnAfterCalls: number;
  /** Calls without a new lasting state that stop the goal after that prompt. */
  exploreStopAfterCalls: number;
}

export const DEFAULT_STAGNATION_SETTINGS: StagnationSettings = {
  enabled: true,
  window: 10,
  warnAfterCalls: 7,
  stopAfterCalls: 9,
  stopAfterTurns: 16, // planning/assessment.ts ABANDON_STAGNANT_CYCLES (this room may not import it)
  exploreWarnAfterCalls: 30,
  exploreStopAfterCalls: 45,
};

export interface StagnationInput {
  /** Whether each of the latest calls brought something new, oldest first (at most the window). */
  recent: readonly boolean[];
  /** Model turns since something new last came. */
  turnsWithoutNew: number;
  /** A stagnation warning the model has read (false when none, or not yet read). */
  warnedAndRead: boolean;
  warned: boolean;
}

export type StagnationVerdict =
  | { kind: 'none' }
  | {
      kind: 'warn' | 'stop';
      callsWithoutNew: number;
      window: number;
      turnsWithoutNew: number;
      limit: number;
    };

export function detectStagnation(input: StagnationInput, settings: StagnationSettings): StagnationVerdict {
  if (!settings.enabled) return { kind: 'none' };
  const latest = input.recent.slice(-settings.window);
  const callsWithoutNew = latest.filter((brought) => !brought).length;
  const numbers = { callsWithoutNew, window: latest.length, turnsWithoutNew: input.turnsWithoutNew };
  if (input.warnedAndRead) {
    if (settings.stopAfterCalls > 0 && callsWithoutNew >= settings.stopAfterCalls)
      return { kind: 'stop', ...numbers, limit: settings.stopAfterCalls };
    if (settings.stopAfterTurns > 0 && input.turnsWithoutNew >= settings.stopAfterTurns)
      return { kind: 'stop', ...numbers, limit: settings.stopAfterTurns };
  }
  if (!input.warned && settings.warnAfterCalls > 0 && callsWithoutNew >= settings.warnAfterCalls)
    return { kind: 'warn', ...numbers, limit: settings.warnAfterCalls };
  return { kind: 'none' };
}

export type ExplorationVerdict =
  { kind: 'none' } | { kind: 'warn' | 'stop'; callsWithoutChange: number; limit: number };

export function detectEndlessExploration(
  input: {
    callsWithoutChange: number;
    warned: boolean;
    warnedAndRead: boolean;
    /**
     * Every one of the latest calls (a full stagnation window) brought something new: careful
     * reading of a large codebase (issue 44: 40 files read before 40 edits), not endless
     * exploration. The prompt waits until reading stops bringing something new.
     */
    stillLearning?: boolean;
  },
  settings: StagnationSettings,
): ExplorationVerdict {
  if (!settings.enabled) return { kind: 'none' };
  const { callsWithoutChange } = input;
  if (
    input.warnedAndRead &&
    settings.exploreStopAfterCalls > 0 &&
    callsWithoutChange >= settings.exploreStopAfterCalls
  )
    return { kind: 'stop', callsWithoutChange, limit: settings.exploreStopAfterCalls };
  if (
    !input.warned &&
    input.stillLearning !== true &&
    settings.exploreWarnAfterCalls > 0 &&
    callsWithoutChange >= settings.exploreWarnAfterCalls
  )
    return { kind: 'warn', callsWithoutChange, limit: settings.exploreWarnAfterCalls };
  return { kind: 'none' };
}

export function stagnationPrompt(options: {
  callsWithoutNew: number;
  window: number;
  stopAfterCalls: number;
  /** The turns-in-a-row stop; named only when the calls' stop is off (0), so the threat is real. */
  stopAfterTurns?: number;
  consequence: string;
  /**
   * The window the stop limit is counted in (the settings'); `window` is how many calls were
   * seen, fewer early in a task. Defaults to `window`.
   */
  stopWindow?: number;
}): string {
  return [
    `[No progress] ${options.callsWithoutNew} of your last ${options.window} tool calls brought nothing new: results you had already seen, the same failure again, or a change that undid or only repeated an earlier one.`,
    'Repeating what you have already done will not finish the task. Do one of these next:',
    '1. Make the change the task asks for, using what you already found',
    '2. Look somewhere you have not looked yet, if something is still missing',
    '3. Give your final answer now, or say in plain text what blocks the task',
    ...stagnationStopLine(options),
  ].join('\n');
}

/**
 * The stop the warning announces: a limit of 0 turns that stop off, so a warning must not threaten
 * "0 of your latest 10 calls" (which a model reads as a stop at the next call); with both stops
 * off the warning is a prompt only and says nothing of a stop.
 */
function stagnationStopLine(options: {
  window: number;
  stopAfterCalls: number;
  stopAfterTurns?: number;
  consequence: string;
  stopWindow?: number;
}): string[] {
  if (options.stopAfterCalls > 0)
    return [
      `If ${options.stopAfterCalls} of your latest ${options.stopWindow ?? options.window} calls bring nothing new, keel ${options.consequence}.`,
    ];
  if ((options.stopAfterTurns ?? 0) > 0)
    return [
      `If ${options.stopAfterTurns} of your turns in a row bring nothing new, keel ${options.consequence}.`,
    ];
  return [];
}

export function explorationPrompt(options: {
  callsWithoutChange: number;
  stopAfterCalls: number;
  consequence: string;
}): string {
  return [
    `[Still exploring] ${options.callsWithoutChange} tool calls since anything in the workspace last changed. Reading is useful, but the task needs an outcome.`,
    'Decide now what the change is and make it, or give your final answer with what you found, or say in plain text what blocks the task.',
    // A limit of 0 turns the stop off: then the prompt threatens nothing.
    ...(options.stopAfterCalls > 0
      ? [`At ${options.stopAfterCalls} calls without a change, keel ${options.consequence}.`]
      : []),
  ].join('\n');
}
