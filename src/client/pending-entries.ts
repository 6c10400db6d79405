import type { GoalStatusView } from '../workflows/goal/messages';
import { callText } from '../workflows/tools/call-text';
import { changeSetDigest } from '../workflows/approvals/change-set-digest';
import type { WorkspaceEffects } from '../workflows/tools/tool-outcome';

/**
 * What waits for a human in a goal, one entry per call (and one for an output awaiting review), as
 * `keel pending` prints it and the inbox lists it. Pure, so both read exactly the same entries.
 */
export interface PendingEntry {
  workflowId: string;
  /** The call's id, or "review" for an output awaiting a human review. */
  callId: string;
  reversibility: string;
  summary: string;
  deadline: string;
  /** Approvals only: the tool asked for. */
  toolName?: string;
  /** Approvals only: the whole call (callText) and the input it is rendered from. */
  call?: string;
  input?: unknown;
  /** Why it waits for a human, and the changes it holds (applied on approval), when it holds any. */
  reason?: string;
  heldChanges?: WorkspaceEffects;
  /** The digest of heldChanges, to approve exactly them (`keel approve … --changes`). */
  changesDigest?: string;
  /** The held changes as a unified diff, cut short when long. */
  heldDiff?: string;
  /** Who may decide it; absent: anyone may. */
  approvers?: string[];
  /** The goal's host is missing: the line saying so and the actions (host-loss-lines.ts). */
  hostLoss?: string[];
}

export function pendingEntries(
  workflowId: string,
  view: Pick<GoalStatusView, 'awaitingReview' | 'pendingApprovals'>,
): PendingEntry[] {
  const entries: PendingEntry[] = [];
  if (view.awaitingReview) {
    const summary = 'awaiting a human review of its output';
    entries.push({ workflowId, callId: 'review', reversibility: 'output', summary, deadline: '' });
  }
  for (const {
    callId,
    toolName,
    reversibility,
    summary,
    deadline,
    input,
    reason,
    heldChanges,
    heldDiff,
    approvers,
  } of view.pendingApprovals)
    entries.push({
      workflowId,
      callId,
      toolName,
      reversibility,
      summary,
      deadline,
      call: callText(input),
      input,
      ...(reason === undefined ? {} : { reason }),
      ...(heldChanges === undefined ? {} : { heldChanges, changesDigest: changeSetDigest(heldChanges) }),
      ...(heldDiff === undefined ? {} : { heldDiff }),
      ...(approvers === undefined ? {} : { approvers }),
    });
  return entries;
}
