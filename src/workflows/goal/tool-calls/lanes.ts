/**
 * One call's lane: wait for its decision, then run it (keel's own harness tool, held changes to
 * apply, or an activity) or close it as denied. Separate from GoalToolCalls, which runs the lanes
 * side by side; a call that escalates mid-run goes round its lane again.
 */
import * as wf from '@temporalio/workflow';
import type { PlanningOutcome } from '../oversight/planning';
import { GoalPhase, type ApprovalDecision, type GoalState, type ToolCallRecord } from '../lifecycle/state';
import { observeDenial } from '../../principles/principles';
import { reportStepInputSchema } from '../../tools/report-step-spec';
import type { ToolOutcome } from '../../tools/tool-outcome';
import { isHarnessTool } from '../../tools/harness-tools';
import { catalogueEntry } from '../../tools/tool-catalogue';
import { approvedBeyondMutating } from '../../approvals/decision-tier';
import { heldAtOnceRefusal } from '../../approvals/held-at-once';
import type { ToolCallApprovals } from './approvals';
import type { CallResults } from './call-results';
import type { CallRunner } from './call-runner';
import { deniedCallContent } from './denied-call';
import type { HeldChanges } from './held-changes';
import type { GoalDelegation } from './delegation';
import { DELEGATE_TOOL } from '../../tools/delegate-spec';
import type { ToolCallsHost } from './tool-calls-host';
import { turnCheckpoint } from '../lineage/turn-checkpoint';

export interface LaneParts {
  readonly approvals: ToolCallApprovals;
  readonly held: HeldChanges;
  readonly runner: CallRunner;
  readonly results: CallResults;
  /** The delegate tool's child goals. */
  readonly delegation: GoalDelegation;
  /** A reported step failure used up every plan attempt (GoalToolCalls.planningGaveUp). */
  readonly gaveUp: (outcome: PlanningOutcome) => void;
}

export class ToolCallLanes {
  constructor(
    private readonly goal: ToolCallsHost,
    private readonly parts: LaneParts,
  ) {}

  private get state(): GoalState {
    return this.goal.state;
  }

  async runLane(call: ToolCallRecord): Promise<void> {
    if (call.status === 'done') return;
    if (call.status === 'awaiting-approval') {
      // Decided before anyone was asked (a remembered denial, a rule): nothing to wait for.
      const via = call.approval?.decision?.via;
      const decidedAlready =
        via === 'remembered-denial' || via === 'rule' ? call.approval?.decision : undefined;
      const decision = decidedAlready ?? (await this.parts.approvals.awaitDecision(call));
      if (!decision.approved) {
        await this.closeDenied(call, decision);
        return;
      }
      call.status = 'ready';
    }
    if (isHarnessTool(call.toolName)) await this.runHarnessTool(call);
    else if (call.escalation?.changes !== undefined) await this.parts.held.settleHeld(call, true);
    else await this.execute(call);
  }

  /** A denial (or a timeout): the call's result says so; changes it holds are discarded. */
  private async closeDenied(call: ToolCallRecord, decision: ApprovalDecision): Promise<void> {
    if (call.escalation?.changes !== undefined) await this.parts.held.settleHeld(call, false);
    call.status = 'done';
    call.result = {
      content: deniedCallContent(decision, call, this.state.tools?.catalogue ?? []),
      isError: true,
    };
    observeDenial(this.state.principles, this.state.config.principles);
    this.goal.planning.observeDenial();
    if (call.escalation === undefined) return;
    this.parts.results.afterCall(call, undefined, this.state.counters.toolCalls, { denied: true });
  }

  private async runHarnessTool(call: ToolCallRecord): Promise<void> {
    if (call.toolName === DELEGATE_TOOL) {
      // Counted as the goal's own call (its limit, the guards' windows); its child's calls are the child's.
      this.countCall(call);
      call.result = await this.parts.delegation.run(call);
      call.status = 'done';
      return;
    }
    const input = reportStepInputSchema.parse(call.input);
    const report = await this.goal.planning.report(input);
    call.result = { content: report.result, isError: false };
    call.status = 'done';
    if (report.outcome.kind === 'give-up') this.parts.gaveUp(report.outcome);
  }

  /** One more call of the goal's own: its total, by tool and by tier. */
  private countCall(call: ToolCallRecord): void {
    const counters = this.state.counters;
    counters.toolCalls += 1;
    counters.toolCallsByTool[call.toolName] = (counters.toolCallsByTool[call.toolName] ?? 0) + 1;
    counters.toolCallsByReversibility[call.reversibility] += 1;
  }

  private async execute(call: ToolCallRecord): Promise<void> {
    if (call.reversibility !== 'read-only') await this.goal.planning.beforeMutatingCall();
    this.state.phase = GoalPhase.RunningTools;
    call.status = 'running';
    // A call that ran once already and asked for a human (escalation) is still one call.
    if (call.escalation === undefined) this.countCall(call);
    const atToolCall = this.state.counters.toolCalls;
    this.goal.visibility.show();
    const entry = catalogueEntry(this.state.tools?.catalogue ?? [], call.toolName);
    const { runner, held, results } = this.parts;
    const input = {
      toolName: call.toolName,
      input: call.input,
      workspace: this.goal.host.workspace,
      callId: call.callId,
      // Stable across retries, replays and continue-as-new: the tool can refuse a repeat.
      idempotencyKey: runner.idempotencyKey(call),
      reversibility: call.reversibility,
      approved: approvedBeyondMutating(call), // a decision covers its own tier only
      sandbox: { network: this.state.config.sandbox.network },
      // a command's text need not name what it changes: its layer checks its changes (issue 44)
      ...(call.toolName === 'run_command' ? runner.deniedEffectsInput() : {}),
      ...turnCheckpoint(this.state, this.goal.workflowId, call),
    };
    let outcome: ToolOutcome | undefined;
    try {
      outcome = await runner.runCall(call, entry, input);
      if (outcome.escalation !== undefined && !input.approved) {
        const crowded = heldAtOnceRefusal(held.heldListsThisTurn(call), outcome.escalation.held?.changes);
        if (crowded === undefined) {
          held.escalate(call, outcome, outcome.escalation);
          await this.runLane(call);
          return;
        }
        // Too much already waits for approvers to see it all: discarded, like a denied layer.
        await held.settleHeld(call, false);
        outcome = undefined;
        call.result = { content: crowded, isError: true };
      } else results.recordResult(call, outcome);
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      call.result = results.failedCallResult(call, error);
    }
    call.status = 'done';
    results.afterCall(call, outcome, atToolCall);
  }
}
