import * as wf from '@temporalio/workflow';
import { ApplicationFailure } from '@temporalio/workflow';
import type { GoalState } from './lifecycle/state';
import { statusView } from './views/status';
import { eventsAfter } from '../common/ledger';
import {
  addApprovalRuleUpdate,
  approvalRulesQuery,
  approveSignal,
  assessNowSignal,
  bulkDecisionPayloadSchema,
  decideApprovalsUpdate,
  revokeApprovalRuleUpdate,
  type ApprovalReceipt,
  decideApprovalUpdate,
  denySignal,
  DESCRIPTIONS,
  goalStatusQuery,
  goalToolsQuery,
  hostLivenessPayloadSchema,
  hostLivenessSignal,
  ledgerQuery,
  planQuery,
  rebindHostUpdate,
  rebindPayloadSchema,
  reviewPayloadSchema,
  submitReviewUpdate,
  userMessagePayloadSchema,
  userMessageSignal,
  childApprovalsSignal,
  parentRuleSignal,
} from './messages';
import { acceptChildApprovals } from './views/child-approvals';
import {
  DecisionRefusalReason,
  judgeDecision,
  type AcceptedDecision,
  type DecisionRefusal,
} from './tool-calls/approval-decision';
import { arrivedEncrypted } from '../common/arrival';
import { judgeRuleAddition, judgeRuleRevocation } from '../approvals/rule-changes';
import type { GoalApprovalRules } from './tool-calls/approval-rules';
import { workflowEd25519Verify } from '../common/ed25519';
import { FailureType } from '../common/failure-types';
import type { GoalHost } from './host/binding';
import { recordHostLiveness } from './host/liveness';
import type { HumanReviewWait } from './oversight/review-wait';
import type { GoalToolCalls } from './tool-calls/tool-calls';
import type { GoalVisibility } from './views/visibility';

export interface HandlerTarget {
  state: GoalState;
  workflowId: string;
  rules: GoalApprovalRules;
  /** The goal's payloads are encrypted: a decision in plain text is recorded (or refused) as such. */
  encryptedPayloads: boolean;
  host: GoalHost;
  visibility: GoalVisibility;
  /**
   * decide: records a human's decision, and adds the rule given with it; applyRulesToWaiting:
   * decides, by the rules now in force, the calls still waiting for a human; ignore: records a
   * signal that changed nothing (ledger `approval.ignored`, status, Web UI).
   */
  toolCalls: Pick<GoalToolCalls, 'decide' | 'applyRulesToWaiting' | 'ignore'>;
  /** Whether the goal waits for a review of its output (only then is one accepted). */
  review: Pick<HumanReviewWait, 'isAwaiting'>;
}

/**
 * Every signal, query and update a goal answers, registered with descriptions (they show in the
 * Web UI). Payloads are validated with zod; an Update's validator refuses bad input before
 * anything is written to history.
 */
export function registerGoalHandlers(target: HandlerTarget): void {
  const authority = () => ({
    workflowId: target.workflowId,
    approvers: target.state.config.approvers,
    ...(target.state.config.approvalSignatures ? { signatures: target.state.config.approvalSignatures } : {}),
    verify: workflowEd25519Verify,
    nowMs: Date.now(),
  });
  const judgeOne = (raw: unknown, approved: boolean | 'from-payload', turn = target.state.currentTurn) =>
    judgeDecision(raw, approved, turn, { ...authority(), workspace: target.state.config.workspace });
  /**
   * On an encrypted goal, a message that arrived in plain text (no codec on the sender's side)
   * left its approver and reason readable in history: refused when the goal requires encrypted
   * decisions, recorded as such otherwise.
   */
  const inPlainText = (raw: unknown) => target.encryptedPayloads && !arrivedEncrypted(raw);
  const PLAIN_TEXT_REFUSAL =
    'this goal requires encrypted decisions: send it through the codec (temporal … --codec-endpoint, keel approve with KEEL_ENCRYPTION_KEYS, or the Web UI with keel codec-server)';
  const judge = (raw: unknown, approved: boolean | 'from-payload', turn = target.state.currentTurn) => {
    const verdict = judgeOne(raw, approved, turn);
    if (verdict.ok && inPlainText(raw) && target.state.config.requireEncryptedDecisions) {
      return {
        ok: false as const,
        reason: DecisionRefusalReason.PlainTextDecision,
        message: PLAIN_TEXT_REFUSAL,
        callId: verdict.call.callId,
        approver: verdict.approver,
      };
    }
    return verdict;
  };
  const decideBySignal = (approved: boolean) => (raw: unknown) => {
    const verdict = judge(raw, approved);
    if (!verdict.ok) {
      // A signal's sender is told nothing, so the refusal goes where humans look.
      const { ok: _ok, ...refusal } = verdict;
      target.toolCalls.ignore(refusal);
      return;
    }
    target.toolCalls.decide(
      verdict.call,
      {
        approved,
        approver: verdict.approver,
        reason: verdict.reason,
        via: 'signal',
        ...(verdict.origin === undefined ? {} : { origin: verdict.origin }),
        ...(verdict.doNotAskAgain ? { doNotAskAgain: true } : {}),
        ...(inPlainText(raw) ? { arrivedInPlainText: true } : {}),
      },
      verdict.rule,
    );
  };
  const refused = (verdict: DecisionRefusal) =>
    ApplicationFailure.nonRetryable(verdict.message, FailureType.ApprovalRefused, {
      reason: verdict.reason,
      ...(verdict.callId === undefined ? {} : { callId: verdict.callId }),
      ...(verdict.approver === undefined ? {} : { approver: verdict.approver }),
    });
  wf.setHandler(approveSignal, decideBySignal(true), { description: DESCRIPTIONS.approve });
  wf.setHandler(denySignal, decideBySignal(false), { description: DESCRIPTIONS.deny });
  wf.setHandler(
    decideApprovalUpdate,
    (raw) => {
      // Judged again: another decision may have landed between the validator and this handler.
      const verdict = judge(raw, 'from-payload');
      if (!verdict.ok) throw refused(verdict);
      return decideByUpdate(verdict, inPlainText(raw));
    },
    {
      description: DESCRIPTIONS.decideApproval,
      // The validator runs before anything is written to history: a refused decision (unknown or
      // decided call, unauthorized approver, bad signature) fails at once, non-retryable, and
      // leaves no trace in history — so it cannot be put in the ledger either.
      validator: (raw) => {
        const verdict = judge(raw, 'from-payload');
        if (!verdict.ok) throw refused(verdict);
      },
    },
  );
  const decideByUpdate = (verdict: AcceptedDecision, plainText: boolean): ApprovalReceipt => {
    target.toolCalls.decide(
      verdict.call,
      {
        approved: verdict.approved,
        approver: verdict.approver,
        reason: verdict.reason,
        via: 'update',
        ...(verdict.origin === undefined ? {} : { origin: verdict.origin }),
        ...(verdict.doNotAskAgain ? { doNotAskAgain: true } : {}),
        ...(plainText ? { arrivedInPlainText: true } : {}),
      },
      verdict.rule,
    );
    return { callId: verdict.call.callId, approved: verdict.approved, toolSummary: verdict.call.summary };
  };
  /**
   * Every decision judged before any is applied, each against the turn as the ones before it
   * leave it (so a call named twice is refused): one refusal refuses them all, nothing half-applied.
   */
  const judgeAll = (raw: unknown): AcceptedDecision[] => {
    const parsed = bulkDecisionPayloadSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      throw ApplicationFailure.nonRetryable(
        `malformed decisions: ${field}${issue?.message ?? 'invalid'}`,
        FailureType.ApprovalRefused,
        { reason: 'malformed-payload' },
      );
    }
    if (inPlainText(raw) && target.state.config.requireEncryptedDecisions) {
      throw ApplicationFailure.nonRetryable(PLAIN_TEXT_REFUSAL, FailureType.ApprovalRefused, {
        reason: DecisionRefusalReason.PlainTextDecision,
      });
    }
    const seen = new Set<string>();
    return parsed.data.decisions.map((decision, index) => {
      if (seen.has(decision.callId)) {
        throw ApplicationFailure.nonRetryable(
          `decision ${index + 1}: call ${decision.callId} is named twice`,
          FailureType.ApprovalRefused,
          { reason: 'already-decided', callId: decision.callId },
        );
      }
      seen.add(decision.callId);
      const verdict = judgeOne(decision, 'from-payload');
      if (!verdict.ok) throw refused({ ...verdict, message: `decision ${index + 1}: ${verdict.message}` });
      return verdict;
    });
  };
  wf.setHandler(
    decideApprovalsUpdate,
    // A rule given with an earlier decision of the batch may have decided a later call already:
    // its receipt tells what happened to it instead of deciding it twice.
    (raw) =>
      judgeAll(raw).map((verdict) => {
        const earlier = verdict.call.approval?.decision;
        if (earlier === undefined) return decideByUpdate(verdict, inPlainText(raw));
        return { callId: verdict.call.callId, approved: earlier.approved, toolSummary: verdict.call.summary };
      }),
    {
      description: DESCRIPTIONS.decideApprovals,
      validator: (raw) => void judgeAll(raw),
    },
  );
  const ruleRefused = (message: string) =>
    ApplicationFailure.nonRetryable(message, FailureType.ApprovalRefused, { reason: 'rule-refused' });
  const refusePlainText = (raw: unknown) => {
    if (inPlainText(raw) && target.state.config.requireEncryptedDecisions)
      throw ruleRefused(PLAIN_TEXT_REFUSAL);
  };
  const judgeAddition = (raw: unknown) => {
    refusePlainText(raw);
    const verdict = judgeRuleAddition(raw, authority());
    if (!verdict.ok) throw ruleRefused(verdict.message);
    return verdict;
  };
  wf.setHandler(
    addApprovalRuleUpdate,
    (raw) => {
      const { ok: _ok, scope, ...made } = judgeAddition(raw);
      const added = target.rules.add({ ...scope, ...made });
      if (!added.ok) throw ruleRefused(added.error);
      target.toolCalls.applyRulesToWaiting();
      return added.rule;
    },
    { description: DESCRIPTIONS.addApprovalRule, validator: (raw) => void judgeAddition(raw) },
  );
  const judgeRevocation = (raw: unknown) => {
    refusePlainText(raw);
    const verdict = judgeRuleRevocation(raw, target.state.approvalRules, authority());
    if (!verdict.ok) throw ruleRefused(verdict.message);
    return verdict;
  };
  wf.setHandler(
    revokeApprovalRuleUpdate,
    (raw) => {
      const verdict = judgeRevocation(raw);
      const revoked = target.rules.revoke({ id: verdict.ruleId, by: verdict.by, reason: verdict.reason });
      if (!revoked.ok) throw ruleRefused(revoked.error);
      return revoked.rule;
    },
    { description: DESCRIPTIONS.revokeApprovalRule, validator: (raw) => void judgeRevocation(raw) },
  );
  wf.setHandler(
    userMessageSignal,
    (raw) => {
      const payload = userMessagePayloadSchema.safeParse(raw);
      if (payload.success) target.state.inbox.push(payload.data.text);
      else wf.log.warn('ignored malformed user message', { error: payload.error.message });
    },
    { description: DESCRIPTIONS.userMessage },
  );
  wf.setHandler(
    childApprovalsSignal,
    (raw) => {
      // A running child's waiting calls, shown here and told on to this goal's parent.
      if (acceptChildApprovals(target.state, raw)) target.visibility.show();
      else wf.log.warn('ignored a report of waiting calls from no running child');
    },
    { description: DESCRIPTIONS.childApprovals },
  );
  wf.setHandler(
    parentRuleSignal,
    (raw) => {
      // Like a rule added here: the calls still waiting that it forbids are decided by it.
      if (target.rules.fromParent(raw, wf.workflowInfo().parent?.workflowId))
        target.toolCalls.applyRulesToWaiting();
    },
    { description: DESCRIPTIONS.parentRule },
  );
  wf.setHandler(
    hostLivenessSignal,
    (raw) => {
      const payload = hostLivenessPayloadSchema.safeParse(raw);
      if (payload.success)
        recordHostLiveness({ state: target.state, visibility: target.visibility }, payload.data);
      else wf.log.warn('ignored malformed host liveness signal', { error: payload.error.message });
    },
    { description: DESCRIPTIONS.hostLiveness },
  );
  wf.setHandler(
    assessNowSignal,
    () => {
      target.state.assessment.requested = true;
    },
    { description: DESCRIPTIONS.assessNow },
  );
  wf.setHandler(
    submitReviewUpdate,
    (raw) => {
      const review = reviewPayloadSchema.parse(raw);
      target.state.reflection.review = {
        accepted: review.accepted,
        by: review.reviewer,
        notes: review.notes,
      };
      return { accepted: review.accepted };
    },
    {
      description: DESCRIPTIONS.submitReview,
      validator: (raw) => {
        const parsed = reviewPayloadSchema.safeParse(raw);
        if (!parsed.success) throw new Error(`invalid review: ${parsed.error.issues[0]?.message ?? ''}`);
        if (!target.review.isAwaiting) throw new Error('this goal is not waiting for a review');
      },
    },
  );
  wf.setHandler(
    rebindHostUpdate,
    async (raw) => {
      const payload = rebindPayloadSchema.parse(raw);
      const refusal = target.host.rebindRefusal(payload.host, payload.carry === true);
      if (refusal !== undefined) throw ApplicationFailure.nonRetryable(refusal, 'RebindRefused');
      const binding = await target.host.rebind(payload.host, payload.by, payload.carry === true);
      return { host: binding.id, via: binding.via };
    },
    {
      description: DESCRIPTIONS.rebindHost,
      // Refused before anything is written to history: bad host ids, goals whose host is fine.
      validator: (raw) => {
        const parsed = rebindPayloadSchema.safeParse(raw);
        if (!parsed.success) throw new Error(`invalid rebind: ${parsed.error.issues[0]?.message ?? ''}`);
        const refusal = target.host.rebindRefusal(parsed.data.host, parsed.data.carry === true);
        if (refusal !== undefined) throw new Error(refusal);
      },
    },
  );
  wf.setHandler(
    goalStatusQuery,
    () =>
      statusView(target.state, {
        nowMs: Date.now(),
        awaitingReview: target.review.isAwaiting,
        workflowId: target.workflowId,
      }),
    { description: DESCRIPTIONS.status },
  );
  wf.setHandler(planQuery, () => target.state.planning.plan, { description: DESCRIPTIONS.plan });
  wf.setHandler(ledgerQuery, (options) => eventsAfter(target.state.ledger, options?.afterSequence ?? 0), {
    description: DESCRIPTIONS.ledger,
  });
  wf.setHandler(approvalRulesQuery, () => target.rules.list(), { description: DESCRIPTIONS.approvalRules });
  wf.setHandler(goalToolsQuery, () => target.state.tools?.catalogue ?? [], {
    description: DESCRIPTIONS.tools,
  });
}
