import { z } from 'zod';

/**
 * The waiting calls a delegated child reports to its parent (goal/views/child-approvals.ts), as
 * the signal carries them and the parent's state keeps them. Apart from child-approvals.ts so the
 * state and the message definitions import it without a cycle.
 */

/** The most waiting calls one child reports (its own and its children's): enough to see, bounded. */
export const MAX_CHILD_APPROVALS = 100;

export const childApprovalSchema = z.object({
  /** The goal that holds the call, and decides it. */
  workflowId: z.string().min(1).max(1000),
  callId: z.string().min(1).max(200),
  toolName: z.string().max(200),
  summary: z.string().max(2000),
  reversibility: z.enum(['read-only', 'mutating', 'irreversible']),
  requestedAt: z.string().max(100),
  deadline: z.string().max(100),
});
export type ChildApproval = z.infer<typeof childApprovalSchema>;

export const childApprovalsPayloadSchema = z
  .object({
    workflowId: z.string().min(1).max(1000),
    pending: z.array(childApprovalSchema).max(MAX_CHILD_APPROVALS),
  })
  .strict();
export type ChildApprovalsPayload = z.infer<typeof childApprovalsPayloadSchema>;

/** A child goal's id as its root's commands take it: `delegate-1` for `ROOT-delegate-1` (another id whole). */
export function childPathOf(rootWorkflowId: string, childWorkflowId: string): string {
  const prefix = `${rootWorkflowId}-`;
  return childWorkflowId.startsWith(prefix) ? childWorkflowId.slice(prefix.length) : childWorkflowId;
}

/** The id a call of the tree is decided by from this goal: `delegate-1/call-3` (the child's id past this goal's). */
export function qualifiedCallId(
  rootWorkflowId: string,
  call: Pick<ChildApproval, 'workflowId' | 'callId'>,
): string {
  return `${childPathOf(rootWorkflowId, call.workflowId)}/${call.callId}`;
}
