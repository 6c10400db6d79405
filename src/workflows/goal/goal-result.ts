import type { GoalStats } from './messages';
import type { GoalInput } from './goal-input';
import type { GoalState, GoalStatus } from './goal-state';

/** How a goal ended, as its workflow returns it. */
export interface GoalResult {
  status: GoalStatus;
  reason?: string;
  finalText?: string;
  counters: GoalState['counters'];
  usage: GoalState['usage'];
  tasks: number;
  stats: GoalStats;
  planAttempt?: number;
  reflection?: string;
}

/** The goal workflow's signature, for code that starts it as a child without importing it. */
export type GoalWorkflowFunction = (input: GoalInput, carried?: unknown) => Promise<GoalResult>;
