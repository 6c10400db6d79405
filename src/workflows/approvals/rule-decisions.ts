import { RuleEffect, ruleText, type ApprovalRule } from './approval-rule';
import type { RuleVerdict } from './rule-book';

/**
 * The decision keel records on a call a rule decided: approved or refused at once, by the rule's
 * maker, naming the rule, so the ledger, the details and the call's record say which rule and why.
 * A valid goal-state ApprovalDecision (structural: goal/lifecycle/state.ts imports this folder's schemas).
 */
export interface RuleDecision {
  approved: boolean;
  approver: string;
  reason: string;
  decidedAt: string;
  via: 'rule';
  rule: { id: string; text: string; source: string };
}

export function decisionByRule(verdict: RuleVerdict, decidedAt: string): RuleDecision {
  const { rule } = verdict;
  const named = namedRule(rule);
  const allowed = verdict.effect === RuleEffect.Allow;
  const because = rule.reason.trim() === '' ? '' : ` Their reason: ${rule.reason.trim()}`;
  return {
    approved: allowed,
    approver: rule.by,
    reason: allowed
      ? `approved at once by ${named}, made by ${rule.by}`
      : `refused at once by ${named}, set by ${rule.by}: every call it covers is refused without asking anyone.${because}`,
    decidedAt,
    via: 'rule',
    rule: { id: rule.id, text: ruleText(rule), source: rule.source },
  };
}

/** `rule-3 (forbid run_command: rm *)`: how every view names a rule. */
export function namedRule(rule: ApprovalRule): string {
  return `${rule.id} (${ruleText(rule)})`;
}
