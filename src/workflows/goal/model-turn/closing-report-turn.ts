import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import {
  closingReportEnding,
  closingReportPlan,
  closingReportPrompt,
  closingReportText,
} from './closing-report';
import { describeFailure } from '../lifecycle/failures';
import type { GoalModelCalls } from './model-calls';
import type { GoalState, GoalStatus } from '../lifecycle/state';
import { effectiveBudget, goalCost } from '../views/status';
import type { GoalVisibility } from '../views/visibility';

/**
 * The closing report in the lifecycle (goal/model-turn/closing-report.ts decides, this runs it): one model turn
 * without tools when a guard or a limit stops the goal. It never changes how the goal ends: a
 * report that fails, or is cancelled, leaves the stop as it was and the ledger says why.
 */
export class GoalClosingReport {
  constructor(
    private readonly goal: {
      readonly state: GoalState;
      readonly model: GoalModelCalls;
      readonly visibility: GoalVisibility;
    },
  ) {}

  /** Writes the report into the goal's final text when the ending asks for one. Never throws. */
  async write(status: GoalStatus, reason: string): Promise<void> {
    const { state, model } = this.goal;
    const ending = closingReportEnding(status, wf.CancellationScope.current().consideredCancelled);
    if (ending === undefined) return;
    if (ending.kind === 'skip') return this.skipped(ending.why);
    const { request, chars } = model.closingReportRequest(closingReportPrompt(reason));
    const plan = closingReportPlan({
      model: state.config.model,
      requestChars: chars,
      budget: effectiveBudget(state),
      spent: goalCost(state, Date.now()).spent, // the workflow clock: replay-safe
      prices: state.config.principles.prices,
    });
    if (plan.kind === 'skip') return this.skipped(plan.why);
    let result;
    try {
      result = await model.closingReport(request, plan.maxTokens);
    } catch (error) {
      // A cancellation too: the stop stands and the goal ends with it (finish delivers the rest).
      const why = wf.isCancellation(error) ? 'the goal was cancelled' : describeFailure(error);
      this.record(`closing report failed: ${why}`, { outcome: 'failed', why });
      return;
    }
    const text = closingReportText(result.content, result.stopReason, plan.maxTokens);
    const usage = { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens };
    const cache = {
      cacheReadInputTokens: result.usage.cacheReadInputTokens,
      cacheCreationInputTokens: result.usage.cacheCreationInputTokens,
    };
    if (text === undefined) {
      const why = 'the model wrote no text';
      this.record(`closing report failed: ${why}`, { outcome: 'failed', why, ...usage, ...cache });
      return;
    }
    state.finalText = text;
    this.record(`closing report written (${text.length} characters)`, {
      outcome: 'written',
      characters: text.length,
      stopReason: result.stopReason,
      maxTokens: plan.maxTokens,
      ...usage,
      ...cache,
    });
  }

  private skipped(why: string): void {
    this.record(`closing report skipped: ${why}`, { outcome: 'skipped', why });
  }

  private record(summary: string, data: Record<string, unknown>): void {
    this.goal.visibility.record(LedgerEventKind.GoalClosingReport, summary, data);
  }
}
