import { bindingWorkspace } from '../../hosts/host-binding';
import type { GoalContext } from './context';
import { LedgerEventKind } from '../../common/ledger';
import {
  activeStep,
  backtrackDecision,
  completeActiveStep,
  createPlan,
  failActiveStep,
  failedToolCallsOf,
  PlanStatus,
  ProposedPlanSchema,
  renderPlan,
  stepFailureFromHarness,
  supersede,
  type Plan,
} from '../../planning/plan';
import { planPrompt } from '../../planning/plan-prompt';
import { metaStrategyForAttempt, selectStrategy } from '../../planning/strategy';
import type { ReportStepInput } from '../../tools/report-step-spec';

export type PlanningOutcome = { kind: 'continue' } | { kind: 'give-up'; reason: string };

/**
 * Plans and backtracking (seed 001). The workflow decides; the model only proposes plans and
 * reports steps. Strategy and meta-strategy are chosen by pure functions and recorded with why.
 */
export class GoalPlanning {
  constructor(private readonly goal: GoalContext) {}

  private get planning() {
    return this.goal.state.planning;
  }

  /** The first plan of the goal. */
  async start(): Promise<PlanningOutcome> {
    const config = this.goal.state.config;
    const selection = selectStrategy({ goal: config.goal, successCriteria: config.successCriteria });
    this.planning.selection = {
      strategy: selection.strategy,
      method: selection.method,
      scores: selection.scores,
    };
    return this.planAttempt(0);
  }

  /** Text for the system prompt: the plan and how to report steps. */
  planContext(): string | undefined {
    const plan = this.planning.plan;
    if (!plan || plan.status !== PlanStatus.Active) return undefined;
    return `${renderPlan(plan)}\n\nWork on the active step [>]. When it is done, or clearly cannot be done, call report_step.`;
  }

  /** The model reported the active step (the report_step harness tool). */
  async report(input: ReportStepInput): Promise<{ result: string; outcome: PlanningOutcome }> {
    const plan = this.planning.plan;
    const step = plan ? activeStep(plan) : undefined;
    if (!plan || !step)
      return { result: 'There is no active plan step to report.', outcome: { kind: 'continue' } };
    if (input.status === 'completed') {
      this.planning.plan = completeActiveStep(plan);
      this.resetStepObservations();
      this.goal.state.assessment.lastProgressCycle = this.goal.state.counters.modelTurns;
      const next = activeStep(this.planning.plan);
      return {
        result: next
          ? `Step ${step.index + 1} completed. Next: step ${next.index + 1} (${next.toolName}).`
          : 'Step completed; every step of the plan is done. Give the final answer.',
        outcome: { kind: 'continue' },
      };
    }
    const outcome = await this.failStep(`reported by the model: ${input.reason}`);
    return { result: `Step ${step.index + 1} marked failed. ${this.describeOutcome(outcome)}`, outcome };
  }

  /** After each executed call of the active step: what the harness saw. */
  observeCall(ok: boolean, mismatch: boolean): void {
    const step = this.planning.step;
    step.consecutiveFailedCalls = ok ? 0 : step.consecutiveFailedCalls + 1;
    if (mismatch) step.hypothesisMismatches += 1;
  }

  observeDenial(): void {
    this.planning.step.approvalDenied = true;
  }

  /** The harness fails a step the model will not: repeated failures, a denial, wrong hypotheses. */
  async checkStep(): Promise<PlanningOutcome> {
    const plan = this.planning.plan;
    if (!plan || !activeStep(plan)) return { kind: 'continue' };
    const reason = stepFailureFromHarness(this.planning.step);
    if (!reason) return { kind: 'continue' };
    const outcome = await this.failStep(`decided by the harness: ${reason}`);
    this.goal.note(`The active plan step failed (${reason}). ${this.describeOutcome(outcome)}`);
    return outcome;
  }

  /**
   * A hard guard stopped the active step (a loop, no progress, wrong hypotheses): the step fails
   * and the plan backtracks, as when the harness fails a step itself. Undefined when no step is active.
   */
  async failStepByGuard(reason: string): Promise<PlanningOutcome | undefined> {
    const plan = this.planning.plan;
    if (!plan || !activeStep(plan)) return undefined;
    const outcome = await this.failStep(`stopped by a guard: ${reason}`);
    this.goal.note(
      `The active plan step failed (stopped by a guard: ${reason}). ${this.describeOutcome(outcome)}`,
    );
    return outcome;
  }

  /** Whether a step is active (guards fail the step instead of stopping the goal). */
  hasActiveStep(): boolean {
    const plan = this.planning.plan;
    return plan !== undefined && activeStep(plan) !== undefined;
  }

  private describeOutcome(outcome: PlanningOutcome): string {
    if (outcome.kind === 'give-up') return `No attempts are left: ${outcome.reason}`;
    const plan = this.planning.plan;
    return plan ? `A new plan (attempt ${plan.attempt}) follows:\n${renderPlan(plan)}` : '';
  }

  private async failStep(reason: string): Promise<PlanningOutcome> {
    const plan = this.planning.plan;
    if (!plan) return { kind: 'continue' };
    const failed = failActiveStep(plan, reason);
    this.planning.plan = failed;
    this.planning.failures.push({ attempt: failed.attempt, reason });
    this.planning.failedToolCalls.push(...failedToolCallsOf(failed));
    this.goal.record(LedgerEventKind.PlanFailed, `plan attempt ${failed.attempt} failed: ${reason}`, {
      attempt: failed.attempt,
      reason,
    });
    const decision = backtrackDecision({
      attempt: failed.attempt,
      maxBacktrackAttempts: this.goal.state.config.planning.maxBacktrackAttempts,
      lastFailureReason: reason,
    });
    if (decision.kind === 'give-up') return { kind: 'give-up', reason: `every ${this.failureSummary()}` };
    this.planning.plan = supersede(failed);
    await this.rollbackIfAsked(failed);
    this.goal.record(
      LedgerEventKind.PlanBacktracked,
      `backtracking to attempt ${decision.nextAttempt} (${decision.metaStrategy})`,
      {
        fromAttempt: failed.attempt,
        toAttempt: decision.nextAttempt,
        metaStrategy: decision.metaStrategy,
      },
    );
    return this.planAttempt(decision.nextAttempt, failed, reason);
  }

  private failureSummary(): string {
    const reasons = this.planning.failures.map((failure) => `attempt ${failure.attempt}: ${failure.reason}`);
    return `plan attempt failed (${reasons.join('; ')})`;
  }

  /**
   * A proposal the goal cannot use (prose without a plan, or only steps that repeat failed calls)
   * is a failed attempt like any other: recorded, and the next attempt is asked for while any
   * are left. The plan to learn from stays the last one that was tried.
   */
  private async unusablePlan(
    attempt: number,
    reason: string,
    failedPlan: Plan | undefined,
    failureReason: string | undefined,
  ): Promise<PlanningOutcome> {
    this.planning.failures.push({ attempt, reason });
    this.goal.record(LedgerEventKind.PlanFailed, `plan attempt ${attempt} failed: ${reason}`, {
      attempt,
      reason,
      unusable: true,
    });
    const decision = backtrackDecision({
      attempt,
      maxBacktrackAttempts: this.goal.state.config.planning.maxBacktrackAttempts,
      lastFailureReason: reason,
    });
    if (decision.kind === 'give-up') return { kind: 'give-up', reason: `every ${this.failureSummary()}` };
    this.goal.record(
      LedgerEventKind.PlanBacktracked,
      `backtracking to attempt ${decision.nextAttempt} (${decision.metaStrategy})`,
      { fromAttempt: attempt, toAttempt: decision.nextAttempt, metaStrategy: decision.metaStrategy },
    );
    return this.planAttempt(decision.nextAttempt, failedPlan, failureReason ?? reason);
  }

  /** The workspace's path on the goal's host (a move may have mapped it). */
  private workspace(): string {
    return bindingWorkspace(this.goal.state.host, this.goal.state.config.workspace);
  }

  /** rollbackOnBacktrack: put the files back as they were before the failed plan mutated them. */
  private async rollbackIfAsked(failed: Plan): Promise<void> {
    const snapshotId = this.planning.snapshotId;
    this.planning.snapshotId = undefined;
    if (!this.goal.state.config.planning.rollbackOnBacktrack || !snapshotId) return;
    const restored = await this.goal.onWorkspaceHost((workspace) =>
      workspace.restoreWorkspace({ workspace: this.workspace(), backupId: snapshotId }),
    );
    this.goal.record(
      LedgerEventKind.PlanRolledBack,
      `rolled back the files of plan attempt ${failed.attempt}`,
      {
        attempt: failed.attempt,
        restored: restored.restored,
        removed: restored.removed,
      },
    );
  }

  /** Before the first mutating call of an attempt, with rollbackOnBacktrack: a backup to return to. */
  async beforeMutatingCall(): Promise<void> {
    const plan = this.planning.plan;
    if (!this.goal.state.config.planning.rollbackOnBacktrack || !plan || this.planning.snapshotId) return;
    const backupId = `${this.goal.workflowId}-attempt-${plan.attempt}`;
    await this.goal.onWorkspaceHost((workspace) =>
      workspace.backupWorkspace({ workspace: this.workspace(), backupId }),
    );
    this.planning.snapshotId = backupId;
  }

  private async planAttempt(
    attempt: number,
    failedPlan?: Plan,
    failureReason?: string,
  ): Promise<PlanningOutcome> {
    const state = this.goal.state;
    const strategy = this.planning.selection?.strategy ?? 'knowledge';
    const metaStrategy = metaStrategyForAttempt(attempt);
    const answer = await this.goal.structured({
      purpose: `plan attempt ${attempt}`,
      prompt: planPrompt({
        goal: state.config.goal,
        successCriteria: state.config.successCriteria,
        strategy,
        metaStrategy,
        toolNames: (state.tools?.catalogue ?? []).map((entry) => entry.name),
        ...(failedPlan ? { failedPlan } : {}),
        ...(failureReason ? { failureReason } : {}),
      }),
      toolName: 'submit_plan',
      description: 'Submit the plan: a one-sentence approach and at least one step.',
      schema: ProposedPlanSchema,
    });
    if (!answer.ok) {
      return this.unusablePlan(
        attempt,
        `the proposed plan was unusable: ${answer.error}`,
        failedPlan,
        failureReason,
      );
    }
    const created = createPlan({
      goalId: this.goal.workflowId,
      attempt,
      strategy,
      metaStrategy,
      proposedSteps: answer.value.steps,
      failedToolCalls: this.planning.failedToolCalls,
      strategySummary: answer.value.strategySummary,
    });
    if (!created.ok) {
      return this.unusablePlan(
        attempt,
        `the proposed plan was unusable: ${created.reason}`,
        failedPlan,
        failureReason,
      );
    }
    this.planning.plan = created.plan;
    this.resetStepObservations();
    this.goal.record(
      LedgerEventKind.PlanCreated,
      `plan attempt ${attempt}: ${created.plan.steps.length} steps, ${metaStrategy}`,
      {
        attempt,
        strategy,
        metaStrategy,
        selection: this.planning.selection,
        steps: created.plan.steps.map((step) => `${step.toolName}: ${step.rationale}`),
      },
    );
    return { kind: 'continue' };
  }

  private resetStepObservations(): void {
    this.planning.step = { consecutiveFailedCalls: 0, hypothesisMismatches: 0, approvalDenied: false };
  }
}
