import * as wf from '@temporalio/workflow';
import { ApplicationFailure } from '@temporalio/workflow';
import type { ApprovalDecision, GoalState, ToolCallRecord } from './goal-state';
import { statusView } from './goal-view';
import { eventsAfter } from '../common/ledger';
import {
  approvalSignalPayloadSchema,
  approvalUpdatePayloadSchema,
  approveSignal,
  assessNowSignal,
  decideApprovalUpdate,
  denySignal,
  DESCRIPTIONS,
  goalStatusQuery,
  ledgerQuery,
  planQuery,
  reviewPayloadSchema,
  submitReviewUpdate,
  userMessagePayloadSchema,
  userMessageSignal,
} from './messages';
import { checkDecision } from './turn';

export interface HandlerTarget {
  state: GoalState;
  decide(call: ToolCallRecord, decision: Omit<ApprovalDecision, 'decidedAt'>): void;
  isAwaitingReview(): boolean;
}

/**
 * Every signal, query and update a goal answers, registered with descriptions (they show in the
 * Web UI). Payloads are validated with zod; an Update's validator refuses bad input before
 * anything is written to history.
 */
export function registerGoalHandlers(target: HandlerTarget): void {
  const decideBySignal = (approved: boolean) => (raw: unknown) => {
    const payload = approvalSignalPayloadSchema.safeParse(raw);
    if (!payload.success) {
      wf.log.warn('ignored malformed approval signal', { error: payload.error.message });
      return;
    }
    const check = checkDecision(target.state.currentTurn, payload.data.callId);
    if (!check.ok) {
      wf.log.warn('ignored approval signal', { reason: check.message });
      return;
    }
    target.decide(check.call, { approved, ...payload.data, via: 'signal' });
  };
  wf.setHandler(approveSignal, decideBySignal(true), { description: DESCRIPTIONS.approve });
  wf.setHandler(denySignal, decideBySignal(false), { description: DESCRIPTIONS.deny });
  wf.setHandler(
    decideApprovalUpdate,
    (raw) => {
      const payload = approvalUpdatePayloadSchema.parse(raw);
      const check = checkDecision(target.state.currentTurn, payload.callId);
      if (!check.ok) throw ApplicationFailure.nonRetryable(check.message, 'ApprovalRejected');
      target.decide(check.call, { ...payload, via: 'update' });
      return { callId: check.call.callId, approved: payload.approved, toolSummary: check.call.summary };
    },
    {
      description: DESCRIPTIONS.decideApproval,
      // The validator runs before anything is written to history: an unknown or already
      // decided call id is refused and the caller learns at once.
      validator: (raw) => {
        const payload = approvalUpdatePayloadSchema.safeParse(raw);
        if (!payload.success) throw new Error(`invalid decision: ${payload.error.issues[0]?.message ?? ''}`);
        const check = checkDecision(target.state.currentTurn, payload.data.callId);
        if (!check.ok) throw new Error(check.message);
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
    goalStatusQuery,
    () => statusView(target.state, { nowMs: Date.now(), awaitingReview: target.isAwaitingReview() }),
    { description: DESCRIPTIONS.status },
  );
  wf.setHandler(planQuery, () => target.state.planning.plan, { description: DESCRIPTIONS.plan });
  wf.setHandler(ledgerQuery, (options) => eventsAfter(target.state.ledger, options?.afterSequence ?? 0), {
    description: DESCRIPTIONS.ledger,
  });
}
