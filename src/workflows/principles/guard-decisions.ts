/**
 * What every guard decides, and how warnings are remembered: a guard prompts the model first, and
 * stops only once the model has read that prompt (it had a turn since). Split from guards.ts so
 * each guard's module can build its decisions the same way.
 */

/** Warnings remembered (with the turn they were given), to know whether the model has read them. */
const MAX_REMEMBERED_WARNINGS = 40;

/** The part of the guards' state that remembers warnings. */
export interface WarningMemory {
  warnings: Array<{ about: string; atTurn: number; atToolCall?: number }>;
}

export const GuardName = {
  Loop: 'loop',
  Cycle: 'cycle',
  Stagnation: 'stagnation',
  Exploration: 'exploration',
  Denials: 'denials',
  Checkpoints: 'checkpoints',
  Hypotheses: 'hypotheses',
  Waiting: 'waiting',
} as const;
export type GuardName = (typeof GuardName)[keyof typeof GuardName];

export const GuardAction = {
  /** A direct prompt to the model, naming what the guard saw. */
  Warn: 'warn',
  /** Checkpoints enforced from now on: tool calls held back until one is answered. */
  Escalate: 'escalate',
  /** The goal stops as stuck, or with planning on the active step fails and the plan backtracks. */
  Stop: 'stop',
} as const;
export type GuardAction = (typeof GuardAction)[keyof typeof GuardAction];

export interface GuardDecision {
  guard: GuardName;
  action: GuardAction;
  /** One line for the ledger and, on a stop, the goal's reason. */
  summary: string;
  /** The message for the model (warnings and escalations). */
  prompt?: string;
  /** The evidence: counts, limits, the repeated call; a stop also names the turn of its warning. */
  data: Record<string, unknown>;
}

/** Whether the model has read a warning about `about`: given in an earlier turn than this one. */
export function warnedAndRead(state: WarningMemory, about: string, modelTurns: number): boolean {
  return state.warnings.some((warning) => warning.about === about && warning.atTurn < modelTurns);
}

export function warnedAtTurn(state: WarningMemory, about: string): number | undefined {
  return state.warnings.find((warning) => warning.about === about)?.atTurn;
}

/**
 * A warning (or an escalation), remembered by what it is about with the turn it was given in: a
 * later stop about the same thing needs the model to have read it.
 */
export function warn(
  state: WarningMemory,
  about: string,
  at: { modelTurns: number; atToolCall?: number },
  decision: Omit<GuardDecision, 'action'> & { action?: GuardAction },
): GuardDecision {
  state.warnings = [
    ...state.warnings.filter((warning) => warning.about !== about),
    { about, atTurn: at.modelTurns, ...(at.atToolCall === undefined ? {} : { atToolCall: at.atToolCall }) },
  ].slice(-MAX_REMEMBERED_WARNINGS);
  return { ...decision, action: decision.action ?? GuardAction.Warn };
}

/** A stop: it says it came after a warning, and its data names the turn that warning was given in. */
export function stopAfterWarning(
  state: WarningMemory,
  about: string,
  decision: { guard: GuardName; summary: string; data: Record<string, unknown> },
): GuardDecision {
  return {
    guard: decision.guard,
    action: GuardAction.Stop,
    summary: `${decision.summary}, after a warning`,
    data: { ...decision.data, warnedAtTurn: warnedAtTurn(state, about) },
  };
}
