/**
 * Principle 4 before the spend (issue 44): a model request whose input alone would take the goal
 * past its token limit is not sent. Without this a budget is checked only after each answer, so
 * a runaway with a large context overshoots by a whole request (the eval's budget-burner spent
 * 362k tokens of a 300k budget). Tokens are known ahead as the request's estimated size; the cost
 * of a request is not (most of it is prompt-cache reads at a tenth of the price, which are known
 * only once answered), so a cost limit is still checked after the answer.
 */
import { BudgetDimension, limitOf, type Budget, type BudgetExhaustion, type BudgetSpent } from './budget';

export interface BudgetAhead extends BudgetExhaustion {
  /** The tokens the next request is expected to hold. */
  expected: number;
}

/** The token limit the next request would cross, or undefined when it fits (or none is set). */
export function exhaustedAhead(
  budget: Budget,
  spent: BudgetSpent,
  expectedTokens: number,
): BudgetAhead | undefined {
  const limit = limitOf(budget, BudgetDimension.Tokens, spent);
  if (limit === undefined || limit <= 0) return undefined;
  return spent.tokens + expectedTokens > limit
    ? { dimension: BudgetDimension.Tokens, spent: spent.tokens, limit, expected: expectedTokens }
    : undefined;
}
