/**
 * What the tool calls of a turn need from the goal (goal/workflow.ts gives it). In its own file
 * so the parts of GoalToolCalls (lanes, approvals, held changes, …) share it without importing
 * tool-calls.ts, which imports them.
 */
import type { ActivityProxies } from '../lifecycle/activity-proxies';
import type { GoalHost } from '../host/binding';
import type { GoalGuards } from '../oversight/guards';
import type { GoalPlanning } from '../oversight/planning';
import type { GoalState } from '../lifecycle/state';
import type { GoalVisibility } from '../views/visibility';
import type { GoalApprovalRules } from './approval-rules';

export interface ToolCallsHost {
  readonly state: GoalState;
  readonly activities: ActivityProxies;
  readonly workflowId: string;
  readonly planning: GoalPlanning;
  readonly guards: GoalGuards;
  readonly visibility: GoalVisibility;
  readonly host: GoalHost;
  readonly rules: GoalApprovalRules;
  priority(): { priorityKey: number };
  checkBudget(): unknown;
  /** Continues as new unless `stillValid` says no once the hand-over is ready (then returns). */
  continueAsNew(stillValid: () => boolean): Promise<void>;
  /** Whether the run's history is at keel's limits: hand over now (goal/lifecycle/history-limits.ts). */
  timeForNewRun(): boolean;
  /** Whether the run is long enough to hand a turn parked on humans over (goal/lifecycle/history-limits.ts). */
  timeToHandOverParkedTurn(): boolean;
}
