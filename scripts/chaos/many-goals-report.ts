import { seconds } from './chaos-environment';
import type { EffectOutcome } from './chaos-outcome';
import type { ChaosOptions } from './run-chaos';

/** The one-goal run's settings, for N goals at once (its goal timeout counts from their start). */
export interface ManyGoalsOptions extends Omit<ChaosOptions, 'log'> {
  /** Goals started at once, each in its own workspace. */
  readonly goals: number;
}

/** One goal of a many-goals run: how it ended and what its irreversible calls did. */
export interface GoalRun extends EffectOutcome {
  readonly workflowId: string;
  /** The goal's own status when its workflow completed; else the execution's, lower case. */
  readonly status: string;
  /** Why it did not complete: the goal's reason, or the workflow failure's message chain. */
  readonly reason?: string;
  readonly durationMs: number;
}

export interface ManyGoalsReport {
  readonly options: ManyGoalsOptions;
  readonly goals: GoalRun[];
  readonly killsDone: number;
  readonly restartsDone: number;
  /** From the first goal's start until the last one ended (or the wait gave up). */
  readonly wallMs: number;
  readonly modelRequests: number;
}

export const TIMED_OUT_WAITING = 'timed_out_waiting';

/** Every effect of the goal is in its file exactly once: none duplicated, none missing. */
export function exactlyOnce(goal: EffectOutcome): boolean {
  return goal.duplicatedEffects.length === 0 && goal.missingEffects.length === 0;
}

export interface ManyGoalsTally {
  readonly completed: number;
  /** Ended any other way than completed: failed, terminated, stopped by a guard... */
  readonly failed: number;
  /** Still running when the wait gave up. */
  readonly timedOut: number;
  /** Goals whose every effect happened exactly once. */
  readonly exactlyOnce: number;
  /** Summed over the goals. */
  readonly duplicatedEffects: number;
  readonly missingEffects: number;
  readonly unexplainedMissing: number;
  readonly unknownOutcomes: number;
  readonly approvalsSent: number;
  readonly lostApprovals: number;
}

export function tallyGoals(goals: readonly GoalRun[]): ManyGoalsTally {
  const count = (predicate: (goal: GoalRun) => boolean) => goals.filter(predicate).length;
  const sum = (size: (goal: GoalRun) => number) => goals.reduce((total, goal) => total + size(goal), 0);
  return {
    completed: count((goal) => goal.status === 'completed'),
    failed: count((goal) => goal.status !== 'completed' && goal.status !== TIMED_OUT_WAITING),
    timedOut: count((goal) => goal.status === TIMED_OUT_WAITING),
    exactlyOnce: count(exactlyOnce),
    duplicatedEffects: sum((goal) => goal.duplicatedEffects.length),
    missingEffects: sum((goal) => goal.missingEffects.length),
    unexplainedMissing: sum((goal) => goal.unexplainedMissing.length),
    unknownOutcomes: sum((goal) => goal.unknownOutcomes.length),
    approvalsSent: sum((goal) => goal.approvalsSent),
    lostApprovals: sum((goal) => goal.lostApprovals.length),
  };
}

/**
 * The targets of a many-goals run: every goal completed (none failed, none still running), every
 * irreversible effect of every goal exactly once, and no approval lost. Stricter than the
 * one-goal run: a missing effect fails even when an unknown outcome accounts for it.
 */
export function manyGoalsTargetsMet(report: ManyGoalsReport): boolean {
  const tally = tallyGoals(report.goals);
  return (
    report.goals.length === report.options.goals &&
    tally.completed === report.goals.length &&
    tally.exactlyOnce === report.goals.length &&
    tally.lostApprovals === 0
  );
}

/** A goal that missed a target, in one line; undefined for a goal that met them all. */
export function goalProblem(goal: GoalRun): string | undefined {
  const problems: string[] = [];
  if (goal.status !== 'completed')
    problems.push(`${goal.status}${goal.reason === undefined ? '' : ` (${goal.reason})`}`);
  if (goal.duplicatedEffects.length > 0) problems.push(`duplicated ${goal.duplicatedEffects.join(', ')}`);
  if (goal.missingEffects.length > 0) {
    const reported = goal.missingEffects.length - goal.unexplainedMissing.length;
    problems.push(
      `missing ${goal.missingEffects.join(', ')} (${reported} reported by the goal as outcome unknown)`,
    );
  }
  if (goal.lostApprovals.length > 0) problems.push(`lost approvals ${goal.lostApprovals.join(', ')}`);
  return problems.length === 0 ? undefined : `${goal.workflowId}: ${problems.join('; ')}`;
}

/** The summary, then one line per goal that missed a target (the first `shown` of them). */
export function formatManyGoalsReport(report: ManyGoalsReport, shown = 20): string {
  const { options } = report;
  const tally = tallyGoals(report.goals);
  const problems = report.goals.map(goalProblem).filter((line) => line !== undefined);
  const total = report.goals.length;
  return [
    '',
    `chaos report, many goals (seed ${options.seed}, ${options.goals} goals of ${options.calls} irreversible calls)`,
    `  disruptions:        ${report.killsDone} of ${options.kills} worker kills, ${report.restartsDone} of ${options.restarts} server restarts`,
    `  goals:              ${tally.completed} completed, ${tally.failed} failed, ${tally.timedOut} timed out (of ${total})`,
    `  exactly once:       ${tally.exactlyOnce} of ${total} goals had every effect exactly once`,
    `  duplicated effects: ${tally.duplicatedEffects}`,
    `  missing effects:    ${tally.missingEffects}; unexplained: ${tally.unexplainedMissing}`,
    `  unknown outcomes:   ${tally.unknownOutcomes}`,
    `  approvals:          ${tally.approvalsSent} sent, ${tally.lostApprovals} lost`,
    `  wall time:          ${seconds(report.wallMs)}, ${report.modelRequests} model requests`,
    ...problems.slice(0, shown).map((line) => `  goal ${line}`),
    ...(problems.length > shown
      ? [`  ... and ${problems.length - shown} more goals that missed a target`]
      : []),
    `  targets:            ${manyGoalsTargetsMet(report) ? 'met' : 'NOT met'}`,
  ].join('\n');
}

/** An error and its causes, outermost first: WorkflowFailedError ← ActivityFailure ← ... */
export function failureChain(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && messages.length < 6) {
    messages.push(current.message || current.name);
    current = current.cause;
  }
  return messages.length > 0 ? messages.join(' ← ') : String(error);
}
