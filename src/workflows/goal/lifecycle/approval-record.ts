import { z } from 'zod';
import { noticesSentSchema } from '../../approvals/notifications';

/** A human's (or keel's) answer to a call that waited. */
export const approvalDecisionSchema = z.lazy(() =>
  z.object({
    approved: z.boolean(),
    approver: z.string(),
    reason: z.string(),
    decidedAt: z.string(),
    /**
     * remembered-denial: keel refused the call without asking, for a denial with doNotAskAgain;
     * rule: an approval rule decided it at once (approver: who made the rule).
     */
    via: z.enum(['signal', 'update', 'timeout', 'cancellation', 'remembered-denial', 'rule']),
    /** With payload encryption on, the decision arrived in plain text (readable in history). */
    arrivedInPlainText: z.boolean().optional(),
    /** The rule that decided it (via rule), as the ledger, the details and the call's record name it. */
    rule: z.object({ id: z.string(), text: z.string(), source: z.string() }).optional(),
    /** The human asked not to be asked again for this call's intent (denials only). */
    doNotAskAgain: z.boolean().optional(),
    /** Where a human's decision was made, as its sender said (the inbox, the CLI). */
    origin: z.string().optional(),
  }),
);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

/** A call's ask for a human: when, until when, the answer, and the notices sent about it. */
export const approvalRecordSchema = z.lazy(() =>
  z.object({
    requestedAt: z.string(),
    /** Absolute workflow-clock time, so a wait resumed after continue-as-new keeps its deadline. */
    deadlineMs: z.number(),
    decision: approvalDecisionSchema.optional(),
    /** Deliveries of notices to the approvers that ended (approvals/notifications.ts): a new run repeats none. */
    notices: noticesSentSchema.optional(),
  }),
);
export type ApprovalRecord = z.infer<typeof approvalRecordSchema>;
