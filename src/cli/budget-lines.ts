import { formatAmount } from '../workflows/goal/views/details';
import type { GoalStatusView } from '../workflows/goal/messages';

/**
 * `keel status` lines for the goal's budget: each limit (the goal's own or the worker's default)
 * with what is spent, e.g. "budget: usd 0.12 USD of 2.00 USD (6%); tokens 40,000 of 100,000 (40%)".
 */
export function budgetLines(view: Pick<GoalStatusView, 'budget' | 'childSpend'>): string[] {
  return [...limitLines(view), ...childSpendLines(view)];
}

function limitLines(view: Pick<GoalStatusView, 'budget'>): string[] {
  if (!view.budget || view.budget.length === 0)
    return ['budget: none (--no-budget, and no --max-usd, --max-tokens or --max-wall-time)'];
  const parts = view.budget.map(({ dimension, spent, limit }) => {
    const percent = limit > 0 ? ` (${Math.floor((spent / limit) * 100)}%)` : '';
    return `${dimension} ${formatAmount(dimension, spent)} of ${formatAmount(dimension, limit)}${percent}`;
  });
  return [`budget: ${parts.join('; ')}`];
}

/** The child goals' share of what the budget line counts, e.g. "of which sub-goals (2): …". */
function childSpendLines(view: Pick<GoalStatusView, 'childSpend'>): string[] {
  const children = view.childSpend;
  if (children === undefined || children.children === 0) return [];
  const unknown =
    children.unknown > 0 ? `; ${children.unknown} ended without a result, counted as nothing` : '';
  return [
    `of which sub-goals (${children.children}): usd ${formatAmount('usd', children.usd)}; tokens ${formatAmount('tokens', children.tokens)}; tool-calls ${formatAmount('tool-calls', children.toolCalls)}${unknown}`,
  ];
}

/** `keel status` lines for the child goals running now, each with the command that shows it. */
export function childrenLines(view: Pick<GoalStatusView, 'children'>): string[] {
  return (view.children ?? []).map(
    (child) =>
      `child running: ${child.workflowId} (${child.workspace}): ${child.task.length > 100 ? `${child.task.slice(0, 99)}…` : child.task}  (keel status ${child.workflowId})`,
  );
}

/** `keel status` lines for the calls the goal's children wait on, each with the command that decides it from here. */
export function childApprovalLines(
  view: Pick<GoalStatusView, 'childApprovals'>,
  workflowId: string,
): string[] {
  return (view.childApprovals ?? []).map(
    (call) =>
      `child call waits: ${call.qualifiedId} (${call.reversibility}) ${call.summary}  (keel approve ${workflowId} ${call.qualifiedId})`,
  );
}
