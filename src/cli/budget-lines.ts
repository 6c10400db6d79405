import { formatAmount } from '../workflows/goal/views/details';
import type { GoalStatusView } from '../workflows/goal/messages';

/**
 * `keel status` lines for the goal's budget: each limit (the goal's own or the worker's default)
 * with what is spent, e.g. "budget: usd 0.12 USD of 2.00 USD (6%); tokens 40,000 of 100,000 (40%)".
 */
export function budgetLines(view: Pick<GoalStatusView, 'budget'>): string[] {
  if (!view.budget || view.budget.length === 0)
    return ['budget: none (--no-budget, and no --max-usd, --max-tokens or --max-wall-time)'];
  const parts = view.budget.map(({ dimension, spent, limit }) => {
    const percent = limit > 0 ? ` (${Math.floor((spent / limit) * 100)}%)` : '';
    return `${dimension} ${formatAmount(dimension, spent)} of ${formatAmount(dimension, limit)}${percent}`;
  });
  return [`budget: ${parts.join('; ')}`];
}
