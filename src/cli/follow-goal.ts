import type { GoalHandle } from '../client/goal-client';
import { goalResult, goalStatus } from '../client/goal-client';
import type { GoalResult } from '../workflows/goal/workflow';
import type { GoalStatusView, PendingApprovalView } from '../workflows/goal/messages';
import { approvalLines, autoDeniedClause, decisionHint, labelText } from './approval-lines';
import { finalTextLabel } from './final-text-label';
import { workspaceLossLine } from '../workflows/hosts/workspace-writes';
import { tokenUsageText } from '../workflows/goal/views/details';

export interface FollowOptions {
  print: (line: string) => void;
  pollMs?: number;
  /** Called once for each new pending approval (the demo approves from here when unattended). */
  onPendingApproval?: (approval: PendingApprovalView) => Promise<void> | void;
  /** Called once when a pending approval is no longer pending (decided here or elsewhere). */
  onApprovalSettled?: (callId: string) => void;
}

/** Prints a goal's progress as it happens and resolves with its result. */
export async function followGoal(handle: GoalHandle, options: FollowOptions): Promise<GoalResult> {
  const { print } = options;
  const seenMessages = new Set<string>();
  const seenApprovals = new Set<string>();
  const openApprovals = new Set<string>();
  let lastPhase = '';
  let finished = false;
  const result = goalResult(handle).finally(() => (finished = true));
  // Handled at once: a goal that already ended rejects while the first poll is still out, and an
  // unhandled rejection would end the process with a stack trace instead of keel's one line.
  result.catch(() => undefined);
  const poll = async (): Promise<void> => {
    let view: GoalStatusView;
    try {
      view = await goalStatus(handle);
    } catch {
      return; // not picked up by a worker yet, or between runs of continue-as-new
    }
    // Settled approvals first, so a waiting prompt gives way before new progress is printed.
    const stillPending = new Set(view.pendingApprovals.map((approval) => approval.callId));
    for (const callId of [...openApprovals]) {
      if (stillPending.has(callId)) continue;
      openApprovals.delete(callId);
      options.onApprovalSettled?.(callId);
    }
    if (view.phase !== lastPhase) {
      lastPhase = view.phase;
      print(`· ${view.phase} (turns ${view.counters.modelTurns}, tool calls ${view.counters.toolCalls})`);
    }
    // The result that follows prints the final answer whole; its transcript preview would say it twice.
    const answer = finalAnswerPreview(view);
    for (const line of view.latestMessages) {
      if (seenMessages.has(line) || line === answer) continue;
      seenMessages.add(line);
      print(`  ${line}`);
    }
    for (const approval of view.pendingApprovals) {
      if (seenApprovals.has(approval.callId)) continue;
      seenApprovals.add(approval.callId);
      print(`! approval needed (${approval.reversibility}): ${labelText(approval.summary)}`);
      for (const line of approvalLines(approval)) print(line);
      print(decisionHint(handle.workflowId, approval.callId));
      openApprovals.add(approval.callId);
      // Not awaited: a prompt for this approval must not stop the view from noticing a decision
      // made elsewhere (the CLI, the Temporal CLI, the Web UI).
      void Promise.resolve(options.onPendingApproval?.(approval)).catch((error: unknown) =>
        print(
          `  (could not act on ${approval.callId}: ${error instanceof Error ? error.message : String(error)})`,
        ),
      );
    }
  };
  while (!finished) {
    await poll();
    await Promise.race([
      result.catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500)),
    ]);
  }
  await poll();
  return result;
}

/**
 * The transcript line that previews the goal's final answer (the last message, the model's, once
 * the goal has one), which the result printed after it shows whole; undefined when there is none,
 * or while a human reviews the answer or the goal waits for a follow-up (then it is news now).
 */
export function finalAnswerPreview(
  view: Pick<GoalStatusView, 'finalText' | 'phase' | 'latestMessages'>,
): string | undefined {
  if (view.finalText === undefined) return undefined;
  if (view.phase === 'reviewing' || view.phase === 'awaiting-follow-up') return undefined;
  const last = view.latestMessages.at(-1);
  return last?.startsWith('assistant: ') ? last : undefined;
}

/** The lines that end a followed goal: how it ended, its answer, counters and tokens (as `keel status` counts them). */
export function describeResult(result: GoalResult): string[] {
  const counters = result.counters;
  const byTier = counters.toolCallsByReversibility;
  return [
    `goal ${result.status}${result.reason ? `: ${result.reason}` : ''}`,
    ...(result.finalText ? [`${finalTextLabel(result.status)}: ${result.finalText}`] : []),
    `model turns ${counters.modelTurns}; tool calls ${counters.toolCalls} (read-only ${byTier['read-only']}, mutating ${byTier.mutating}, irreversible ${byTier.irreversible}); approvals granted ${counters.approvalsGranted}, denied ${counters.approvalsDenied}, timed out ${counters.approvalsTimedOut}${autoDeniedClause(counters)}`,
    `tokens: ${tokenUsageText(result.usage)}`,
    ...(result.workspaceLoss ?? []).map((loss) => `lost writes: ${workspaceLossLine(loss)}`),
  ];
}
