/**
 * Approvals bubble up (issue 47): a delegated child tells its parent which of its calls wait for
 * a human (its own and its children's), the parent keeps the list and tells its own parent, so the
 * root goal's status shows every waiting call of its tree. The decision still goes to the goal
 * that holds the call (`keel approve ROOT delegate-1/call-3` routes it there), which judges it
 * as any decision: approvers, signatures and rules are the child's own, inherited from the root.
 */
import * as wf from '@temporalio/workflow';
import type { GoalState } from '../lifecycle/state';
import { pendingApprovals } from './status';
import { childApprovalsSignal } from '../messages';
import {
  childApprovalsPayloadSchema,
  MAX_CHILD_APPROVALS,
  type ChildApproval,
} from './child-approval-schema';

/** Every call of this goal's tree that waits for a human: its own, then its children's. */
export function treeApprovals(state: GoalState, workflowId: string): ChildApproval[] {
  const own = pendingApprovals(state).map((call) => ({
    workflowId,
    callId: call.callId,
    toolName: call.toolName,
    summary: call.summary,
    reversibility: call.reversibility,
    requestedAt: call.requestedAt,
    deadline: call.deadline,
  }));
  return [...own, ...Object.values(state.childApprovals ?? {}).flat()].slice(0, MAX_CHILD_APPROVALS);
}

/**
 * A delegated child tells its parent when the waiting calls of its tree changed (and, at its
 * end, that none wait). Goals no parent delegated send nothing, so their histories are as before.
 */
export function tellParent(state: GoalState, workflowId: string): void {
  const parent = wf.workflowInfo().parent;
  if (parent === undefined || state.config.delegation.depth === 0) return;
  const pending = treeApprovals(state, workflowId);
  const told = pending.map((call) => `${call.workflowId}/${call.callId}@${call.requestedAt}`).join(' ');
  if (told === (state.toldParent ?? '')) return;
  state.toldParent = told;
  wf.getExternalWorkflowHandle(parent.workflowId)
    .signal(childApprovalsSignal, { workflowId, pending })
    .catch((error: unknown) => {
      // A parent that already closed has nothing to show: the child's own status still lists them.
      wf.log.warn('parent not told of waiting calls', { error: String(error) });
    });
}

/** A running child's report, kept until it reports again or ends; anyone else's is ignored. */
export function acceptChildApprovals(state: GoalState, raw: unknown): boolean {
  const payload = childApprovalsPayloadSchema.safeParse(raw);
  if (!payload.success) return false;
  const { workflowId, pending } = payload.data;
  if (!(state.delegations?.running ?? []).some((child) => child.workflowId === workflowId)) return false;
  const reports = { ...(state.childApprovals ?? {}) };
  if (pending.length === 0) delete reports[workflowId];
  else reports[workflowId] = pending;
  state.childApprovals = Object.keys(reports).length === 0 ? undefined : reports;
  return true;
}

/** A child ended: nothing of it waits any more, whatever it last said. */
export function forgetChild(state: GoalState, workflowId: string): void {
  if (state.childApprovals?.[workflowId] === undefined) return;
  const { [workflowId]: _ended, ...rest } = state.childApprovals;
  state.childApprovals = Object.keys(rest).length === 0 ? undefined : rest;
}
