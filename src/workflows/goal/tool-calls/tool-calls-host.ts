/**
 * What the tool calls of a turn need from the goal: its core and the stages they use (goal/stages.ts
 * gives it). In its own file
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
import type { GoalHandover } from '../lifecycle/handover';
import type { GoalModelCalls } from '../model-turn/model-calls';
import type { GoalDiscipline } from '../oversight/discipline';

export interface ToolCallsHost {
  readonly state: GoalState;
  readonly activities: ActivityProxies;
  readonly workflowId: string;
  readonly planning: GoalPlanning;
  readonly guards: GoalGuards;
  readonly visibility: GoalVisibility;
  readonly host: GoalHost;
  readonly rules: GoalApprovalRules;
  /** The goal's priority, which every tool activity carries. */
  readonly model: Pick<GoalModelCalls, 'priority'>;
  /** Budget warnings ride on a turn's results (the exhaustion ends the goal at the turn's end). */
  readonly discipline: Pick<GoalDiscipline, 'checkBudget'>;
  /** Continue-as-new, and when: a turn parked on humans may hand over mid-turn. */
  readonly handover: Pick<GoalHandover, 'continueAsNew' | 'timeForNewRun' | 'timeToHandOverParkedTurn'>;
}
