import { LedgerEventKind } from '../../common/ledger';
import {
  approvalRuleSchema,
  RuleEffect,
  RuleSource,
  ruleText,
  type ApprovalRule,
  type RuleSpec,
} from '../../approvals/approval-rule';
import { addRule, revokeRule, ruleFor, type RuleDraft, type RuleVerdict } from '../../approvals/rule-book';
import type { GoalState, ToolCallRecord } from '../lifecycle/state';
import type { GoalVisibility } from '../views/visibility';

/**
 * The goal's approval rules as the workflow keeps them: which rule decides a call, and every change
 * to the list, each recorded in the ledger. Runs in lanes and in Update handlers: deterministic
 * state and workflow time only. A goal without rules holds no `approvalRules` at all, so histories
 * from before rules replay exactly as they ran.
 */
export class GoalApprovalRules {
  /** Told of each rule added (delegation shares forbid rules with running children). */
  private readonly listeners: Array<(rule: ApprovalRule) => void> = [];

  constructor(
    private readonly state: () => GoalState,
    private readonly visibility: GoalVisibility,
  ) {}

  whenAdded(listener: (rule: ApprovalRule) => void): void {
    this.listeners.push(listener);
  }

  verdictFor(call: ToolCallRecord): RuleVerdict | undefined {
    const state = this.state();
    if (state.approvalRules === undefined) return undefined;
    return ruleFor(state.approvalRules, call, {
      nowMs: Date.now(),
      workspace: state.config.workspace,
      approvers: state.config.approvers,
    });
  }

  /** Every rule, in force or not, oldest first (the `approvalRules` query). */
  list(): ApprovalRule[] {
    return this.state().approvalRules?.rules ?? [];
  }

  /** Adds a rule and records it; an error (too many rules) comes back as text. */
  add(draft: Omit<RuleDraft, 'createdAt'>): { ok: true; rule: ApprovalRule } | { ok: false; error: string } {
    const state = this.state();
    const added = addRule(state.approvalRules, { ...draft, createdAt: new Date().toISOString() });
    if (!added.ok) return added;
    state.approvalRules = added.state;
    const { rule } = added;
    this.visibility.record(
      LedgerEventKind.ApprovalRuleAdded,
      `rule ${rule.id} added by ${rule.by} (${rule.source}): ${ruleText(rule)}`,
      { rule },
    );
    for (const listener of this.listeners) listener(rule);
    return { ok: true, rule };
  }

  revoke(revocation: { id: string; by: string; reason: string }) {
    const state = this.state();
    const revoked = revokeRule(state.approvalRules, { ...revocation, at: new Date().toISOString() });
    if (!revoked.ok) return revoked;
    state.approvalRules = revoked.state;
    this.visibility.record(
      LedgerEventKind.ApprovalRuleRevoked,
      `rule ${revoked.rule.id} revoked by ${revocation.by}: ${ruleText(revoked.rule)}`,
      { rule: revoked.rule },
    );
    return revoked;
  }

  /**
   * At the goal's start: the rules of its input, then the worker's policy. A goal that requires
   * signed decisions takes no unsigned rule, so the policy's are recorded as not applied there.
   */
  seed(input: readonly RuleSpec[] | undefined, policy: readonly RuleSpec[] | undefined): void {
    for (const spec of input ?? []) this.seedOne(spec, RuleSource.GoalInput, 'goal input');
    if ((policy ?? []).length === 0) return;
    if (this.state().config.approvalSignatures !== undefined) {
      this.visibility.record(
        LedgerEventKind.ApprovalRuleNotApplied,
        `the worker's ${policy?.length} policy rules were not applied: this goal requires signed decisions`,
        { rules: policy },
      );
      return;
    }
    for (const spec of policy ?? []) this.seedOne(spec, RuleSource.WorkerPolicy, 'worker policy');
  }

  private seedOne(spec: RuleSpec, source: RuleSource, by: string): void {
    const { effect, reason, ...scope } = spec;
    const added = this.add({ ...scope, effect, source, by, reason: reason ?? '' });
    if (!added.ok) {
      this.visibility.record(LedgerEventKind.ApprovalRuleNotApplied, `rule not applied: ${added.error}`, {
        rule: spec,
      });
    }
  }

  /**
   * A delegated child's start: its parent's rules in force, as the parent holds them (signed ones
   * stay signed), each saying whose they were. Only a child workflow takes them: input that names
   * no parent could otherwise carry allow rules past a goal's signature requirement.
   */
  inherit(rules: readonly ApprovalRule[] | undefined, parentWorkflowId: string | undefined): void {
    if (rules === undefined || rules.length === 0) return;
    if (parentWorkflowId === undefined) {
      this.visibility.record(
        LedgerEventKind.ApprovalRuleNotApplied,
        `${rules.length} inherited rules were not applied: this goal has no parent goal`,
        { rules },
      );
      return;
    }
    for (const rule of rules) {
      const { id: _id, createdAt: _createdAt, revoked: _revoked, ...draft } = rule;
      const added = this.add({ ...draft, by: `${rule.by} (inherited from ${parentWorkflowId})` });
      if (!added.ok) {
        this.visibility.record(LedgerEventKind.ApprovalRuleNotApplied, `rule not applied: ${added.error}`, {
          rule,
        });
      }
    }
  }

  /**
   * A rule the parent added after this child started (the parentRule signal). Only a child takes
   * one, and only a forbid rule: a signal does not say who sent it, so what it brings may narrow
   * what the goal may do, never widen it (an allow rule, a revocation). Whether it took it.
   */
  fromParent(raw: unknown, parentWorkflowId: string | undefined): boolean {
    const parsed = approvalRuleSchema.safeParse(raw);
    if (parentWorkflowId === undefined || !parsed.success || parsed.data.effect !== RuleEffect.Forbid) {
      this.visibility.record(
        LedgerEventKind.ApprovalRuleNotApplied,
        parentWorkflowId === undefined
          ? 'a rule from a parent was not applied: this goal has no parent goal'
          : 'a rule from the parent was not applied: only a well-formed forbid rule is taken that way',
        { rule: raw },
      );
      return false;
    }
    this.inherit([parsed.data], parentWorkflowId);
    return true;
  }
}
