import * as wf from '@temporalio/workflow';
import type { DecisionRefusal } from './approval-decision';
import { describeFailure } from '../lifecycle/failures';
import type { PlanningOutcome } from '../oversight/planning';
import type { ApprovalDecision, GoalState, ToolCallRecord } from '../lifecycle/state';
import type { RuleScope } from '../../approvals/approval-rule';
import type { NamedCall } from './call-ids';
import type { PreparedCall } from '../../tools/tool-catalogue';
import { callsToPrepare } from './turn';
import { splitPreparation } from './prepared-calls';
import { ToolCallApprovals } from './approvals';
import { AutomaticDecisions } from './automatic-decisions';
import { CallResults } from './call-results';
import { CallRunner } from './call-runner';
import { HeldChanges } from './held-changes';
import { GoalDelegation } from './delegation';
import { ToolCallLanes } from './lanes';
import { canContinueAsNewMidTurn, parkedLongEnough } from './parked-turn';
import type { ToolCallsHost } from './tool-calls-host';

export type { ToolCallsHost } from './tool-calls-host';

/**
 * The tool calls of one turn, each in its own lane: wait for a human when the call needs one,
 * run it as an activity (irreversible calls at most once), and record what the harness learns
 * from it. Lanes run in parallel; the turn ends when every lane is done.
 *
 * Its parts live beside it: lanes.ts (one call's lane), approvals.ts and automatic-decisions.ts
 * (a human's answer, or a rule's or remembered denial's), held-changes.ts (escalation and held
 * changes settled), call-runner.ts (the activity), call-results.ts (what a call's result records)
 * and parked-turn.ts (a turn parked on humans handed over to a new run).
 */
export class GoalToolCalls {
  /** Set when a reported step failure used up every plan attempt; checked at the turn's end. */
  planningGaveUp: PlanningOutcome | undefined;
  private readonly automatic: AutomaticDecisions;
  private readonly approvals: ToolCallApprovals;
  private readonly lanes: ToolCallLanes;

  constructor(
    private readonly goal: ToolCallsHost,
    /** Shared with the self-assessment's split (goal/stages.ts): one set of children per goal. */
    delegation: GoalDelegation = new GoalDelegation(goal),
  ) {
    const results = new CallResults(goal);
    const runner = new CallRunner(goal);
    this.automatic = new AutomaticDecisions(goal);
    this.approvals = new ToolCallApprovals(goal, this.automatic);
    const held = new HeldChanges(goal, { approvals: this.approvals, runner, results });
    this.lanes = new ToolCallLanes(goal, {
      approvals: this.approvals,
      held,
      runner,
      results,
      delegation,
      gaveUp: (outcome) => {
        this.planningGaveUp = outcome;
      },
    });
  }

  private get state(): GoalState {
    return this.goal.state;
  }

  /** Runs every call of the turn in its own lane. */
  async run(turn: ToolCallRecord[]): Promise<void> {
    const lanes = Promise.all(turn.map((call) => this.lanes.runLane(call))).then(() => 'done' as const);
    // A wait for humans can be long, grow history (signals, updates, timers) and outlive the
    // goal's place in the worker's cache: once every lane waits on a human in a run that is long
    // enough, the waiting turn is carried over to a new, short run. The watcher lives in
    // its own scope so it is removed once it answered instead of piling up turn by turn.
    for (;;) {
      const watcher = new wf.CancellationScope();
      const canContinue = watcher.run(() => parkedLongEnough(this.goal, turn));
      const first = await Promise.race([lanes, canContinue.then(() => 'continue' as const)]);
      watcher.cancel();
      canContinue.catch(() => undefined); // the cancellation of an unneeded watcher is expected
      if (first === 'done') return;
      // Handing over takes awaits, during which a decision may arrive and a lane move on: the
      // goal then checks again and, if the turn is no longer quiet, goes on in this run.
      await this.goal.handover.continueAsNew(() => canContinueAsNewMidTurn(this.goal, turn));
    }
  }

  /**
   * Prepares this turn's calls before any runs. Calls of a fixed tier that need no human are
   * prepared here (goal/tool-calls/prepared-calls.ts); the others are
   * checked by the worker, in one recorded local activity for the turn. If the worker cannot
   * answer, its calls are answered as not checked instead of failing the goal.
   */
  async prepare(named: readonly NamedCall[]): Promise<PreparedCall[]> {
    const catalogue = this.state.tools?.catalogue ?? [];
    const toPrepare = callsToPrepare(named, catalogue);
    const { prepared, forWorker } = splitPreparation({
      calls: toPrepare,
      catalogue,
      approvalPolicy: this.state.config.approvalPolicy,
    });
    const calls = forWorker.map(({ callId, toolUse }) => ({
      callId,
      toolName: toolUse.name,
      input: toolUse.input,
    }));
    if (calls.length === 0) return prepared;
    try {
      const checked = await this.goal.visibility.duringLocalActivity(() =>
        this.goal.activities.preparation.prepareToolCalls.executeWithOptions(
          { summary: `check ${calls.length} tool call${calls.length === 1 ? '' : 's'}` },
          [{ calls, sandbox: { network: this.state.config.sandbox.network } }],
        ),
      );
      return [...prepared, ...checked];
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      const detail = describeFailure(error);
      return [
        ...prepared,
        ...calls.map((call): PreparedCall => ({
          ok: false,
          callId: call.callId,
          error: `${call.toolName} was not run: the worker could not check the call (${detail}).`,
          candidates: ['Try the call again in your next turn', 'Reach the goal with a different tool'],
        })),
      ];
    }
  }

  /** Asks for the turn's calls that need a human, unless a rule or a remembered denial answers (approvals.ts). */
  requestApprovals(turn: ToolCallRecord[]): void {
    this.approvals.requestApprovals(turn);
  }

  /** A human's decision; `rule` (given with it) is added, and decides the turn's other waiting calls. */
  decide(call: ToolCallRecord, decision: Omit<ApprovalDecision, 'decidedAt'>, rule?: RuleScope): void {
    this.approvals.decide(call, decision, rule);
  }

  /** After a rule was added: decides the turn's waiting calls it covers (automatic-decisions.ts). */
  applyRulesToWaiting(): void {
    this.automatic.applyRulesToWaiting();
  }

  /** The goal ends while calls still wait for a human: each is closed as not approved (approvals.ts). */
  closePendingApprovals(reason: string): void {
    this.approvals.closePendingApprovals(reason);
  }

  /** A decision signal that changed nothing, recorded as ignored (approvals.ts). */
  ignore(refusal: DecisionRefusal): void {
    this.approvals.ignore(refusal);
  }
}
