/**
 * The stages of a goal, wired once: every stage gets one small context (what it reads and whom
 * it tells) instead of reaching into the workflow. The shared core is the state, the activities,
 * the workflow id and what humans see (views/visibility.ts); the oversight stages (planning,
 * assessment, reflection, the judge) add the notes channel, structured answers and the host.
 */
import * as wf from '@temporalio/workflow';
import type { LedgerEventKind } from '../common/ledger';
import { GoalHost } from './host/binding';
import { proxiesFor, type ActivityProxies } from './lifecycle/activity-proxies';
import { GoalFollowUps } from './lifecycle/follow-ups';
import { GoalHandover } from './lifecycle/handover';
import { GoalPreparation } from './lifecycle/preparation';
import type { GoalState } from './lifecycle/state';
import { GoalClosingReport } from './model-turn/closing-report-turn';
import { GoalModelCalls } from './model-turn/model-calls';
import { GoalAssessment } from './oversight/assessment';
import type { GoalContext, WorkspaceActivities } from './oversight/context';
import { GoalDiscipline } from './oversight/discipline';
import { GoalGuards } from './oversight/guards';
import { GoalJudge } from './oversight/judge';
import { GoalPlanning } from './oversight/planning';
import { GoalReflection } from './oversight/reflection';
import { HumanReviewWait } from './oversight/review-wait';
import { GoalApprovalRules } from './tool-calls/approval-rules';
import { GoalDelegation } from './tool-calls/delegation';
import { GoalToolCalls } from './tool-calls/tool-calls';
import { GoalVisibility } from './views/visibility';
import { GoalLineage } from './lineage/restore';

/** What every stage shares. */
export interface GoalCore {
  readonly state: GoalState;
  readonly activities: ActivityProxies;
  readonly workflowId: string;
  readonly visibility: GoalVisibility;
}

export interface GoalStages extends GoalCore {
  readonly host: GoalHost;
  readonly model: GoalModelCalls;
  readonly closingReport: GoalClosingReport;
  readonly discipline: GoalDiscipline;
  readonly planning: GoalPlanning;
  readonly assessment: GoalAssessment;
  readonly reflection: GoalReflection;
  readonly review: HumanReviewWait;
  readonly guards: GoalGuards;
  readonly rules: GoalApprovalRules;
  readonly toolCalls: GoalToolCalls;
  readonly handover: GoalHandover;
  readonly followUps: GoalFollowUps;
  readonly preparation: GoalPreparation;
  readonly lineage: GoalLineage;
}

export function goalStages(state: GoalState): GoalStages {
  const activities = proxiesFor(state.config);
  const workflowId = wf.workflowInfo().workflowId;
  const visibility = new GoalVisibility(state, workflowId, activities.ledger);
  const core: GoalCore = { state, activities, workflowId, visibility };
  const record = (kind: LedgerEventKind, summary: string, data: Record<string, unknown> = {}) =>
    visibility.record(kind, summary, data);

  const host = new GoalHost(core);
  // Planning is made below, with the oversight context the model calls help build; the model
  // asks it for the plan step only when a turn runs.
  const model = new GoalModelCalls({ ...core, record, planContext: () => planning.planContext() });
  const oversight: GoalContext = {
    state,
    activities,
    workflowId,
    record,
    note: (text) => state.notes.push(text),
    structured: model.structured.bind(model),
    onWorkspaceHost: <T>(call: (workspace: WorkspaceActivities) => Promise<T>) =>
      host.run((queue) =>
        call(queue === undefined ? activities.support : activities.onHost(queue).workspace),
      ),
  };
  const planning = new GoalPlanning(oversight);
  const review = new HumanReviewWait(core);
  const reflection = new GoalReflection(oversight, () => review.wait());
  const guards = new GoalGuards(state, visibility, planning, new GoalJudge(oversight));
  const discipline = new GoalDiscipline(state, visibility);
  const rules = new GoalApprovalRules(() => state, visibility);
  const handover = new GoalHandover({ state, visibility, carriedRequest: () => model.carriedRequest() });
  const toolCallsHost = { ...core, rules, planning, guards, host, model, discipline, handover };
  // Delegate calls and the self-assessment's split start children the one way (issue 47).
  const delegation = new GoalDelegation(toolCallsHost);
  rules.whenAdded((rule) => delegation.shareRule(rule));
  const toolCalls = new GoalToolCalls(toolCallsHost, delegation);
  return {
    ...core,
    host,
    model,
    closingReport: new GoalClosingReport({ state, model, visibility }),
    discipline,
    planning,
    assessment: new GoalAssessment(oversight, delegation),
    reflection,
    review,
    guards,
    rules,
    toolCalls,
    handover,
    followUps: new GoalFollowUps({ state, visibility, guards }),
    preparation: new GoalPreparation({ state, activities, visibility, host, rules, reflection, planning }),
    lineage: new GoalLineage(oversight),
  };
}
