import * as wf from '@temporalio/workflow';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { z } from 'zod';
import { proxiesFor, type ActivityProxies } from './activity-proxies';
import { DEFAULT_PRIORITY, temporalPriorityKey } from './assessment';
import { FailureType } from './failure-types';
import type { StructuredAnswer } from './goal-context';
import { GoalAssessment } from './goal-assessment';
import { renderGoalDetails } from './goal-details';
import { parseGoalInput, type GoalConfig, type GoalInput } from './goal-input';
import { GoalPlanning, type PlanningOutcome } from './goal-planning';
import { GoalReflection, type Review } from './goal-reflection';
import {
  emptyCounters,
  emptyUsage,
  GOAL_STATE_SCHEMA_VERSION,
  GoalPhase,
  GoalStatus,
  loadGoalState,
  type ApprovalDecision,
  type GoalState,
  type ToolCallRecord,
} from './goal-state';
import { detailsInput, goalCost, goalStats, searchAttributeValuesOf, statusView } from './goal-view';
import { appendEvent, emptyLedger, eventsAfter, LedgerEventKind } from './ledger';
import {
  approvalSignalPayloadSchema,
  approvalUpdatePayloadSchema,
  approveSignal,
  assessNowSignal,
  decideApprovalUpdate,
  denySignal,
  DESCRIPTIONS,
  goalStatusQuery,
  ledgerQuery,
  planQuery,
  reviewPayloadSchema,
  submitReviewUpdate,
  userMessagePayloadSchema,
  userMessageSignal,
  type GoalStats,
} from './messages';
import type { ModelCallResult } from './model-call';
import {
  checkBudget,
  checkpointAfterTurn,
  initialPrinciplesState,
  judgeReplyAfterCheckpoint,
  observeDenial,
  observeToolCall,
  resolveCadence,
  startTask,
  takeMetaNote,
} from './principles';
import { followUpMessage, goalMessage, systemPrompt } from './prompts';
import { unexecutedToolCallNote } from './reflection-response';
import {
  changedSearchAttributes,
  searchAttributeValuesFrom,
  type SearchAttributeValues,
} from './search-attribute-values';
import { parseStructuredOutput } from './structured-output';
import { reportStepInputSchema } from './tools/report-step-spec';
import { formatToolResult, isHarnessTool } from './tools/tool-registry';
import type { ToolOutcome } from './tools/tool-outcome';
import { appendUserBlocks, textOf, toolUsesOf, userText, type TranscriptMessage } from './transcript';
import {
  checkDecision,
  denialText,
  offeredTools,
  planTurn,
  toolResultBlocks,
  unknownOutcomeText,
  wasCutByLimit,
} from './turn';

export interface GoalResult {
  status: GoalStatus;
  reason?: string;
  finalText?: string;
  counters: GoalState['counters'];
  usage: GoalState['usage'];
  tasks: number;
  stats: GoalStats;
  planAttempt?: number;
  reflection?: string;
}

/**
 * One goal, pursued by a ReAct loop: model turn → tool calls (in parallel, each possibly waiting
 * for a human) → results back to the model, until a final answer or a limit. All bookkeeping is
 * in `state`; every side effect is an activity, so a crashed worker or a restarted server loses
 * nothing. `carried` is the state handed over by continue-as-new.
 */
export async function goalWorkflow(input: GoalInput, carried?: unknown): Promise<GoalResult> {
  const goal = new GoalRun(carried === undefined ? newGoalState(input) : resumeGoalState(carried));
  goal.registerHandlers();
  try {
    return await goal.run();
  } catch (error) {
    if (wf.isCancellation(error)) {
      return wf.CancellationScope.nonCancellable(() =>
        goal.finish(GoalStatus.Cancelled, 'cancelled by request'),
      );
    }
    throw error;
  }
}

function newGoalState(input: GoalInput): GoalState {
  const parsed = parseGoalInput(input);
  if (!parsed.ok) throw ApplicationFailure.nonRetryable(parsed.message, FailureType.InvalidGoalInput);
  const config = parsed.config;
  const now = Date.now(); // the workflow clock: deterministic on replay
  return {
    schemaVersion: GOAL_STATE_SCHEMA_VERSION,
    config,
    status: GoalStatus.Running,
    phase: GoalPhase.Thinking,
    transcript: [],
    tasks: [{ index: 0, text: config.goal, startedAt: new Date(now).toISOString(), startedAtTurn: 0 }],
    counters: emptyCounters(),
    usage: emptyUsage(),
    inbox: [],
    notes: [],
    startedAtMs: now,
    continuedAsNew: 0,
    // Filled from the worker on the first run (see prepare); a placeholder until then.
    workerDefaults: { ledgerSinks: false },
    principles: initialPrinciplesState(0),
    ledger: emptyLedger(),
    ledgerPublishedThrough: 0,
    planning: {
      failedToolCalls: [],
      failures: [],
      step: { consecutiveFailedCalls: 0, hypothesisMismatches: 0, approvalDenied: false },
    },
    assessment: {
      priority: DEFAULT_PRIORITY,
      count: 0,
      lastAssessmentCycle: 0,
      toolStats: {},
      requested: false,
      consolidations: 0,
    },
    reflection: { notesApplied: false },
    structured: { calls: 0, rawFallbacks: 0 },
  };
}

function resumeGoalState(carried: unknown): GoalState {
  const loaded = loadGoalState(carried);
  if (!loaded.ok) throw ApplicationFailure.nonRetryable(loaded.message, FailureType.InvalidGoalState);
  return loaded.state;
}

class GoalRun {
  private readonly activities: ActivityProxies;
  private readonly workflowId = wf.workflowInfo().workflowId;
  private readonly planning: GoalPlanning;
  private readonly assessment: GoalAssessment;
  private readonly reflection: GoalReflection;
  private publishing: Promise<unknown> = Promise.resolve();
  private published: Partial<SearchAttributeValues>;
  private awaitingReview = false;
  /** Set when a reported step failure used up every plan attempt; checked at the turn's end. */
  private planningGaveUp: PlanningOutcome | undefined;

  constructor(private readonly state: GoalState) {
    this.activities = proxiesFor(state.config);
    const context = {
      state,
      activities: this.activities,
      workflowId: this.workflowId,
      record: (kind: LedgerEventKind, summary: string, data: Record<string, unknown> = {}) =>
        this.record(kind, summary, data),
      note: (text: string) => state.notes.push(text),
      structured: this.structured.bind(this),
    };
    this.planning = new GoalPlanning(context);
    this.assessment = new GoalAssessment(context);
    this.reflection = new GoalReflection(context, () => this.awaitHumanReview());
    // Search attributes survive continue-as-new; start from what the run already carries.
    this.published = searchAttributeValuesFrom(wf.workflowInfo().typedSearchAttributes);
  }

  private get config(): GoalConfig {
    return this.state.config;
  }

  registerHandlers(): void {
    const decideBySignal = (approved: boolean) => (raw: unknown) => {
      const payload = approvalSignalPayloadSchema.safeParse(raw);
      if (!payload.success) {
        wf.log.warn('ignored malformed approval signal', { error: payload.error.message });
        return;
      }
      const check = checkDecision(this.state.currentTurn, payload.data.callId);
      if (!check.ok) {
        wf.log.warn('ignored approval signal', { reason: check.message });
        return;
      }
      this.decide(check.call, { approved, ...payload.data, via: 'signal' });
    };
    wf.setHandler(approveSignal, decideBySignal(true), { description: DESCRIPTIONS.approve });
    wf.setHandler(denySignal, decideBySignal(false), { description: DESCRIPTIONS.deny });
    wf.setHandler(
      decideApprovalUpdate,
      (raw) => {
        const payload = approvalUpdatePayloadSchema.parse(raw);
        const check = checkDecision(this.state.currentTurn, payload.callId);
        if (!check.ok) throw ApplicationFailure.nonRetryable(check.message, 'ApprovalRejected');
        this.decide(check.call, { ...payload, via: 'update' });
        return { callId: check.call.callId, approved: payload.approved, toolSummary: check.call.summary };
      },
      {
        description: DESCRIPTIONS.decideApproval,
        // The validator runs before anything is written to history: an unknown or already
        // decided call id is refused and the caller learns at once.
        validator: (raw) => {
          const payload = approvalUpdatePayloadSchema.safeParse(raw);
          if (!payload.success)
            throw new Error(`invalid decision: ${payload.error.issues[0]?.message ?? ''}`);
          const check = checkDecision(this.state.currentTurn, payload.data.callId);
          if (!check.ok) throw new Error(check.message);
        },
      },
    );
    wf.setHandler(
      userMessageSignal,
      (raw) => {
        const payload = userMessagePayloadSchema.safeParse(raw);
        if (payload.success) this.state.inbox.push(payload.data.text);
        else wf.log.warn('ignored malformed user message', { error: payload.error.message });
      },
      { description: DESCRIPTIONS.userMessage },
    );
    wf.setHandler(
      assessNowSignal,
      () => {
        this.state.assessment.requested = true;
      },
      { description: DESCRIPTIONS.assessNow },
    );
    wf.setHandler(
      submitReviewUpdate,
      (raw) => {
        const review = reviewPayloadSchema.parse(raw);
        this.state.reflection.review = {
          accepted: review.accepted,
          by: review.reviewer,
          notes: review.notes,
        };
        return { accepted: review.accepted };
      },
      {
        description: DESCRIPTIONS.submitReview,
        validator: (raw) => {
          const parsed = reviewPayloadSchema.safeParse(raw);
          if (!parsed.success) throw new Error(`invalid review: ${parsed.error.issues[0]?.message ?? ''}`);
          if (!this.awaitingReview) throw new Error('this goal is not waiting for a review');
        },
      },
    );
    wf.setHandler(
      goalStatusQuery,
      () => statusView(this.state, { nowMs: Date.now(), awaitingReview: this.awaitingReview }),
      { description: DESCRIPTIONS.status },
    );
    wf.setHandler(planQuery, () => this.state.planning.plan, { description: DESCRIPTIONS.plan });
    wf.setHandler(ledgerQuery, (options) => eventsAfter(this.state.ledger, options?.afterSequence ?? 0), {
      description: DESCRIPTIONS.ledger,
    });
  }

  async run(): Promise<GoalResult> {
    if (this.state.transcript.length === 0) {
      const failure = await this.prepare();
      if (failure) return this.finish(GoalStatus.Failed, failure);
    }
    for (;;) {
      this.show();
      if (this.state.currentTurn) {
        const ended = await this.finishTurn(this.state.currentTurn);
        if (ended) return ended;
      }
      this.takeFollowUps();
      await this.continueAsNewIfSuggested();
      if (this.state.counters.modelTurns >= this.config.limits.maxTurns) {
        return this.finish(GoalStatus.Limit, `model turn limit of ${this.config.limits.maxTurns} reached`);
      }
      if (this.assessment.due()) await this.assessment.run();
      const reply = await this.modelTurn();
      const exhausted = await this.budgetExhausted();
      if (exhausted) return exhausted;
      const toolUses = toolUsesOf(reply);
      const judgement = judgeReplyAfterCheckpoint(
        this.state.principles,
        this.config.principles,
        textOf(reply),
      );
      if (judgement.addressed !== undefined) {
        this.record(
          LedgerEventKind.ReflectionAnswered,
          `checkpoint ${judgement.addressed ? 'answered' : 'not answered'}`,
          {
            addressed: judgement.addressed,
          },
        );
      }
      if (toolUses.length > 0) {
        this.state.currentTurn = judgement.holdToolCalls
          ? toolUses.map((toolUse) => heldBack(toolUse.id, toolUse.name, toolUse.input))
          : planTurn({
              toolUses,
              config: this.config,
              toolCallsSoFar: this.state.counters.toolCalls,
              nowMs: Date.now(),
            });
        this.requestApprovals(this.state.currentTurn);
        continue;
      }
      this.state.finalText = textOf(reply);
      if (await this.awaitFollowUp()) continue;
      if (this.config.reflection.enabled) {
        this.state.phase = GoalPhase.Reviewing;
        this.show();
        await this.reflection.afterFinalAnswer(this.state.finalText);
      }
      return this.finish(GoalStatus.Completed, 'final answer given');
    }
  }

  /** First run only: worker defaults, improvement notes from earlier runs, the first plan. */
  private async prepare(): Promise<string | undefined> {
    const defaults = await this.activities.support.workerDefaults();
    this.state.workerDefaults = defaults;
    this.state.principles = initialPrinciplesState(
      resolveCadence(this.config.principles, defaults.reflectionCadence),
    );
    const withNotes = this.config.reflection.enabled ? await this.reflection.openingMessage() : undefined;
    this.state.transcript = [userText(withNotes ?? goalMessage(this.config))];
    this.record(LedgerEventKind.GoalStarted, `goal started: ${this.config.goal}`, {
      cadence: this.state.principles.cadence.base,
      notesApplied: this.state.reflection.notesApplied,
    });
    if (!this.config.planning.enabled) return undefined;
    this.state.phase = GoalPhase.Planning;
    this.show();
    const outcome = await this.planning.start();
    return outcome.kind === 'give-up' ? outcome.reason : undefined;
  }

  private async modelTurn(): Promise<TranscriptMessage> {
    this.state.phase = GoalPhase.Thinking;
    this.giveNotes();
    this.show();
    const turn = this.state.counters.modelTurns + 1;
    const planContext = this.planning.planContext();
    let result: ModelCallResult;
    try {
      result = await this.activities.model.callModel.executeWithOptions(
        { summary: `model turn ${turn}`, priority: this.priority() },
        [
          {
            model: this.config.model,
            system: planContext
              ? `${systemPrompt(this.config)}\n\n${planContext}`
              : systemPrompt(this.config),
            messages: this.state.transcript,
            toolNames: offeredTools(this.config),
            goalId: this.workflowId,
            turn,
          },
        ],
      );
    } catch (error) {
      throw modelFailure(error);
    }
    this.state.counters.modelTurns = turn;
    this.state.lastModel = result.model;
    this.addUsage(result.usage);
    const reply: TranscriptMessage = { role: 'assistant', content: result.content };
    this.state.transcript.push(reply);
    return reply;
  }

  /** A structured answer (plan, belief, review, reflection), counted for the raw-fallback rate. */
  private async structured<Schema extends z.ZodType>(options: {
    purpose: string;
    prompt: string;
    toolName: string;
    description: string;
    schema: Schema;
    model?: string;
    fallbackKind?: string;
  }): Promise<StructuredAnswer<z.output<Schema>>> {
    const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(options.schema, { io: 'input' });
    let result;
    try {
      result = await this.activities.model.callStructured.executeWithOptions(
        { summary: options.purpose, priority: this.priority() },
        [
          {
            model: { ...this.config.model, ...(options.model ? { name: options.model } : {}) },
            system: 'You answer with structured data through the tool you are given.',
            prompt: options.prompt,
            output: { toolName: options.toolName, description: options.description, jsonSchema },
            goalId: this.workflowId,
            purpose: options.purpose,
          },
        ],
      );
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      return { ok: false, error: describeFailure(error) };
    }
    this.addUsage(result.usage);
    const parsed = parseStructuredOutput({
      raw: result.raw,
      schema: options.schema,
      ...(options.fallbackKind
        ? { fallbackKind: options.fallbackKind, allowedKinds: [options.fallbackKind] }
        : {}),
    });
    this.state.structured.calls += 1;
    if (parsed.rawFallback) this.state.structured.rawFallbacks += 1;
    return parsed.ok
      ? { ok: true, value: parsed.value, rawFallback: parsed.rawFallback }
      : { ok: false, error: parsed.error };
  }

  /** Runs the turn's calls, then gives the results (and any notes) back; a result ends the goal. */
  private async finishTurn(turn: ToolCallRecord[]): Promise<GoalResult | undefined> {
    await this.runToolCalls(turn);
    const results = toolResultBlocks(turn);
    const metaNote = takeMetaNote(this.state.principles);
    const last = results[results.length - 1];
    if (metaNote && last) last.content = `${last.content}\n${metaNote}`;
    this.state.transcript = appendUserBlocks(this.state.transcript, results);
    this.state.currentTurn = undefined;
    if (turn.some(wasCutByLimit)) {
      return this.finish(GoalStatus.Limit, `tool-call limit of ${this.config.limits.maxToolCalls} reached`);
    }
    const exhausted = await this.budgetExhausted();
    if (exhausted) return exhausted;
    if (this.planningGaveUp?.kind === 'give-up')
      return this.finish(GoalStatus.Failed, this.planningGaveUp.reason);
    if (turn.some((call) => !isHarnessTool(call.toolName) && call.status === 'done')) this.checkpoint();
    const planning = await this.planning.checkStep();
    if (planning.kind === 'give-up') return this.finish(GoalStatus.Failed, planning.reason);
    return undefined;
  }

  /** Runs every call of the turn in its own lane. */
  private async runToolCalls(turn: ToolCallRecord[]): Promise<void> {
    const lanes = Promise.all(turn.map((call) => this.runLane(call)));
    // A wait for humans can be long and still grow history (signals, updates, timers); when
    // Temporal suggests it, the waiting turn is carried over to a new run. The watcher lives in
    // its own scope so it is removed once the turn is over instead of piling up turn by turn.
    const watcher = new wf.CancellationScope();
    const canContinue = watcher.run(() => wf.condition(() => this.canContinueAsNewMidTurn(turn)));
    const first = await Promise.race([
      lanes.then(() => 'done' as const),
      canContinue.then(() => 'continue' as const),
    ]);
    if (first === 'continue') await this.continueAsNew();
    watcher.cancel();
    canContinue.catch(() => undefined); // the cancellation of an unneeded watcher is expected
  }

  private canContinueAsNewMidTurn(turn: ToolCallRecord[]): boolean {
    return (
      wf.workflowInfo().continueAsNewSuggested &&
      !turn.some((call) => call.status === 'running' || call.status === 'ready') &&
      turn.some((call) => call.status === 'awaiting-approval')
    );
  }

  private requestApprovals(turn: ToolCallRecord[]): void {
    for (const call of turn) {
      if (!call.approval) continue;
      this.state.counters.approvalsRequested += 1;
      this.record(LedgerEventKind.ApprovalRequested, `approval requested: ${call.summary}`, {
        callId: call.callId,
        reversibility: call.reversibility,
      });
    }
  }

  private async runLane(call: ToolCallRecord): Promise<void> {
    if (call.status === 'done') return;
    if (call.status === 'awaiting-approval') {
      const decision = await this.awaitDecision(call);
      if (!decision.approved) {
        call.status = 'done';
        call.result = { content: denialText(decision), isError: true };
        observeDenial(this.state.principles, this.config.principles);
        this.planning.observeDenial();
        return;
      }
      call.status = 'ready';
    }
    if (isHarnessTool(call.toolName)) await this.runHarnessTool(call);
    else await this.execute(call);
  }

  private async runHarnessTool(call: ToolCallRecord): Promise<void> {
    const input = reportStepInputSchema.parse(call.input);
    const report = await this.planning.report(input);
    call.result = { content: report.result, isError: false };
    call.status = 'done';
    if (report.outcome.kind === 'give-up') this.planningGaveUp = report.outcome;
  }

  private async awaitDecision(call: ToolCallRecord): Promise<ApprovalDecision> {
    const approval = call.approval;
    if (!approval) throw new Error(`call ${call.callId} awaits approval without an approval record`);
    this.state.phase = GoalPhase.AwaitingApproval;
    this.show();
    const remainingMs = Math.max(0, approval.deadlineMs - Date.now());
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
      this.record(LedgerEventKind.ApprovalTimedOut, `approval timed out: ${call.summary}`, {
        callId: call.callId,
      });
    }
    return approval.decision as ApprovalDecision;
  }

  private decide(call: ToolCallRecord, decision: Omit<ApprovalDecision, 'decidedAt'>): void {
    if (!call.approval) return;
    call.approval.decision = { ...decision, decidedAt: new Date().toISOString() };
    if (decision.approved) this.state.counters.approvalsGranted += 1;
    else this.state.counters.approvalsDenied += 1;
    this.record(
      LedgerEventKind.ApprovalDecided,
      `${decision.approved ? 'approved' : 'denied'} by ${decision.approver}: ${call.summary}`,
      {
        callId: call.callId,
        approved: decision.approved,
        approver: decision.approver,
        reason: decision.reason,
        via: decision.via,
      },
    );
    this.show();
  }

  private async execute(call: ToolCallRecord): Promise<void> {
    if (call.reversibility !== 'read-only') await this.planning.beforeMutatingCall();
    this.state.phase = GoalPhase.RunningTools;
    call.status = 'running';
    const counters = this.state.counters;
    counters.toolCalls += 1;
    counters.toolCallsByTool[call.toolName] = (counters.toolCallsByTool[call.toolName] ?? 0) + 1;
    counters.toolCallsByReversibility[call.reversibility] += 1;
    this.show();
    const tools =
      call.reversibility === 'irreversible' ? this.activities.onceOnlyTools : this.activities.tools;
    let outcome: ToolOutcome | undefined;
    try {
      outcome = await tools.executeTool.executeWithOptions(
        { summary: call.summary, priority: this.priority() },
        [
          {
            toolName: call.toolName,
            input: call.input,
            workspace: this.config.workspace,
            callId: call.callId,
            // Stable across retries, replays and continue-as-new: the tool can refuse a repeat.
            idempotencyKey: `${this.workflowId}/${call.callId}`,
            reversibility: call.reversibility,
          },
        ],
      );
      const shown = this.config.principles.actionableFailure ? outcome : { ...outcome, candidates: [] };
      call.result = { content: formatToolResult(shown), isError: !outcome.ok };
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      call.result = this.failedCallResult(call, error);
    }
    call.status = 'done';
    this.afterCall(call, outcome);
  }

  /** Principles 1 and 3, planning and assessment bookkeeping after one executed call. */
  private afterCall(call: ToolCallRecord, outcome: ToolOutcome | undefined): void {
    const ok = outcome?.ok ?? false;
    const stats = (this.state.assessment.toolStats[call.toolName] ??= { calls: 0, successes: 0 });
    stats.calls += 1;
    if (ok) stats.successes += 1;
    if (ok && call.reversibility !== 'read-only')
      this.state.assessment.lastProgressCycle = this.state.counters.modelTurns;
    const observed = observeToolCall(this.state.principles, this.config.principles, {
      input: call.input,
      reversibility: call.reversibility,
      summary: call.summary,
      outcome: outcome ?? { ok: false, content: call.result?.content ?? '', candidates: [], facts: {} },
    });
    if (observed.prompt) {
      this.state.notes.push(observed.prompt);
      this.record(LedgerEventKind.HypothesisMismatch, `hypothesis mismatch: ${call.summary}`, {
        callId: call.callId,
        reason: observed.mismatchReason,
      });
    }
    this.planning.observeCall(ok, observed.prompt !== undefined);
    this.checkBudget(); // warnings ride on this turn's results; exhaustion ends the goal at the turn's end
  }

  private failedCallResult(call: ToolCallRecord, error: unknown): NonNullable<ToolCallRecord['result']> {
    const detail = describeFailure(error);
    if (call.reversibility === 'irreversible') {
      this.state.counters.unknownOutcomes += 1;
      return { content: unknownOutcomeText(call.summary, detail), isError: true, unknownOutcome: true };
    }
    return { content: `The tool could not run: ${detail}.`, isError: true };
  }

  /** Principle 3: after a turn that used tools, once its calls are counted. */
  private checkpoint(): void {
    const task = this.state.tasks[this.state.tasks.length - 1];
    const prompt = checkpointAfterTurn(this.state.principles, {
      taskText: task?.text ?? '',
      now: new Date().toISOString(),
    });
    if (!prompt) return;
    this.state.transcript = appendUserBlocks(this.state.transcript, [{ type: 'text', text: prompt }]);
    const marker = this.state.principles.cadence.lastCheckpoint;
    this.record(
      LedgerEventKind.ReflectionCheckpoint,
      `checkpoint after ${marker?.atToolCall ?? 0} tool calls of the task`,
      {
        atToolCall: marker?.atToolCall,
        cadence: this.state.principles.cadence.current,
      },
    );
  }

  /** Principle 4: at 100% of any budget the workflow ends the goal, whatever the model says. */
  private async budgetExhausted(): Promise<GoalResult | undefined> {
    const exhausted = this.checkBudget();
    if (!exhausted) return undefined;
    const reason = `${exhausted.dimension} budget exhausted (${Math.round(exhausted.spent * 1000) / 1000} of ${exhausted.limit})`;
    this.record(LedgerEventKind.BudgetExhausted, reason, { ...exhausted });
    return this.finish(GoalStatus.BudgetExhausted, reason);
  }

  private checkBudget() {
    const warnedBefore = this.state.principles.budgetWarned.length;
    const exhausted = checkBudget(this.state.principles, this.config.principles, this.costNow().spent);
    for (const key of this.state.principles.budgetWarned.slice(warnedBefore)) {
      this.record(LedgerEventKind.BudgetWarning, `budget warning ${key}`, { key });
    }
    return exhausted;
  }

  private costNow() {
    return goalCost(this.state, Date.now());
  }

  /** Harness notes join the transcript right before the model's next turn. */
  private giveNotes(): void {
    if (this.state.notes.length === 0) return;
    const notes = this.state.notes.splice(0);
    this.state.transcript = appendUserBlocks(
      this.state.transcript,
      notes.map((text) => ({ type: 'text' as const, text })),
    );
  }

  /** Follow-up messages join the transcript at a turn boundary and each starts a new task. */
  private takeFollowUps(): void {
    while (this.state.inbox.length > 0) {
      const text = this.state.inbox.shift() as string;
      this.state.transcript = appendUserBlocks(this.state.transcript, [
        { type: 'text', text: followUpMessage(text) },
      ]);
      this.state.tasks.push({
        index: this.state.tasks.length,
        text,
        startedAt: new Date().toISOString(),
        startedAtTurn: this.state.counters.modelTurns,
      });
      startTask(this.state.principles, this.config.principles);
      this.state.finalText = undefined;
    }
  }

  private async awaitFollowUp(): Promise<boolean> {
    if (this.state.inbox.length > 0) return true;
    if (this.config.followUpWindowMs === 0) return false;
    this.state.phase = GoalPhase.AwaitingFollowUp;
    this.show();
    return wf.condition(() => this.state.inbox.length > 0, this.config.followUpWindowMs);
  }

  private async awaitHumanReview(): Promise<Review | undefined> {
    this.awaitingReview = true;
    this.show();
    await wf.condition(
      () => this.state.reflection.review !== undefined,
      this.config.limits.approvalTimeoutMs,
      {
        summary: 'review wait: the goal output',
      },
    );
    this.awaitingReview = false;
    return this.state.reflection.review;
  }

  private async continueAsNewIfSuggested(): Promise<void> {
    if (wf.workflowInfo().continueAsNewSuggested) await this.continueAsNew();
  }

  private async continueAsNew(): Promise<never> {
    this.state.continuedAsNew += 1;
    this.record(
      LedgerEventKind.GoalContinuedAsNew,
      `continued as new (run ${this.state.continuedAsNew + 1})`,
      {},
    );
    this.publishLedger();
    await this.publishing;
    // Handlers still running would be cut off by the new run; let them finish first.
    await wf.condition(wf.allHandlersFinished);
    return wf.continueAsNew<typeof goalWorkflow>(this.config, this.state);
  }

  async finish(status: GoalStatus, reason: string): Promise<GoalResult> {
    this.state.status = status;
    this.state.phase = GoalPhase.Done;
    this.state.endReason = reason;
    const kind =
      status === GoalStatus.Completed
        ? LedgerEventKind.GoalCompleted
        : status === GoalStatus.Cancelled
          ? LedgerEventKind.GoalCancelled
          : LedgerEventKind.GoalFailed;
    this.record(kind, `goal ${status}: ${reason}`, { status, reason });
    this.show();
    // The last events reach the listeners before the workflow closes (closing would stop retries).
    this.publishLedger();
    await this.publishing;
    return {
      status,
      reason,
      ...(this.state.finalText !== undefined ? { finalText: this.state.finalText } : {}),
      counters: this.state.counters,
      usage: this.state.usage,
      tasks: this.state.tasks.length,
      stats: goalStats(this.state, Date.now()),
      ...(this.state.planning.plan ? { planAttempt: this.state.planning.plan.attempt } : {}),
      ...(this.state.reflection.outcome ? { reflection: this.state.reflection.outcome } : {}),
    };
  }

  private record(kind: LedgerEventKind, summary: string, data: Record<string, unknown>): void {
    this.state.ledger = appendEvent(
      this.state.ledger,
      { at: new Date().toISOString(), kind, summary, data },
      { maxEvents: this.config.ledger.maxEvents },
    );
  }

  /**
   * Hands new ledger events to the sinks as an activity the loop does not wait for, so a slow
   * listener never blocks the goal; batches go out one after another, in order.
   */
  private publishLedger(): void {
    if (!this.state.workerDefaults.ledgerSinks) return;
    const events = eventsAfter(this.state.ledger, this.state.ledgerPublishedThrough);
    const last = events[events.length - 1];
    if (!last) return;
    this.state.ledgerPublishedThrough = last.sequence;
    this.publishing = this.publishing
      .then(() => this.activities.ledger.publishLedgerEvents({ workflowId: this.workflowId, events }))
      .catch((error: unknown) =>
        wf.log.warn('ledger events not delivered', { error: describeFailure(error) }),
      );
  }

  /** Keeps what humans see current: Web UI details, search attributes, ledger listeners. */
  private show(): void {
    wf.setCurrentDetails(
      renderGoalDetails(detailsInput(this.state, { workflowId: this.workflowId, nowMs: Date.now() })),
    );
    const next = searchAttributeValuesOf(this.state);
    const changed = changedSearchAttributes(this.published, next);
    if (changed.length > 0) {
      wf.upsertSearchAttributes(changed);
      this.published = next;
    }
    this.publishLedger();
  }

  private priority() {
    return { priorityKey: temporalPriorityKey(this.state.assessment.priority) };
  }

  private addUsage(usage: ModelCallResult['usage']): void {
    const total = this.state.usage;
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    total.cacheCreationInputTokens += usage.cacheCreationInputTokens;
    total.cacheReadInputTokens += usage.cacheReadInputTokens;
  }
}

/** A call held back under hard enforcement: returned unexecuted with a request for the answer. */
function heldBack(callId: string, toolName: string, input: unknown): ToolCallRecord {
  return {
    callId,
    toolName,
    input,
    reversibility: 'read-only',
    summary: `${toolName} (held back)`,
    status: 'done',
    result: { content: unexecutedToolCallNote(), isError: true },
  };
}

function describeFailure(error: unknown): string {
  if (error instanceof ActivityFailure) {
    const cause = error.cause;
    if (cause instanceof TimeoutFailure)
      return `the call timed out (${cause.timeoutType}) — the worker may have stopped mid-call`;
    if (cause) return cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A model call that failed for good fails the goal with the same, non-retryable type. */
function modelFailure(error: unknown): unknown {
  if (wf.isCancellation(error)) return error;
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
    const cause = error.cause;
    return ApplicationFailure.nonRetryable(
      `model call failed: ${cause.message}`,
      cause.type ?? 'ModelCallFailed',
    );
  }
  return ApplicationFailure.nonRetryable(`model call failed: ${describeFailure(error)}`, 'ModelCallFailed');
}
