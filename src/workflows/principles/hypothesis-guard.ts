/**
 * Hypotheses that keep missing (issue 10): principle 1 answers each clear mismatch with a
 * reflection prompt, which a model can ignore every time. A streak of mismatches means the model
 * acts on a wrong picture of the workspace; the harness says so directly, and stops a goal whose
 * stated expectations go on failing.
 */

export interface HypothesisGuardSettings {
  enabled: boolean;
  /** Mismatches in a row (among calls that stated a hypothesis) that earn a direct prompt. */
  warnAfter: number;
  /** Mismatches in a row that stop the goal (or fail the plan step). */
  stopAfter: number;
}

export const DEFAULT_HYPOTHESIS_GUARD_SETTINGS: HypothesisGuardSettings = {
  enabled: true,
  warnAfter: 3,
  stopAfter: 6,
};

export type HypothesisVerdictOfGuard =
  { kind: 'none' } | { kind: 'warn' | 'stop'; streak: number; limit: number };

/**
 * The streak after one more call with a hypothesis: `mismatch` extends it, a match ends it.
 * Returns the new streak and what to do (a warning once per streak, a stop after a warning).
 */
export function observeHypothesis(options: {
  streak: number;
  warned: boolean;
  mismatch: boolean;
  settings: HypothesisGuardSettings;
}): { streak: number; verdict: HypothesisVerdictOfGuard } {
  const { settings } = options;
  const streak = options.mismatch ? options.streak + 1 : 0;
  if (!settings.enabled || streak === 0) return { streak, verdict: { kind: 'none' } };
  if (options.warned && streak >= settings.stopAfter) {
    return { streak, verdict: { kind: 'stop', streak, limit: settings.stopAfter } };
  }
  if (!options.warned && streak >= settings.warnAfter) {
    return { streak, verdict: { kind: 'warn', streak, limit: settings.warnAfter } };
  }
  return { streak, verdict: { kind: 'none' } };
}

export function hypothesisStreakPrompt(options: {
  streak: number;
  stopAfter: number;
  consequence: string;
}): string {
  return [
    `[Hypotheses keep missing] Your last ${options.streak} stated hypotheses did not match what the calls returned.`,
    'Your picture of the workspace is wrong somewhere. Before the next call:',
    '1. Say in plain text which assumption the results contradict',
    '2. Make a call that checks that assumption directly',
    '3. State a hypothesis only when you have a reason to expect it',
    `At ${options.stopAfter} mismatches in a row, keel ${options.consequence}.`,
  ].join('\n');
}
