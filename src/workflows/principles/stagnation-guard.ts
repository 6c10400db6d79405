/**
 * Enforced stagnation (issue 10): seed 001's self-assessment *suggests* abandoning a goal after
 * 16 cycles without progress; a model that ignores suggestions never abandons. Here the harness
 * warns once when a default cadence of tool calls passes without progress, and at 16 model turns
 * without progress it stops the goal (or, with planning on, fails the step so the plan backtracks).
 *
 * Progress is what changes the world or the plan: a successful mutating or irreversible call, or
 * a completed plan step. Reading is not progress: a goal can read forever and achieve nothing.
 */

export interface StagnationSettings {
  enabled: boolean;
  /** Tool calls without progress that earn a direct prompt (the default cadence, 7). */
  warnAfterCalls: number;
  /** Model turns without progress that stop the goal (seed 001's abandon limit, 16). */
  stopAfterTurns: number;
}

export const DEFAULT_STAGNATION_SETTINGS: StagnationSettings = {
  enabled: true,
  warnAfterCalls: 7,
  stopAfterTurns: 16, // planning/assessment.ts ABANDON_STAGNANT_CYCLES (this room may not import it)
};

export interface StagnationInput {
  toolCalls: number;
  modelTurns: number;
  /** The tool-call count and model turn at the last progress (or the start of the goal or task). */
  progressAtToolCall: number;
  progressAtTurn: number;
  /** Whether the model was already warned in this stretch without progress. */
  warned: boolean;
}

export type StagnationVerdict =
  | { kind: 'none' }
  | { kind: 'warn' | 'stop'; callsWithoutProgress: number; turnsWithoutProgress: number; limit: number };

export function detectStagnation(input: StagnationInput, settings: StagnationSettings): StagnationVerdict {
  if (!settings.enabled) return { kind: 'none' };
  const callsWithoutProgress = Math.max(0, input.toolCalls - input.progressAtToolCall);
  const turnsWithoutProgress = Math.max(0, input.modelTurns - input.progressAtTurn);
  const numbers = { callsWithoutProgress, turnsWithoutProgress };
  // A stop only after a warning: the model always gets one direct chance to change course.
  if (input.warned && settings.stopAfterTurns > 0 && turnsWithoutProgress >= settings.stopAfterTurns) {
    return { kind: 'stop', ...numbers, limit: settings.stopAfterTurns };
  }
  if (!input.warned && settings.warnAfterCalls > 0 && callsWithoutProgress >= settings.warnAfterCalls) {
    return { kind: 'warn', ...numbers, limit: settings.warnAfterCalls };
  }
  return { kind: 'none' };
}

export function stagnationPrompt(options: {
  callsWithoutProgress: number;
  turnsWithoutProgress: number;
  stopAfterTurns: number;
  consequence: string;
}): string {
  return [
    `[No progress] Your last ${options.callsWithoutProgress} tool calls changed nothing: no file was written or edited and no plan step was completed.`,
    'Reading more will not finish the task. Do one of these next:',
    '1. Make the change the task asks for (an edit or a new file)',
    '2. Give your final answer now, with what you found',
    '3. Say in plain text what blocks the task',
    `At ${options.stopAfterTurns} model turns without progress (now ${options.turnsWithoutProgress}), keel ${options.consequence}.`,
  ].join('\n');
}
