/**
 * Decisions nobody is asked for: a rule that covers a call (forbid or allow), and a human's
 * earlier denial with doNotAskAgain. Separate from the approvals that wait for a human: a rule
 * added or a denial remembered also answers calls of this turn that are already waiting.
 */
import type { ApprovalDecision, GoalState, ToolCallRecord } from '../lifecycle/state';
import { LedgerEventKind } from '../../common/ledger';
import { callText } from '../../tools/call-text';
import { isHarnessTool } from '../../tools/harness-tools';
import { intentText } from '../../principles/call-intent';
import { RuleEffect } from '../../approvals/approval-rule';
import type { RuleVerdict } from '../../approvals/rule-book';
import { decisionByRule, namedRule } from '../../approvals/rule-decisions';
import { autoDenial, rememberDenial, rememberedDenialFor, type RememberedDenial } from './remembered-denials';
import type { ToolCallsHost } from './tool-calls-host';

export class AutomaticDecisions {
  constructor(private readonly goal: ToolCallsHost) {}

  private get state(): GoalState {
    return this.goal.state;
  }

  /**
   * A call that needs no human still never runs when a forbid rule covers it: "never run `rm *`"
   * means never, under `auto` too. It is given an approval record that is already a refusal, so
   * its lane closes it like any denial.
   */
  refuseIfForbidden(call: ToolCallRecord): void {
    if (isHarnessTool(call.toolName)) return; // keel's own bookkeeping (report_step), not the model's act
    const verdict = this.goal.rules.verdictFor(call);
    if (verdict?.effect !== RuleEffect.Forbid) return;
    const nowMs = Date.now();
    call.status = 'awaiting-approval';
    call.approval = { requestedAt: new Date(nowMs).toISOString(), deadlineMs: nowMs };
    this.decideByRule(call, verdict);
  }

  /** A rule decided the call: recorded like a human's decision, naming the rule; nobody is asked. */
  decideByRule(call: ToolCallRecord, verdict: RuleVerdict): void {
    if (!call.approval || call.approval.decision) return;
    const decision = decisionByRule(verdict, new Date().toISOString());
    call.approval.decision = decision;
    if (decision.approved) this.state.counters.approvalsByRule += 1;
    else this.state.counters.refusalsByRule += 1;
    this.goal.visibility.record(
      LedgerEventKind.ApprovalDecided,
      `${decision.approved ? 'approved' : 'refused'} by ${namedRule(verdict.rule)}: ${call.summary}`,
      {
        callId: call.callId,
        approved: decision.approved,
        approver: decision.approver,
        reason: decision.reason,
        via: 'rule',
        rule: decision.rule,
        reversibility: call.reversibility,
        call: callText(call.input),
      },
    );
  }

  /**
   * After a rule was added: the calls of this turn still waiting for a human that it (or any rule)
   * now decides are decided at once, like the ones that come later. Runs in Update handlers.
   */
  applyRulesToWaiting(): void {
    for (const call of this.state.currentTurn ?? []) {
      if (call.status !== 'awaiting-approval' || !call.approval || call.approval.decision) continue;
      const verdict = this.goal.rules.verdictFor(call);
      if (verdict !== undefined) this.decideByRule(call, verdict);
    }
    this.goal.visibility.show();
  }

  refuseRemembered(call: ToolCallRecord, remembered: RememberedDenial): void {
    if (!call.approval || call.approval.decision) return;
    call.approval.decision = autoDenial(remembered, new Date().toISOString());
    this.state.counters.approvalsAutoDenied += 1;
    const intent = intentText(remembered.intent);
    this.goal.visibility.record(
      LedgerEventKind.ApprovalAutoDenied,
      `refused without asking (${remembered.decision.approver} denied ${intent} and asked not to be asked again): ${call.summary}`,
      {
        callId: call.callId,
        reversibility: call.reversibility,
        call: callText(call.input),
        intent: remembered.intent,
        intentText: intent,
        deniedEarlier: remembered.decision,
      },
    );
  }

  /**
   * Remembers a denial with doNotAskAgain, and refuses the calls of this turn still waiting with
   * the same intent: the human said not to be asked again, and they are the same question.
   * Runs in a signal or Update handler: deterministic state only.
   */
  remember(call: ToolCallRecord, decision: ApprovalDecision): void {
    this.state.rememberedDenials = rememberDenial(this.state.rememberedDenials ?? [], call, decision);
    for (const other of this.state.currentTurn ?? []) {
      if (other === call || other.status !== 'awaiting-approval' || other.approval?.decision) continue;
      const remembered = rememberedDenialFor(this.state.rememberedDenials, other);
      if (remembered !== undefined) this.refuseRemembered(other, remembered);
    }
  }
}
