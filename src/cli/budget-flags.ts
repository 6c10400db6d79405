import type { GoalInput } from '../workflows/goal/lifecycle/input';

/** The run flags about what a goal may cost and who judges its progress. */
export interface CostFlags {
  maxUsd?: number;
  maxTokens?: number;
  maxWallTime?: number;
  /** false with --no-budget: no default cost limit (the worker's KEEL_BUDGET_* still apply). */
  budget?: boolean;
  /** false with --no-judge: only the counting guards watch progress. */
  judge?: boolean;
  judgeModel?: string;
}

/** The budget flags as goal input `principles.budget`; undefined when none was given. */
export function budgetInput(flags: CostFlags): NonNullable<GoalInput['principles']>['budget'] | undefined {
  const budget = {
    ...(flags.maxUsd !== undefined ? { maxUsd: flags.maxUsd } : {}),
    ...(flags.maxTokens !== undefined ? { maxTokens: flags.maxTokens } : {}),
    ...(flags.maxWallTime !== undefined ? { maxWallTimeMs: flags.maxWallTime } : {}),
    ...(flags.budget === false ? { unlimited: true as const } : {}),
  };
  return Object.keys(budget).length > 0 ? budget : undefined;
}

/** --no-judge and --judge-model as goal input `judge`. */
export function judgeInput(flags: CostFlags): Pick<GoalInput, 'judge'> {
  const judge = {
    ...(flags.judge === false ? { enabled: false } : {}),
    ...(flags.judgeModel !== undefined ? { model: flags.judgeModel } : {}),
  };
  return Object.keys(judge).length > 0 ? { judge } : {};
}
