import * as wf from '@temporalio/workflow';
import type { KeelActivities } from '../../../activities';
type ExecuteToolInput = Parameters<KeelActivities['executeTool']>[0];
import { LOCAL_READ_MAX_TIMEOUT_MS, type ActivityProxies } from '../lifecycle/activity-proxies';
import { PARKED_HANDOVER_DELAY_MS } from '../lifecycle/history-limits';
import type { DecisionRefusal } from './approval-decision';
import {
  describeFailure,
  earlierAttemptOnAwayHost,
  isFailureOfType,
  outcomeUnknownDetailsOf,
} from '../lifecycle/failures';
import type { GoalHost } from '../host/binding';
import { FailureType } from '../../common/failure-types';
import type { GoalGuards } from '../oversight/guards';
import type { GoalPlanning, PlanningOutcome } from '../oversight/planning';
import { GoalPhase, type ApprovalDecision, type GoalState, type ToolCallRecord } from '../lifecycle/state';
import type { GoalVisibility } from '../views/visibility';
import { LedgerEventKind } from '../../common/ledger';
import { observeDenial, observeToolCall } from '../../principles/principles';
import { reportStepInputSchema } from '../../tools/report-step-spec';
import type { Escalation, ToolOutcome, WorkspaceEffects } from '../../tools/tool-outcome';
import { idempotencyKeyOf, type NamedCall } from './call-ids';
import { formatToolResult } from '../../tools/format-tool-result';
import { callText } from '../../tools/call-text';
import { isHarnessTool } from '../../tools/harness-tools';
import { catalogueEntry, type PreparedCall } from '../../tools/tool-catalogue';
import { callsToPrepare, isQuietForContinueAsNew, unknownOutcomeText } from './turn';
import { deniedCallContent } from './denied-call';
import { splitPreparation } from './prepared-calls';
import { autoDenial, rememberDenial, rememberedDenialFor, type RememberedDenial } from './remembered-denials';
import { deniedEffectPaths, holdForDeniedEffects } from './denied-effects-check';
import { intentText } from '../../principles/call-intent';
import type { GoalApprovalRules } from './approval-rules';
import { RuleEffect, RuleSource, type RuleScope } from '../../approvals/approval-rule';
import type { RuleVerdict } from '../../approvals/rule-book';
import { decisionByRule, namedRule } from '../../approvals/rule-decisions';
import { whyItWaits } from '../../approvals/why-it-waits';
import { approvedBeyondMutating } from '../../approvals/decision-tier';
import { heldAtOnceRefusal } from '../../approvals/held-at-once';
import { changeSetSummary } from '../../approvals/change-set-digest';
import { attemptsElsewhere, type EarlierAttempt } from '../../tools/earlier-attempts';
import { noteWrites } from '../../hosts/workspace-writes';

export interface ToolCallsHost {
  readonly state: GoalState;
  readonly activities: ActivityProxies;
  readonly workflowId: string;
  readonly planning: GoalPlanning;
  readonly guards: GoalGuards;
  readonly visibility: GoalVisibility;
  readonly host: GoalHost;
  readonly rules: GoalApprovalRules;
  priority(): { priorityKey: number };
  checkBudget(): unknown;
  /** Continues as new unless `stillValid` says no once the hand-over is ready (then returns). */
  continueAsNew(stillValid: () => boolean): Promise<void>;
  /** Whether the run's history is at keel's limits: hand over now (goal/lifecycle/history-limits.ts). */
  timeForNewRun(): boolean;
  /** Whether the run is long enough to hand a turn parked on humans over (goal/lifecycle/history-limits.ts). */
  timeToHandOverParkedTurn(): boolean;
}

/**
 * The tool calls of one turn, each in its own lane: wait for a human when the call needs one,
 * run it as an activity (irreversible calls at most once), and record what the harness learns
 * from it. Lanes run in parallel; the turn ends when every lane is done.
 */
export class GoalToolCalls {
  /** Set when a reported step failure used up every plan attempt; checked at the turn's end. */
  planningGaveUp: PlanningOutcome | undefined;
  /**
   * A local read found this run's worker is not the goal's host: later reads go to the host's
   * queue at once. Derived from recorded results only, so it replays the same.
   */
  private localReadsMissHost = false;

  constructor(private readonly goal: ToolCallsHost) {}

  private get state(): GoalState {
    return this.goal.state;
  }

  /** Runs every call of the turn in its own lane. */
  async run(turn: ToolCallRecord[]): Promise<void> {
    const lanes = Promise.all(turn.map((call) => this.runLane(call))).then(() => 'done' as const);
    // A wait for humans can be long, grow history (signals, updates, timers) and outlive the
    // goal's place in the worker's cache: once every lane waits on a human in a run that is long
    // enough, the waiting turn is carried over to a new, short run. The watcher lives in
    // its own scope so it is removed once it answered instead of piling up turn by turn.
    for (;;) {
      const watcher = new wf.CancellationScope();
      const canContinue = watcher.run(() => this.parkedLongEnough(turn));
      const first = await Promise.race([lanes, canContinue.then(() => 'continue' as const)]);
      watcher.cancel();
      canContinue.catch(() => undefined); // the cancellation of an unneeded watcher is expected
      if (first === 'done') return;
      // Handing over takes awaits, during which a decision may arrive and a lane move on: the
      // goal then checks again and, if the turn is no longer quiet, goes on in this run.
      await this.goal.continueAsNew(() => this.canContinueAsNewMidTurn(turn));
    }
  }

  /**
   * Resolves when the waiting turn should move to a new run: at once when the run is at its
   * limits; otherwise once it has stayed parked for PARKED_HANDOVER_DELAY_MS in a run long enough
   * to hand over. A human who answers within that time (a script, someone watching) never pays
   * for a hand-over; one who answers later finds the goal in a short run, and if the worker had
   * evicted it meanwhile, the timer's task, not the decision, paid for replaying the long run.
   */
  private async parkedLongEnough(turn: ToolCallRecord[]): Promise<void> {
    for (;;) {
      await wf.condition(() => this.canContinueAsNewMidTurn(turn));
      if (this.goal.timeForNewRun()) return;
      const moved = await wf.condition(
        () => !this.canContinueAsNewMidTurn(turn) || this.goal.timeForNewRun(),
        PARKED_HANDOVER_DELAY_MS,
      );
      if (!moved || this.goal.timeForNewRun()) return;
    }
  }

  private canContinueAsNewMidTurn(turn: ToolCallRecord[]): boolean {
    return this.goal.timeToHandOverParkedTurn() && isQuietForContinueAsNew(turn);
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

  requestApprovals(turn: ToolCallRecord[]): void {
    for (const call of turn) {
      holdForDeniedEffects(call, this.state, Date.now()); // a denial covers its effects through any tool (issue 44)
      if (call.approval) this.askOrRefuse(call);
      else if (call.status === 'ready') this.refuseIfForbidden(call);
    }
  }

  /**
   * A call that needs a human is asked for, unless something already answers it: a forbid rule
   * (refused now), a human's earlier denial of its intent with doNotAskAgain (refused now), or an
   * allow rule (approved now). Only goals with rules or remembered denials take those paths, so
   * older histories replay alike.
   */
  private askOrRefuse(call: ToolCallRecord): void {
    const verdict = this.goal.rules.verdictFor(call);
    if (verdict?.effect === RuleEffect.Forbid) return this.decideByRule(call, verdict);
    const remembered = rememberedDenialFor(this.state.rememberedDenials, call);
    if (remembered !== undefined) return this.refuseRemembered(call, remembered);
    if (verdict?.effect === RuleEffect.Allow) return this.decideByRule(call, verdict);
    this.recordApprovalRequest(call);
  }

  /**
   * A call that needs no human still never runs when a forbid rule covers it: "never run `rm *`"
   * means never, under `auto` too. It is given an approval record that is already a refusal, so
   * its lane closes it like any denial.
   */
  private refuseIfForbidden(call: ToolCallRecord): void {
    if (isHarnessTool(call.toolName)) return; // keel's own bookkeeping (report_step), not the model's act
    const verdict = this.goal.rules.verdictFor(call);
    if (verdict?.effect !== RuleEffect.Forbid) return;
    const nowMs = Date.now();
    call.status = 'awaiting-approval';
    call.approval = { requestedAt: new Date(nowMs).toISOString(), deadlineMs: nowMs };
    this.decideByRule(call, verdict);
  }

  /** A rule decided the call: recorded like a human's decision, naming the rule; nobody is asked. */
  private decideByRule(call: ToolCallRecord, verdict: RuleVerdict): void {
    if (!call.approval || call.approval.decision) return;
    const decision = decisionByRule(verdict, new Date().toISOString());
    call.approval.decision = decision;
    if (decision.approved) this.state.counters.approvalsByRule += 1;
    else this.state.counters.refusalsByRule += 1;
    this.goal.visibility.record(
      LedgerEventKind.ApprovalDecided,
      `${decision.approved ? 'approved' : 'refused'} by ${namedRule(verdict.rule)}: ${call.summary}`,
      {
        callId: call.callId,
        approved: decision.approved,
        approver: decision.approver,
        reason: decision.reason,
        via: 'rule',
        rule: decision.rule,
        reversibility: call.reversibility,
        call: callText(call.input),
      },
    );
  }

  /**
   * After a rule was added: the calls of this turn still waiting for a human that it (or any rule)
   * now decides are decided at once, like the ones that come later. Runs in Update handlers.
   */
  applyRulesToWaiting(): void {
    for (const call of this.state.currentTurn ?? []) {
      if (call.status !== 'awaiting-approval' || !call.approval || call.approval.decision) continue;
      const verdict = this.goal.rules.verdictFor(call);
      if (verdict !== undefined) this.decideByRule(call, verdict);
    }
    this.goal.visibility.show();
  }

  private refuseRemembered(call: ToolCallRecord, remembered: RememberedDenial): void {
    if (!call.approval || call.approval.decision) return;
    call.approval.decision = autoDenial(remembered, new Date().toISOString());
    this.state.counters.approvalsAutoDenied += 1;
    const intent = intentText(remembered.intent);
    this.goal.visibility.record(
      LedgerEventKind.ApprovalAutoDenied,
      `refused without asking (${remembered.decision.approver} denied ${intent} and asked not to be asked again): ${call.summary}`,
      {
        callId: call.callId,
        reversibility: call.reversibility,
        call: callText(call.input),
        intent: remembered.intent,
        intentText: intent,
        deniedEarlier: remembered.decision,
      },
    );
  }

  private recordApprovalRequest(call: ToolCallRecord): void {
    this.state.counters.approvalsRequested += 1;
    this.goal.visibility.record(LedgerEventKind.ApprovalRequested, `approval requested: ${call.summary}`, {
      callId: call.callId,
      reversibility: call.reversibility,
      call: callText(call.input),
      toolCallsSoFar: this.state.counters.toolCalls,
      whyItWaits: whyItWaits(call),
      ...(call.tierReason === undefined ? {} : { tierReason: call.tierReason }),
      ...(call.escalation === undefined
        ? {}
        : {
            escalated: true,
            ...(call.escalation.changes === undefined ? {} : changeSetSummary(call.escalation.changes)),
          }),
    });
  }

  private async runLane(call: ToolCallRecord): Promise<void> {
    if (call.status === 'done') return;
    if (call.status === 'awaiting-approval') {
      // Decided before anyone was asked (a remembered denial, a rule): nothing to wait for.
      const via = call.approval?.decision?.via;
      const decidedAlready =
        via === 'remembered-denial' || via === 'rule' ? call.approval?.decision : undefined;
      const decision = decidedAlready ?? (await this.awaitDecision(call));
      if (!decision.approved) {
        await this.closeDenied(call, decision);
        return;
      }
      call.status = 'ready';
    }
    if (isHarnessTool(call.toolName)) await this.runHarnessTool(call);
    else if (call.escalation?.changes !== undefined) await this.settleHeld(call, true);
    else await this.execute(call);
  }

  /** A denial (or a timeout): the call's result says so; changes it holds are discarded. */
  private async closeDenied(call: ToolCallRecord, decision: ApprovalDecision): Promise<void> {
    if (call.escalation?.changes !== undefined) await this.settleHeld(call, false);
    call.status = 'done';
    call.result = {
      content: deniedCallContent(decision, call, this.state.tools?.catalogue ?? []),
      isError: true,
    };
    observeDenial(this.state.principles, this.state.config.principles);
    this.goal.planning.observeDenial();
    if (call.escalation === undefined) return;
    this.afterCall(call, undefined, this.state.counters.toolCalls, { denied: true });
  }

  private async runHarnessTool(call: ToolCallRecord): Promise<void> {
    const input = reportStepInputSchema.parse(call.input);
    const report = await this.goal.planning.report(input);
    call.result = { content: report.result, isError: false };
    call.status = 'done';
    if (report.outcome.kind === 'give-up') this.planningGaveUp = report.outcome;
  }

  private async awaitDecision(call: ToolCallRecord): Promise<ApprovalDecision> {
    const approval = call.approval;
    if (!approval) throw new Error(`call ${call.callId} awaits approval without an approval record`);
    this.state.phase = GoalPhase.AwaitingApproval;
    this.goal.visibility.show();
    // At least 1 ms: a deadline that passed during a continue-as-new still times out at once,
    // and condition(fn, 0) would need an SDK patch marker in history.
    const remainingMs = Math.max(1, approval.deadlineMs - Date.now());
    const decided = await wf.condition(() => approval.decision !== undefined, remainingMs, {
      summary: `approval wait: ${call.summary}`,
    });
    if (!decided) {
      this.state.counters.approvalsTimedOut += 1;
      approval.decision = {
        approved: false,
        approver: 'keel',
        reason: 'approval timed out',
        decidedAt: new Date().toISOString(),
        via: 'timeout',
      };
      this.goal.visibility.record(LedgerEventKind.ApprovalTimedOut, `approval timed out: ${call.summary}`, {
        callId: call.callId,
      });
    }
    return approval.decision as ApprovalDecision;
  }

  /** A human's decision; `rule` (given with it) is added, and decides the turn's other waiting calls. */
  decide(call: ToolCallRecord, decision: Omit<ApprovalDecision, 'decidedAt'>, rule?: RuleScope): void {
    if (!call.approval || call.approval.decision) return;
    const recorded: ApprovalDecision = { ...decision, decidedAt: new Date().toISOString() };
    call.approval.decision = recorded;
    if (decision.approved) this.state.counters.approvalsGranted += 1;
    else this.state.counters.approvalsDenied += 1;
    if (decision.arrivedInPlainText === true) this.state.counters.decisionsInPlainText += 1;
    this.goal.visibility.record(
      LedgerEventKind.ApprovalDecided,
      `${decision.approved ? 'approved' : 'denied'} by ${decision.approver}: ${call.summary}`,
      {
        callId: call.callId,
        approved: decision.approved,
        approver: decision.approver,
        reason: decision.reason,
        via: decision.via,
        ...(decision.doNotAskAgain === true ? { doNotAskAgain: true } : {}),
        ...(decision.arrivedInPlainText === true ? { arrivedInPlainText: true } : {}),
        ...(rule === undefined ? {} : { rule }),
      },
    );
    if (!decision.approved && decision.doNotAskAgain === true) this.remember(call, recorded);
    if (rule !== undefined) this.addRuleOfDecision(call, recorded, rule);
    this.goal.visibility.show();
  }

  private addRuleOfDecision(call: ToolCallRecord, decision: ApprovalDecision, scope: RuleScope): void {
    const added = this.goal.rules.add({
      ...scope,
      effect: decision.approved ? RuleEffect.Allow : RuleEffect.Forbid,
      source: RuleSource.Decision,
      by: decision.approver,
      reason: decision.reason,
      fromCallId: call.callId,
      ...(this.state.config.approvalSignatures === undefined ? {} : { signed: true }),
    });
    // Full (MAX_RULES): the decision stands; the ledger says the rule was not kept.
    if (!added.ok) {
      this.goal.visibility.record(LedgerEventKind.ApprovalRuleNotApplied, `rule not added: ${added.error}`, {
        callId: call.callId,
        rule: scope,
      });
      return;
    }
    this.applyRulesToWaiting();
  }

  /**
   * Remembers a denial with doNotAskAgain, and refuses the calls of this turn still waiting with
   * the same intent: the human said not to be asked again, and they are the same question.
   * Runs in a signal or Update handler: deterministic state only.
   */
  private remember(call: ToolCallRecord, decision: ApprovalDecision): void {
    this.state.rememberedDenials = rememberDenial(this.state.rememberedDenials ?? [], call, decision);
    for (const other of this.state.currentTurn ?? []) {
      if (other === call || other.status !== 'awaiting-approval' || other.approval?.decision) continue;
      const remembered = rememberedDenialFor(this.state.rememberedDenials, other);
      if (remembered !== undefined) this.refuseRemembered(other, remembered);
    }
  }

  /**
   * The goal ends while calls still wait for a human (cancelled, failed): each is closed as not
   * approved, so nothing lists the goal as awaiting approval any more (KeelPendingApprovals 0).
   */
  closePendingApprovals(reason: string): void {
    for (const call of this.state.currentTurn ?? []) {
      const approval = call.approval;
      if (call.status !== 'awaiting-approval' || !approval || approval.decision) continue;
      approval.decision = {
        approved: false,
        approver: 'keel',
        reason,
        decidedAt: new Date().toISOString(),
        via: 'cancellation',
      };
      this.goal.visibility.record(LedgerEventKind.ApprovalDecided, `closed unapproved: ${call.summary}`, {
        callId: call.callId,
        approved: false,
        approver: 'keel',
        reason,
        via: 'cancellation',
      });
    }
  }

  /**
   * A signal that changed nothing: the sender saw "succeeded", so the ledger, the status and the
   * Web UI say what happened to it instead. Runs in a signal handler: deterministic state only.
   */
  ignore(refusal: DecisionRefusal): void {
    const at = new Date().toISOString();
    this.state.counters.approvalsIgnored += 1;
    this.state.lastIgnoredDecision = { at, ...refusal };
    const by = refusal.approver === undefined ? '' : ` from ${refusal.approver}`;
    this.goal.visibility.record(
      LedgerEventKind.ApprovalIgnored,
      `ignored decision${by}: ${refusal.message}`,
      { ...refusal },
    );
    this.goal.visibility.show();
  }

  private async execute(call: ToolCallRecord): Promise<void> {
    if (call.reversibility !== 'read-only') await this.goal.planning.beforeMutatingCall();
    this.state.phase = GoalPhase.RunningTools;
    call.status = 'running';
    const counters = this.state.counters;
    // A call that ran once already and asked for a human (escalation) is still one call.
    if (call.escalation === undefined) {
      counters.toolCalls += 1;
      counters.toolCallsByTool[call.toolName] = (counters.toolCallsByTool[call.toolName] ?? 0) + 1;
      counters.toolCallsByReversibility[call.reversibility] += 1;
    }
    const atToolCall = counters.toolCalls;
    this.goal.visibility.show();
    const entry = catalogueEntry(this.state.tools?.catalogue ?? [], call.toolName);
    const input = {
      toolName: call.toolName,
      input: call.input,
      workspace: this.goal.host.workspace,
      callId: call.callId,
      // Stable across retries, replays and continue-as-new: the tool can refuse a repeat.
      idempotencyKey: this.idempotencyKey(call),
      reversibility: call.reversibility,
      approved: approvedBeyondMutating(call), // a decision covers its own tier only
      sandbox: { network: this.state.config.sandbox.network },
      // a command's text need not name what it changes: its layer checks its changes (issue 44)
      ...(call.toolName === 'run_command' ? this.deniedEffectsInput() : {}),
    };
    let outcome: ToolOutcome | undefined;
    try {
      outcome = await this.runCall(call, entry, input);
      if (outcome.escalation !== undefined && !input.approved) {
        const crowded = heldAtOnceRefusal(this.heldListsThisTurn(call), outcome.escalation.held?.changes);
        if (crowded === undefined) {
          this.escalate(call, outcome, outcome.escalation);
          await this.runLane(call);
          return;
        }
        // Too much already waits for approvers to see it all: discarded, like a denied layer.
        await this.settleHeld(call, false);
        outcome = undefined;
        call.result = { content: crowded, isError: true };
      } else this.recordResult(call, outcome);
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      call.result = this.failedCallResult(call, error);
    }
    call.status = 'done';
    this.afterCall(call, outcome, atToolCall);
  }

  /**
   * The change lists this turn's other calls hold (held-at-once.ts): waiting for a human or
   * settled, each stays in the goal's state until the turn ends.
   */
  private heldListsThisTurn(call: ToolCallRecord): WorkspaceEffects[] {
    return (this.state.currentTurn ?? []).flatMap((other) =>
      other.callId !== call.callId && other.escalation?.changes !== undefined
        ? [other.escalation.changes]
        : [],
    );
  }

  /** The paths a human's denials cover, for a command's layer; absent when none (older inputs alike). */
  private deniedEffectsInput(): { deniedEffects?: string[] } {
    const paths = deniedEffectPaths(this.state);
    return paths.length === 0 ? {} : { deniedEffects: paths };
  }

  /** Stable for every attempt of this call; see idempotencyKeyOf. */
  private idempotencyKey(call: ToolCallRecord): string {
    return idempotencyKeyOf({
      workflowId: this.goal.workflowId,
      firstRunId: wf.workflowInfo().firstExecutionRunId,
      callId: call.callId,
    });
  }

  private recordResult(call: ToolCallRecord, outcome: ToolOutcome): void {
    const counters = this.state.counters;
    const shown = this.state.config.principles.actionableFailure ? outcome : { ...outcome, candidates: [] };
    // A call a rule approved says so in its result, as the ledger and the details do: the model
    // and whoever reads the transcript see that nobody was asked, and which rule answered.
    const decision = call.approval?.decision;
    const byRule = decision?.via === 'rule' && decision.approved ? `(${decision.reason})\n` : '';
    call.result = {
      content: `${byRule}${formatToolResult(shown)}`,
      isError: !outcome.ok,
      ...(outcome.images === undefined ? {} : { images: outcome.images }),
      ...(outcome.documents === undefined ? {} : { documents: outcome.documents }),
      ...(outcome.host === undefined ? {} : { host: outcome.host }),
      ...(outcome.instance === undefined ? {} : { instance: outcome.instance }),
    };
    this.state.workspaceWrites = noteWrites(this.state.workspaceWrites, {
      summary: call.summary,
      readOnly: call.reversibility === 'read-only',
      ok: outcome.ok,
      effects: outcome.effects,
    });
    if (outcome.host !== undefined) {
      const byHost = counters.toolCallsByHost;
      byHost[outcome.host] = (byHost[outcome.host] ?? 0) + 1;
    }
    if (outcome.instance !== undefined) this.recordInstance(call, outcome.instance, outcome.host);
  }

  /**
   * Counts the call for the worker process that ran it, and records in the ledger when that is
   * another process than the one that ran the goal's previous call: one event per change, not
   * per call, keeps a long goal's bounded ledger for its decisions, and still says for every
   * call which instance ran it. Two machines serving one host id alternate here at once.
   */
  private recordInstance(call: ToolCallRecord, instance: string, host: string | undefined): void {
    const byInstance = this.state.counters.toolCallsByInstance;
    byInstance[instance] = (byInstance[instance] ?? 0) + 1;
    const previous = this.state.lastToolInstance;
    if (previous?.instance === instance) return;
    this.state.lastToolInstance = { ...(host === undefined ? {} : { host }), instance };
    const on = host === undefined ? `instance ${instance}` : `host ${host} instance ${instance}`;
    this.goal.visibility.record(
      LedgerEventKind.ToolInstance,
      previous === undefined
        ? `tool calls run on ${on}`
        : `tool calls now run on ${on} (before: instance ${previous.instance})`,
      {
        callId: call.callId,
        toolName: call.toolName,
        ...(host === undefined ? {} : { host }),
        instance,
        ...(previous === undefined ? {} : { previousInstance: previous.instance }),
      },
    );
  }

  /**
   * The worker found the call needs a human after all (its changes went beyond its tier, or no
   * sandbox holds it there): it waits for an approval like an irreversible call, with the reason
   * and the changes it holds for the approver to see. Nothing of it reached the workspace.
   */
  private escalate(call: ToolCallRecord, outcome: ToolOutcome, escalation: Escalation): void {
    const nowMs = Date.now();
    call.reversibility = 'irreversible';
    call.tierReason = escalation.reason;
    call.escalation = {
      reason: escalation.reason,
      content: formatToolResult(outcome),
      ...(escalation.held === undefined ? {} : { changes: escalation.held.changes }),
    };
    call.status = 'awaiting-approval';
    call.approval = {
      requestedAt: new Date(nowMs).toISOString(),
      deadlineMs: nowMs + this.state.config.limits.approvalTimeoutMs,
    };
    this.askOrRefuse(call);
  }

  /** Applies (approved) or discards (denied) the changes a call's layer holds, on the workspace's host. */
  private async settleHeld(call: ToolCallRecord, keep: boolean): Promise<void> {
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
              priority: this.goal.priority(),
            },
            [
              {
                workspace: this.goal.host.workspace,
                idempotencyKey: this.idempotencyKey(call),
                keep,
                ...(this.goal.host.id === undefined ? {} : { host: this.goal.host.id }),
              },
            ],
          ),
      );
      outcome = settled ?? undefined;
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      if (keep) call.result = this.failedCallResult(call, error);
    }
    if (!keep) return; // closeDenied writes the result
    if (outcome !== undefined) this.recordResult(call, outcome);
    call.status = 'done';
    this.afterCall(call, outcome, atToolCall);
  }

  /**
   * A quick read runs locally when this worker is the goal's host (the activity checks and says
   * WrongHost otherwise); every other call goes to the host's queue, and waits there while the
   * host is away (goal/host/binding.ts).
   */
  private async runCall(
    call: ToolCallRecord,
    entry: ReturnType<typeof catalogueEntry>,
    input: ExecuteToolInput,
  ): Promise<ToolOutcome> {
    const timeoutMs = entry?.timeoutMs;
    if (this.runsLocally(call, entry)) {
      try {
        return await this.goal.visibility.duringLocalActivity(() =>
          this.goal.activities
            .toolsWithTimeout(timeoutMs)
            .localReads.executeTool.executeWithOptions({ summary: call.summary }, [this.onHost(input)]),
        );
      } catch (error) {
        if (!isFailureOfType(error, FailureType.WrongHost)) throw error;
        this.localReadsMissHost = true;
      }
    }
    const irreversible = call.reversibility === 'irreversible';
    // Attempts on hosts the goal left: the host it moved to is told, and its journal decides
    // whether the call may run there (earlier-attempts.ts), as it does after a crash.
    const earlier: EarlierAttempt[] = [];
    return this.goal.host.run(
      (hostQueue) => {
        const proxies = this.goal.activities.toolsWithTimeout(timeoutMs, hostQueue);
        const tools = irreversible ? proxies.onceOnlyTools : proxies.tools;
        const elsewhere = attemptsElsewhere(earlier, this.goal.host.id);
        const onHost = this.onHost(input);
        return tools.executeTool.executeWithOptions(
          { summary: call.summary, priority: this.goal.priority() },
          [elsewhere.length === 0 ? onHost : { ...onHost, earlierAttempts: elsewhere }],
        );
      },
      (host, error) => {
        if (irreversible) earlier.push(earlierAttemptOnAwayHost(host, error));
      },
    );
  }

  /** The call's input naming the goal's host and its path there as they are now (a rebind moves them between attempts). */
  private onHost(input: ExecuteToolInput): ExecuteToolInput {
    const host = this.goal.host.id;
    // The workspace's path too: a move between hosts with different roots maps it.
    return host === undefined ? input : { ...input, host, workspace: this.goal.host.workspace };
  }

  /** Quick read-only calls run as local activities (see goal/lifecycle/activity-proxies.ts, localReads). */
  private runsLocally(call: ToolCallRecord, entry: ReturnType<typeof catalogueEntry>): boolean {
    if (this.localReadsMissHost) return false;
    if (call.reversibility !== 'read-only' || entry?.tier.kind !== 'fixed') return false;
    return (entry.timeoutMs ?? 0) <= LOCAL_READ_MAX_TIMEOUT_MS;
  }

  /**
   * Principles 1 and 3, planning and assessment bookkeeping after one call. A denial is no
   * failure (issue 44): a denied call still counts as a call for the guards and the budget, but
   * not against the tool's success record, the cadence or the plan step's failures in a row
   * (observeDenial already tightened the cadence and marked the step).
   */
  private afterCall(
    call: ToolCallRecord,
    outcome: ToolOutcome | undefined,
    atToolCall: number,
    { denied }: { denied: boolean } = { denied: false },
  ): void {
    const ok = outcome?.ok ?? false;
    if (!denied) {
      const stats = (this.state.assessment.toolStats[call.toolName] ??= { calls: 0, successes: 0 });
      stats.calls += 1;
      if (ok) stats.successes += 1;
    }
    if (ok && call.reversibility !== 'read-only')
      this.state.assessment.lastProgressCycle = this.state.counters.modelTurns;
    const observed = observeToolCall(this.state.principles, this.state.config.principles, {
      input: call.input,
      reversibility: call.reversibility,
      summary: call.summary,
      outcome: outcome ?? { ok: false, content: call.result?.content ?? '', candidates: [], facts: {} },
      denied,
    });
    if (observed.prompt) {
      this.state.notes.push(observed.prompt);
      this.goal.visibility.record(
        LedgerEventKind.HypothesisMismatch,
        `hypothesis mismatch: ${call.summary}`,
        {
          callId: call.callId,
          reason: observed.mismatchReason,
        },
      );
    }
    if (!denied) this.goal.planning.observeCall(ok, observed.prompt !== undefined);
    this.goal.guards.observeCall(call, outcome, atToolCall, observed.prompt !== undefined);
    this.goal.checkBudget(); // warnings ride on this turn's results; exhaustion ends the goal at the turn's end
  }

  private failedCallResult(call: ToolCallRecord, error: unknown): NonNullable<ToolCallRecord['result']> {
    const detail = describeFailure(error);
    if (call.reversibility === 'irreversible') {
      this.state.counters.unknownOutcomes += 1;
      const journal = outcomeUnknownDetailsOf(error);
      this.goal.visibility.record(LedgerEventKind.ToolOutcomeUnknown, `outcome unknown: ${call.summary}`, {
        callId: call.callId,
        toolName: call.toolName,
        // true: the journal shows it began; 'unknown': no journal could say (see goal/lifecycle/activity-proxies.ts)
        began: journal?.began ?? 'unknown',
        ...(journal?.startedAt === undefined ? {} : { startedAt: journal.startedAt }),
        reason: detail,
      });
      return { content: unknownOutcomeText(call.summary, detail), isError: true, unknownOutcome: true };
    }
    return { content: `The tool could not run: ${detail}.`, isError: true };
  }
}
