/**
 * What the parent's model reads as a delegate call's result (issue 47): how the child ended, its
 * answer or closing report, what it spent and what it changed. Pure.
 */
import type { GoalResult } from '../lifecycle/result';
import type { ChildSpend } from '../oversight/child-budget';

export interface DelegationResult {
  content: string;
  isError: boolean;
}

/** "3 tool calls, 1200 tokens, $0.0042", or why there is no figure. */
export function spendLineOf(spent: Pick<ChildSpend, 'toolCalls' | 'tokens' | 'usd'> | undefined): string {
  return spent
    ? `${spent.toolCalls} tool call${spent.toolCalls === 1 ? '' : 's'}, ${spent.tokens} tokens, $${spent.usd.toFixed(4)}`
    : 'unknown (it left no result)';
}

export function childResultOf(options: {
  workflowId: string;
  /** The child's result, or why it left none. */
  ended: GoalResult | string;
  spendLine: string;
  /** What it changed in the parent's workspace, when that is known (merge-report.ts). */
  changes: string | undefined;
}): DelegationResult {
  const { workflowId, ended, spendLine } = options;
  const changes = options.changes === undefined ? [] : [options.changes];
  if (typeof ended === 'string') {
    return {
      content: [`Child goal ${workflowId} ended without an answer: ${ended}.`, ...changes].join('\n\n'),
      isError: true,
    };
  }
  const completed = ended.status === 'completed';
  const how = completed ? 'completed' : `ended ${ended.status}${ended.reason ? ` (${ended.reason})` : ''}`;
  const answer = ended.finalText?.trim();
  const byTier = ended.counters.toolCallsByReversibility;
  return {
    content: [
      `Child goal ${workflowId} ${how}.`,
      answer ? `${completed ? 'Its answer' : 'Its report'}:\n${answer}` : 'It gave no answer.',
      `It spent ${spendLine} (counted in your budget); its tool calls: ${byTier['read-only']} read-only, ${byTier.mutating} mutating, ${byTier.irreversible} irreversible.`,
      ...changes,
    ].join('\n\n'),
    isError: !completed,
  };
}
