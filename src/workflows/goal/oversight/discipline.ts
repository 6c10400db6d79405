import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import { appendUserBlocks } from '../../common/transcript';
import type { BudgetExhaustion } from '../../principles/budget';
import { exhaustedAhead } from '../../principles/budget-ahead';
import { checkBudget, checkpointAfterTurn } from '../../principles/principles';
import type { GoalState } from '../lifecycle/state';
import { effectiveBudget, goalCost } from '../views/status';
import type { GoalVisibility } from '../views/visibility';

/**
 * Marks goals that end because a model request alone would cross their token limit
 * (exhaustedBudgetAhead). Goals that started before the check replay without it and make the
 * request, as they did; only a goal this check ends writes the marker.
 */
export const BUDGET_AHEAD_PATCH = 'budget-ahead-of-request';

/**
 * The harness principles' hard side in the lifecycle: reflection checkpoints (principle 3),
 * budgets (principle 4) and the harness notes the model reads before its next turn.
 */
export class GoalDiscipline {
  constructor(
    private readonly state: GoalState,
    private readonly visibility: GoalVisibility,
  ) {}

  /** Principle 3: after a turn that used tools, once its calls are counted. */
  checkpoint(): void {
    const task = this.state.tasks[this.state.tasks.length - 1];
    const prompt = checkpointAfterTurn(this.state.principles, {
      taskText: task?.text ?? '',
      now: new Date().toISOString(),
    });
    if (!prompt) return;
    this.state.transcript = appendUserBlocks(this.state.transcript, [{ type: 'text', text: prompt }]);
    const marker = this.state.principles.cadence.lastCheckpoint;
    const calls = marker?.atToolCall ?? 0;
    this.visibility.record(
      LedgerEventKind.ReflectionCheckpoint,
      `checkpoint after ${calls === 1 ? '1 tool call' : `${calls} tool calls`} of the task`,
      { atToolCall: marker?.atToolCall, cadence: this.state.principles.cadence.current },
    );
  }

  /**
   * Principle 4: at 100% of any budget the workflow ends the goal, whatever the model says.
   * Returns the reason to end it with, after recording it; warnings are recorded on the way.
   */
  exhaustedBudget(): string | undefined {
    const exhausted = this.checkBudget();
    if (!exhausted) return undefined;
    const reason = `${exhausted.dimension} budget exhausted (${Math.round(exhausted.spent * 1000) / 1000} of ${exhausted.limit})`;
    this.visibility.record(LedgerEventKind.BudgetExhausted, reason, {
      ...exhausted,
      atToolCall: this.state.counters.toolCalls,
    });
    return reason;
  }

  /**
   * Principle 4 before the spend (principles/budget-ahead.ts): when the next model request alone
   * would take the goal past its token limit, the goal ends here instead of sending it. Returns the
   * reason to end it with, after recording it.
   */
  exhaustedBudgetAhead(expectedTokens: number): string | undefined {
    const budget = effectiveBudget(this.state);
    if (budget === undefined) return undefined;
    const ahead = exhaustedAhead(budget, goalCost(this.state, Date.now()).spent, expectedTokens);
    if (ahead === undefined || !wf.patched(BUDGET_AHEAD_PATCH)) return undefined;
    const reason = `${ahead.dimension} budget exhausted ahead of the next model request (${ahead.spent} spent and about ${ahead.expected} to send, of ${ahead.limit})`;
    this.visibility.record(LedgerEventKind.BudgetExhausted, reason, {
      ...ahead,
      ahead: true,
      atToolCall: this.state.counters.toolCalls,
    });
    return reason;
  }

  checkBudget(): BudgetExhaustion | undefined {
    const warnedBefore = this.state.principles.budgetWarned.length;
    const spent = goalCost(this.state, Date.now()).spent; // the workflow clock: replay-safe
    const budget = effectiveBudget(this.state);
    const settings = { ...this.state.config.principles, ...(budget ? { budget } : {}) };
    const exhausted = checkBudget(this.state.principles, settings, spent);
    for (const key of this.state.principles.budgetWarned.slice(warnedBefore)) {
      this.visibility.record(LedgerEventKind.BudgetWarning, `budget warning ${key}`, {
        key,
        atToolCall: this.state.counters.toolCalls,
      });
    }
    return exhausted;
  }

  /** Harness notes join the transcript right before the model's next turn. */
  giveNotes(): void {
    if (this.state.notes.length === 0) return;
    const notes = this.state.notes.splice(0);
    this.state.transcript = appendUserBlocks(
      this.state.transcript,
      notes.map((text) => ({ type: 'text' as const, text })),
    );
  }
}
