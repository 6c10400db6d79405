/**
 * Asking a human about a call and taking the answer: the request (unless a rule or a remembered
 * denial answers first), the wait with its deadline, a human's decision and the rule it adds,
 * calls closed unapproved when the goal ends, and decisions ignored. Separate from the lanes:
 * decisions arrive in signal and Update handlers, outside any lane.
 */
import type { DecisionRefusal } from './approval-decision';
import { GoalPhase, type ApprovalDecision, type GoalState, type ToolCallRecord } from '../lifecycle/state';
import { LedgerEventKind } from '../../common/ledger';
import { callText } from '../../tools/call-text';
import { RuleEffect, RuleSource, type RuleScope } from '../../approvals/approval-rule';
import { whyItWaits } from '../../approvals/why-it-waits';
import { changeSetSummary } from '../../approvals/change-set-digest';
import type { AutomaticDecisions } from './automatic-decisions';
import { ApprovalNotifications } from './approval-notifications';
import { holdForDeniedEffects } from './denied-effects-check';
import { rememberedDenialFor } from './remembered-denials';
import type { ToolCallsHost } from './tool-calls-host';

export class ToolCallApprovals {
  private readonly notifications: ApprovalNotifications;

  constructor(
    private readonly goal: ToolCallsHost,
    private readonly automatic: AutomaticDecisions,
  ) {
    this.notifications = new ApprovalNotifications(goal);
  }

  private get state(): GoalState {
    return this.goal.state;
  }

  requestApprovals(turn: ToolCallRecord[]): void {
    for (const call of turn) {
      holdForDeniedEffects(call, this.state, Date.now()); // a denial covers its effects through any tool (issue 44)
      if (call.approval) this.askOrRefuse(call);
      else if (call.status === 'ready') this.automatic.refuseIfForbidden(call);
    }
  }

  /**
   * A call that needs a human is asked for, unless something already answers it: a forbid rule
   * (refused now), a human's earlier denial of its intent with doNotAskAgain (refused now), or an
   * allow rule (approved now). Only goals with rules or remembered denials take those paths, so
   * older histories replay alike.
   */
  askOrRefuse(call: ToolCallRecord): void {
    const verdict = this.goal.rules.verdictFor(call);
    if (verdict?.effect === RuleEffect.Forbid) return this.automatic.decideByRule(call, verdict);
    const remembered = rememberedDenialFor(this.state.rememberedDenials, call);
    if (remembered !== undefined) return this.automatic.refuseRemembered(call, remembered);
    if (verdict?.effect === RuleEffect.Allow) return this.automatic.decideByRule(call, verdict);
    this.recordApprovalRequest(call);
  }

  private recordApprovalRequest(call: ToolCallRecord): void {
    this.state.counters.approvalsRequested += 1;
    this.goal.visibility.record(LedgerEventKind.ApprovalRequested, `approval requested: ${call.summary}`, {
      callId: call.callId,
      reversibility: call.reversibility,
      call: callText(call.input),
      toolCallsSoFar: this.state.counters.toolCalls,
      whyItWaits: whyItWaits(call),
      ...(call.tierReason === undefined ? {} : { tierReason: call.tierReason }),
      ...(call.escalation === undefined
        ? {}
        : {
            escalated: true,
            ...(call.escalation.changes === undefined ? {} : changeSetSummary(call.escalation.changes)),
          }),
    });
    this.notifications.waiting(call);
  }

  async awaitDecision(call: ToolCallRecord): Promise<ApprovalDecision> {
    const approval = call.approval;
    if (!approval) throw new Error(`call ${call.callId} awaits approval without an approval record`);
    this.state.phase = GoalPhase.AwaitingApproval;
    this.goal.visibility.show();
    const decided = await this.notifications.waitForDecision(call, approval);
    if (!decided) {
      this.state.counters.approvalsTimedOut += 1;
      approval.decision = {
        approved: false,
        approver: 'keel',
        reason: 'approval timed out',
        decidedAt: new Date().toISOString(),
        via: 'timeout',
      };
      this.goal.visibility.record(LedgerEventKind.ApprovalTimedOut, `approval timed out: ${call.summary}`, {
        callId: call.callId,
      });
    }
    return approval.decision as ApprovalDecision;
  }

  /** A human's decision; `rule` (given with it) is added, and decides the turn's other waiting calls. */
  decide(call: ToolCallRecord, decision: Omit<ApprovalDecision, 'decidedAt'>, rule?: RuleScope): void {
    if (!call.approval || call.approval.decision) return;
    const recorded: ApprovalDecision = { ...decision, decidedAt: new Date().toISOString() };
    call.approval.decision = recorded;
    if (decision.approved) this.state.counters.approvalsGranted += 1;
    else this.state.counters.approvalsDenied += 1;
    if (decision.arrivedInPlainText === true) this.state.counters.decisionsInPlainText += 1;
    this.goal.visibility.record(
      LedgerEventKind.ApprovalDecided,
      `${decision.approved ? 'approved' : 'denied'} by ${decision.approver}: ${call.summary}`,
      {
        callId: call.callId,
        approved: decision.approved,
        approver: decision.approver,
        reason: decision.reason,
        via: decision.via,
        ...(decision.origin === undefined ? {} : { origin: decision.origin }),
        ...(decision.doNotAskAgain === true ? { doNotAskAgain: true } : {}),
        ...(decision.arrivedInPlainText === true ? { arrivedInPlainText: true } : {}),
        ...(rule === undefined ? {} : { rule }),
      },
    );
    if (!decision.approved && decision.doNotAskAgain === true) this.automatic.remember(call, recorded);
    if (rule !== undefined) this.addRuleOfDecision(call, recorded, rule);
    this.goal.visibility.show();
  }

  private addRuleOfDecision(call: ToolCallRecord, decision: ApprovalDecision, scope: RuleScope): void {
    const added = this.goal.rules.add({
      ...scope,
      effect: decision.approved ? RuleEffect.Allow : RuleEffect.Forbid,
      source: RuleSource.Decision,
      by: decision.approver,
      reason: decision.reason,
      fromCallId: call.callId,
      ...(this.state.config.approvalSignatures === undefined ? {} : { signed: true }),
    });
    // Full (MAX_RULES): the decision stands; the ledger says the rule was not kept.
    if (!added.ok) {
      this.goal.visibility.record(LedgerEventKind.ApprovalRuleNotApplied, `rule not added: ${added.error}`, {
        callId: call.callId,
        rule: scope,
      });
      return;
    }
    this.automatic.applyRulesToWaiting();
  }

  /**
   * The goal ends while calls still wait for a human (cancelled, failed): each is closed as not
   * approved, so nothing lists the goal as awaiting approval any more (KeelPendingApprovals 0).
   */
  closePendingApprovals(reason: string): void {
    for (const call of this.state.currentTurn ?? []) {
      const approval = call.approval;
      if (call.status !== 'awaiting-approval' || !approval || approval.decision) continue;
      approval.decision = {
        approved: false,
        approver: 'keel',
        reason,
        decidedAt: new Date().toISOString(),
        via: 'cancellation',
      };
      this.goal.visibility.record(LedgerEventKind.ApprovalDecided, `closed unapproved: ${call.summary}`, {
        callId: call.callId,
        approved: false,
        approver: 'keel',
        reason,
        via: 'cancellation',
      });
    }
  }

  /**
   * A signal that changed nothing: the sender saw "succeeded", so the ledger, the status and the
   * Web UI say what happened to it instead. Runs in a signal handler: deterministic state only.
   */
  ignore(refusal: DecisionRefusal): void {
    const at = new Date().toISOString();
    this.state.counters.approvalsIgnored += 1;
    this.state.lastIgnoredDecision = { at, ...refusal };
    const by = refusal.approver === undefined ? '' : ` from ${refusal.approver}`;
    this.goal.visibility.record(
      LedgerEventKind.ApprovalIgnored,
      `ignored decision${by}: ${refusal.message}`,
      { ...refusal },
    );
    this.goal.visibility.show();
  }
}
