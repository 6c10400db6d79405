import { LedgerEventKind } from '../../common/ledger';
import {
  answersCheckpoint,
  GuardAction,
  guardCheckpointReply,
  guardTurn,
  initialGuardsState,
  rememberModelReply,
  restartGuards,
  type GuardDecision,
  type GuardedCall,
  type GuardsState,
} from '../../principles/guards';
import { bringCheckpointForward, type PrincipleSettings } from '../../principles/principles';
import { CallEffect, effectOfCall } from '../../principles/progress';
import { StepStatus } from '../../planning/plan';
import { judgeReflectionResponse } from '../../reflection/reflection-response';
import { isHarnessTool } from '../../tools/harness-tools';
import { DELEGATE_TOOL } from '../../tools/delegate-spec';
import type { ToolOutcome } from '../../tools/tool-outcome';
import type { GoalJudge } from './judge';
import type { GoalPlanning, PlanningOutcome } from './planning';
import type { GoalState, ToolCallRecord } from '../lifecycle/state';
import type { GoalVisibility } from '../views/visibility';

/** What the lifecycle does after a guard stopped something. */
export type GuardStop =
  | { kind: 'stuck'; reason: string }
  /** Planning was on: the step failed; the plan backtracked, or gave up with this outcome. */
  | { kind: 'backtracked'; outcome: PlanningOutcome };

/** What one executed call told the guards, kept until its turn ends. */

/** What the lifecycle needs to know of the reply after a checkpoint. */
export interface CheckpointReply {
  /** Answered: the judge says it addresses the checkpoint, and it repeats no earlier reply. */
  addressed: boolean;
  stop?: GuardStop;
}

/**
 * The hard guards in the lifecycle (issue 10): they see every finished turn and every reply to a
 * checkpoint, record each decision in the ledger with its numbers, give the model their prompts
 * as notes, and say when the goal must stop. The decisions themselves are pure (principles/guards.ts).
 */
export class GoalGuards {
  constructor(
    private readonly state: GoalState,
    private readonly visibility: GoalVisibility,
    private readonly planning: GoalPlanning,
    /** The progress judge: asked after a turn the counting guards did not stop (goal/oversight/judge.ts). */
    private readonly judge?: GoalJudge,
  ) {}

  /** State carried from a version without guards gets fresh guards, starting from now. */
  private get guards(): GuardsState {
    this.state.guards ??= initialGuardsState(this.restartPoint());
    return this.state.guards;
  }

  /**
   * What moves when a plan step is completed: the count of the plan's completed steps. (Not the
   * assessment's last progress cycle: every successful change moves that too, so any write would
   * reset the stretches.)
   */
  private progressMark(): number | undefined {
    const plan = this.state.planning.plan;
    return plan?.steps.filter((step) => step.status === StepStatus.Completed).length;
  }

  /** Principle settings as the goal runs them: checkpoints enforced once the guard escalated. */
  principleSettings(): PrincipleSettings {
    const settings = this.state.config.principles;
    if (!this.state.guards?.checkpoints.escalated || settings.cadence.enforce) return settings;
    return { ...settings, cadence: { ...settings.cadence, enforce: true } };
  }

  /** After one executed call (from its lane): what the turn's end will need to know of it. */
  observeCall(
    call: ToolCallRecord,
    outcome: ToolOutcome | undefined,
    atToolCall: number,
    mismatch: boolean,
  ): void {
    const hypothesis = (call.input as { hypothesis?: unknown } | null)?.hypothesis;
    const stated =
      this.state.config.principles.hypothesis && typeof hypothesis === 'string' && hypothesis.trim() !== '';
    // On the call record, which continue-as-new carries with a turn parked mid-way.
    call.guardObservation = {
      atToolCall,
      candidates: [...(outcome?.candidates ?? [])],
      // "Workspace changes: none" is no change: a poll or a test run only brings information.
      changed:
        effectOfCall({
          ok: outcome?.ok === true,
          reversibility: call.reversibility,
          ...(outcome?.effects === undefined ? {} : { effects: outcome.effects }),
        }) === CallEffect.Change,
      ...(outcome?.effects?.stateDigest === undefined ? {} : { stateAfter: outcome.effects.stateDigest }),
      ...(stated ? { hypothesisMismatch: mismatch } : {}),
    };
  }

  /**
   * Every reply that finished normally, before the cadence judge sees it: whether it answers an
   * open checkpoint (the judge's verdict, and not a repeat of an earlier reply), and — for a reply
   * that goes on with tool calls — the checkpoint guard's decision. A final answer is not judged
   * by the guard: it ends the task anyway. The reply then joins the ones later answers are compared with.
   */
  afterReply(replyText: string, hasToolCalls: boolean): CheckpointReply {
    const settings = this.state.config.guards;
    const open = this.state.principles.cadence.awaitingAnswer;
    const judged = judgeReflectionResponse(replyText).addressed;
    const answer = open ? answersCheckpoint(this.guards, settings, { text: replyText, judged }) : undefined;
    rememberModelReply(this.guards, replyText, this.state.counters.modelTurns);
    if (!answer) return { addressed: false };
    if (!hasToolCalls) return { addressed: answer.addressed };
    const decision = guardCheckpointReply(this.guards, settings, {
      addressed: answer.addressed,
      repeated: answer.repeats !== undefined,
      toolCalls: this.state.counters.toolCalls,
      modelTurns: this.state.counters.modelTurns,
    });
    if (!decision) return { addressed: answer.addressed };
    this.act(decision);
    // After a warning the next checkpoint comes sooner: the model gets its next chance to answer
    // within a few calls, and a model that will not answer is stopped within a few more.
    if (decision.action === GuardAction.Warn) bringCheckpointForward(this.state.principles);
    if (decision.action !== GuardAction.Stop) return { addressed: answer.addressed };
    return { addressed: false, stop: { kind: 'stuck', reason: decision.summary } };
  }

  /** After a turn's calls ran: loops, hypothesis streaks, stagnation. */
  async afterTurn(turn: readonly ToolCallRecord[]): Promise<GuardStop | undefined> {
    const calls = turn.flatMap((call) => this.guardedCall(call));
    const planned = this.state.config.planning.enabled && this.planning.hasActiveStep();
    const consequence = planned ? 'fails the active plan step and plans again' : 'stops the goal as stuck';
    const decisions = guardTurn(this.guards, this.state.config.guards, {
      calls,
      toolCalls: this.state.counters.toolCalls,
      modelTurns: this.state.counters.modelTurns,
      progressCycle: this.progressMark(),
      consequence,
    });
    const counted = decisions.find((decision) => decision.action === GuardAction.Stop);
    // A stop speaks for itself; the warnings of the same turn would only be noise before it.
    for (const decision of counted ? [counted] : decisions) this.act(decision, planned);
    // What counting cannot see: only asked when counting let the turn pass.
    const judged = counted
      ? undefined
      : await this.judge?.afterTurn({ calls, progressMark: this.progressMark(), consequence });
    if (judged) this.act({ ...judged, guard: 'judge' }, planned);
    const stop = counted ?? (judged?.action === GuardAction.Stop ? judged : undefined);
    if (!stop) return undefined;
    if (planned) {
      const outcome = await this.planning.failStepByGuard(stop.summary);
      if (outcome) {
        restartGuards(this.guards, this.restartPoint());
        this.judge?.restart(this.progressMark());
        return { kind: 'backtracked', outcome };
      }
    }
    return { kind: 'stuck', reason: stop.summary };
  }

  /** A follow-up message starts a new task: loops and stagnation are counted afresh. */
  startTask(): void {
    restartGuards(this.guards, this.restartPoint());
    this.judge?.restart(this.progressMark());
  }

  private restartPoint() {
    const mark = this.progressMark();
    return {
      toolCalls: this.state.counters.toolCalls,
      modelTurns: this.state.counters.modelTurns,
      ...(mark === undefined ? {} : { progressCycle: mark }),
    };
  }

  /**
   * Calls the model made and got a result for, and calls a human (or a timeout, or a remembered
   * denial) refused; held-back calls and report_step are the harness's own. A delegate call is
   * the model's act: its child's answer is what it learned (progress, or a loop when repeated).
   */
  private guardedCall(call: ToolCallRecord): GuardedCall[] {
    if ((isHarnessTool(call.toolName) && call.toolName !== DELEGATE_TOOL) || call.result === undefined)
      return [];
    if (call.summary.endsWith('(held back)')) return [];
    const observed = call.guardObservation;
    const denied = call.approval?.decision?.approved === false;
    return [
      {
        toolName: call.toolName,
        input: call.input,
        summary: call.summary,
        // Each child has its own id: the same answer under another id is the same result.
        resultText:
          call.toolName === DELEGATE_TOOL ? withoutChildIds(call.result.content) : call.result.content,
        failed: call.result.isError,
        candidates: observed?.candidates ?? [],
        // A call answered without running (unknown tool, refused input) still counts where it happened.
        atToolCall: observed?.atToolCall ?? this.state.counters.toolCalls,
        effect: denied ? CallEffect.Denied : observed?.changed ? CallEffect.Change : CallEffect.Read,
        // What its layer held is what the human refused, however the call was spelled.
        ...(denied && call.escalation?.changes !== undefined ? { held: call.escalation.changes } : {}),
        ...(observed?.stateAfter === undefined ? {} : { stateAfter: observed.stateAfter }),
        hypothesisMismatch: observed?.hypothesisMismatch,
      },
    ];
  }

  /** Every decision goes to the ledger with its numbers; prompts go to the model before its next turn. */
  private act(
    decision: Omit<GuardDecision, 'guard' | 'action'> & { guard: string; action: string },
    planned = false,
  ): void {
    const kind =
      decision.action === GuardAction.Stop
        ? LedgerEventKind.GuardStopped
        : decision.action === GuardAction.Escalate
          ? LedgerEventKind.GuardEscalated
          : LedgerEventKind.GuardWarned;
    const taken =
      decision.action === GuardAction.Stop
        ? planned
          ? 'fail-step'
          : 'stop'
        : decision.action === GuardAction.Escalate
          ? 'enforce-checkpoints'
          : 'prompt';
    this.visibility.record(kind, `guard ${decision.summary}`, {
      guard: decision.guard,
      action: taken,
      atTurn: this.state.counters.modelTurns,
      ...decision.data,
    });
    if (decision.prompt) this.state.notes.push(decision.prompt);
  }
}

/** A delegate result as the guards compare it: the child's id (`…-delegate-N`) left out. */
function withoutChildIds(text: string): string {
  return text.replace(/\S+-delegate-\d+/g, 'a child goal');
}
