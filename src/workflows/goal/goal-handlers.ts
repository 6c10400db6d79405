import * as wf from '@temporalio/workflow';
import { ApplicationFailure } from '@temporalio/workflow';
import type { ApprovalDecision, GoalState, ToolCallRecord } from './goal-state';
import { statusView } from './goal-view';
import { eventsAfter } from '../common/ledger';
import {
  approveSignal,
  assessNowSignal,
  decideApprovalUpdate,
  denySignal,
  DESCRIPTIONS,
  goalStatusQuery,
  ledgerQuery,
  planQuery,
  rebindHostUpdate,
  rebindPayloadSchema,
  reviewPayloadSchema,
  submitReviewUpdate,
  userMessagePayloadSchema,
  userMessageSignal,
} from './messages';
import { judgeDecision, type DecisionRefusal } from './approval-decision';
import { workflowEd25519Verify } from '../common/ed25519';
import { FailureType } from '../common/failure-types';
import type { GoalHost } from './goal-host';

export interface HandlerTarget {
  state: GoalState;
  workflowId: string;
  decide(call: ToolCallRecord, decision: Omit<ApprovalDecision, 'decidedAt'>): void;
  /** Records a signal that changed nothing (ledger `approval.ignored`, status, Web UI). */
  ignore(refusal: DecisionRefusal): void;
  isAwaitingReview(): boolean;
  host: GoalHost;
}

/**
 * Every signal, query and update a goal answers, registered with descriptions (they show in the
 * Web UI). Payloads are validated with zod; an Update's validator refuses bad input before
 * anything is written to history.
 */
export function registerGoalHandlers(target: HandlerTarget): void {
  const judge = (raw: unknown, approved: boolean | 'from-payload') =>
    judgeDecision(raw, approved, target.state.currentTurn, {
      workflowId: target.workflowId,
      approvers: target.state.config.approvers,
      ...(target.state.config.approvalSignatures
        ? { signatures: target.state.config.approvalSignatures }
        : {}),
      verify: workflowEd25519Verify,
    });
  const decideBySignal = (approved: boolean) => (raw: unknown) => {
    const verdict = judge(raw, approved);
    if (!verdict.ok) {
      // A signal's sender is told nothing, so the refusal goes where humans look.
      const { ok: _ok, ...refusal } = verdict;
      target.ignore(refusal);
      return;
    }
    target.decide(verdict.call, {
      approved,
      approver: verdict.approver,
      reason: verdict.reason,
      via: 'signal',
      ...(verdict.doNotAskAgain ? { doNotAskAgain: true } : {}),
    });
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
      target.decide(verdict.call, {
        approved: verdict.approved,
        approver: verdict.approver,
        reason: verdict.reason,
        via: 'update',
        ...(verdict.doNotAskAgain ? { doNotAskAgain: true } : {}),
      });
      return { callId: verdict.call.callId, approved: verdict.approved, toolSummary: verdict.call.summary };
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
        if (!target.isAwaitingReview()) throw new Error('this goal is not waiting for a review');
      },
    },
  );
  wf.setHandler(
    rebindHostUpdate,
    async (raw) => {
      const payload = rebindPayloadSchema.parse(raw);
      const refusal = target.host.rebindRefusal(payload.host);
      if (refusal !== undefined) throw ApplicationFailure.nonRetryable(refusal, 'RebindRefused');
      const binding = await target.host.rebind(payload.host, payload.by);
      return { host: binding.id, via: binding.via };
    },
    {
      description: DESCRIPTIONS.rebindHost,
      // Refused before anything is written to history: bad host ids, goals whose host is fine.
      validator: (raw) => {
        const parsed = rebindPayloadSchema.safeParse(raw);
        if (!parsed.success) throw new Error(`invalid rebind: ${parsed.error.issues[0]?.message ?? ''}`);
        const refusal = target.host.rebindRefusal(parsed.data.host);
        if (refusal !== undefined) throw new Error(refusal);
      },
    },
  );
  wf.setHandler(
    goalStatusQuery,
    () =>
      statusView(target.state, {
        nowMs: Date.now(),
        awaitingReview: target.isAwaitingReview(),
        workflowId: target.workflowId,
      }),
    { description: DESCRIPTIONS.status },
  );
  wf.setHandler(planQuery, () => target.state.planning.plan, { description: DESCRIPTIONS.plan });
  wf.setHandler(ledgerQuery, (options) => eventsAfter(target.state.ledger, options?.afterSequence ?? 0), {
    description: DESCRIPTIONS.ledger,
  });
}
