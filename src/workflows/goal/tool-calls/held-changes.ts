/**
 * Changes a call's sandbox layer holds for a human: the call escalated to an approval with them,
 * and, once decided, applied or discarded on the workspace's host. Separate from running a call:
 * settling is an activity of its own that closes the call itself.
 */
import * as wf from '@temporalio/workflow';
import { GoalPhase, type GoalState, type ToolCallRecord } from '../lifecycle/state';
import type { Escalation, ToolOutcome, WorkspaceEffects } from '../../tools/tool-outcome';
import { formatToolResult } from '../../tools/format-tool-result';
import type { ToolCallApprovals } from './approvals';
import type { CallResults } from './call-results';
import type { CallRunner } from './call-runner';
import type { ToolCallsHost } from './tool-calls-host';

export interface HeldChangesParts {
  readonly approvals: ToolCallApprovals;
  readonly runner: CallRunner;
  readonly results: CallResults;
}

export class HeldChanges {
  constructor(
    private readonly goal: ToolCallsHost,
    private readonly parts: HeldChangesParts,
  ) {}

  private get state(): GoalState {
    return this.goal.state;
  }

  /**
   * The change lists this turn's other calls hold (held-at-once.ts): waiting for a human or
   * settled, each stays in the goal's state until the turn ends.
   */
  heldListsThisTurn(call: ToolCallRecord): WorkspaceEffects[] {
    return (this.state.currentTurn ?? []).flatMap((other) =>
      other.callId !== call.callId && other.escalation?.changes !== undefined
        ? [other.escalation.changes]
        : [],
    );
  }

  /**
   * The worker found the call needs a human after all (its changes went beyond its tier, or no
   * sandbox holds it there): it waits for an approval like an irreversible call, with the reason
   * and the changes it holds for the approver to see. Nothing of it reached the workspace.
   */
  escalate(call: ToolCallRecord, outcome: ToolOutcome, escalation: Escalation): void {
    const nowMs = Date.now();
    // It ran (and was counted) at its declared tier; it is held at irreversible, and the tier
    // counters say the tier a call was held at, as the approval line beside them does (issue 46).
    const byTier = this.state.counters.toolCallsByReversibility;
    byTier[call.reversibility] -= 1;
    byTier.irreversible += 1;
    call.reversibility = 'irreversible';
    call.tierReason = escalation.reason;
    call.escalation = {
      reason: escalation.reason,
      content: formatToolResult(outcome),
      ...(escalation.held === undefined ? {} : { changes: escalation.held.changes }),
      ...(escalation.held?.diff === undefined ? {} : { diff: escalation.held.diff }),
    };
    call.status = 'awaiting-approval';
    call.approval = {
      requestedAt: new Date(nowMs).toISOString(),
      deadlineMs: nowMs + this.state.config.limits.approvalTimeoutMs,
    };
    this.parts.approvals.askOrRefuse(call);
  }

  /** Applies (approved) or discards (denied) the changes a call's layer holds, on the workspace's host. */
  async settleHeld(call: ToolCallRecord, keep: boolean): Promise<void> {
    this.state.phase = GoalPhase.RunningTools;
    call.status = 'running';
    this.goal.visibility.show();
    const atToolCall = this.state.counters.toolCalls;
    let outcome: ToolOutcome | undefined;
    try {
      const settled = await this.goal.host.run((hostQueue) =>
        this.goal.activities
          .toolsWithTimeout(undefined, hostQueue)
          .tools.settleHeldChanges.executeWithOptions(
            {
              summary: `${keep ? 'apply' : 'discard'} held changes: ${call.summary}`,
              priority: this.goal.model.priority(),
            },
            [
              {
                workspace: this.goal.host.workspace,
                idempotencyKey: this.parts.runner.idempotencyKey(call),
                keep,
                ...(this.goal.host.id === undefined ? {} : { host: this.goal.host.id }),
              },
            ],
          ),
      );
      outcome = settled ?? undefined;
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      if (keep) call.result = this.parts.results.failedCallResult(call, error);
    }
    if (!keep) return; // closeDenied writes the result
    if (outcome !== undefined) this.parts.results.recordResult(call, outcome);
    call.status = 'done';
    this.parts.results.afterCall(call, outcome, atToolCall);
  }
}
