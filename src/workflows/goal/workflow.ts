import * as wf from '@temporalio/workflow';
import { ApplicationFailure, TemporalFailure } from '@temporalio/workflow';
import { FailureType } from '../common/failure-types';
import { LedgerEventKind } from '../common/ledger';
import { cacheHitRate as cacheHitRateOf } from '../principles/cost';
import {
  appendUserBlocks,
  textOf,
  thinkingOf,
  userText,
  withAppendedText,
  type TranscriptMessage,
} from '../common/transcript';
import {
  initialPrinciplesState,
  judgeReplyAfterCheckpoint,
  resolveCadence,
  startTask,
  takeMetaNote,
} from '../principles/principles';
import { isHarnessTool, modelToolDefinitions } from '../tools/harness-tools';
import type { ToolCatalogue } from '../tools/tool-catalogue';
import { proxiesFor, type ActivityProxies } from './lifecycle/activity-proxies';
import { GoalAssessment } from './oversight/assessment';
import { GoalClosingReport } from './model-turn/closing-report-turn';
import { GoalDiscipline } from './oversight/discipline';
import { goalEnding } from './lifecycle/ending';
import { cutOff, describeFailure, heldBack } from './lifecycle/failures';
import { GoalGuards, type GuardStop } from './oversight/guards';
import { GoalJudge } from './oversight/judge';
import { GoalHost } from './host/binding';
import { registerGoalHandlers } from './handlers';
import { recordHostLiveness } from './host/liveness';
import type { WorkspaceActivities } from './oversight/context';
import type { GoalConfig, GoalInput } from './lifecycle/input';
import { timeForNewRun, timeToHandOverParkedTurn } from './lifecycle/history-limits';
import { nameCalls, type NamedCall } from './tool-calls/call-ids';
import { GoalModelCalls, type ModelTurn } from './model-turn/model-calls';
import { assertNamedToolOffered } from './model-turn/request-options';
import { CONTINUE_CUT_TEXT, type StopVerdict } from './model-turn/stop-reasons';
import { GoalPlanning } from './oversight/planning';
import { GoalReflection, type Review } from './oversight/reflection';
import type { GoalResult } from './lifecycle/result';
import { newGoalState, resumeGoalState } from './lifecycle/start';
import { GoalPhase, GoalStatus, type GoalState, type ToolCallRecord } from './lifecycle/state';
import { GoalToolCalls } from './tool-calls/tool-calls';
import { GoalApprovalRules } from './tool-calls/approval-rules';
import { arrivedEncrypted } from '../common/arrival';
import { goalResultOf } from './views/status';
import { GoalVisibility } from './views/visibility';
import { followUpMessage, goalMessage } from './model-turn/prompts';
import { planTurn, toolResultBlocks, wasCutByLimit } from './tool-calls/turn';

export type { GoalResult } from './lifecycle/result';

/** How much of a turn's thinking the ledger keeps: enough to follow, never the whole. */
const THOUGHT_CHARS = 240;

function abridged(text: string, chars: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > chars ? `${line.slice(0, chars - 1)}…` : line;
}

function withoutTrailingSpace(message: TranscriptMessage): TranscriptMessage {
  const last = message.content.at(-1);
  if (last?.type !== 'text' || last.text === last.text.trimEnd()) return message;
  return {
    ...message,
    content: [...message.content.slice(0, -1), { type: 'text', text: last.text.trimEnd() }],
  };
}

function untrimmedTextOf(message: TranscriptMessage): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/**
 * The most of an answer's cut parts the goal keeps: an endpoint that cuts every answer would
 * otherwise grow the state (and continue-as-new's payload) by an answer a turn.
 */
const MAX_JOINED_CHARS = 200_000;

/** The parts of an answer cut at max_tokens and the part that completed it, as one text. */
function joinedText(before: string | undefined, text: string): string {
  const joined = before === undefined || before === '' ? text : `${before}${text}`;
  return joined.length > MAX_JOINED_CHARS
    ? `${joined.slice(0, MAX_JOINED_CHARS)}\n[keel: the answer went on for ${joined.length} characters; only the first ${MAX_JOINED_CHARS} are kept.]`
    : joined;
}

/**
 * One goal, pursued by a ReAct loop: model turn → tool calls (in parallel, each possibly waiting
 * for a human) → results back to the model, until a final answer or a limit. All bookkeeping is
 * in `state`; every side effect is an activity, so a crashed worker or a restarted server loses
 * nothing. `carried` is the state handed over by continue-as-new.
 */
export async function goalWorkflow(input: GoalInput, carried?: unknown): Promise<GoalResult> {
  const state = carried === undefined ? newGoalState(input) : resumeGoalState(carried);
  // Whether this goal's payloads are encrypted: its own input arrived so (common/arrival.ts).
  const encryptedPayloads = arrivedEncrypted(carried ?? input);
  if (state.config.requireEncryptedDecisions && !encryptedPayloads) {
    throw ApplicationFailure.nonRetryable(
      'requireEncryptedDecisions needs payload encryption: this goal arrived unencrypted (set KEEL_ENCRYPTION_KEYS on its clients and workers)',
      FailureType.InvalidGoalInput,
    );
  }
  const goal = new GoalRun(state, encryptedPayloads);
  goal.registerHandlers();
  let result: GoalResult;
  try {
    result = await goal.run();
  } catch (error) {
    if (wf.isCancellation(error)) {
      await wf.CancellationScope.nonCancellable(() =>
        goal.finish(GoalStatus.Cancelled, 'cancelled by request'),
      );
      throw error; // Temporal's own Canceled status; the status query keeps the structured result
    }
    // Only failures that fail the workflow settle the goal first. Anything else (a bug) fails the
    // workflow task instead, which Temporal retries: the goal is still running then.
    if (!(error instanceof TemporalFailure)) throw error;
    result = await goal.finish(GoalStatus.Failed, describeFailure(error));
    throw ApplicationFailure.create({
      message: result.reason ?? error.message,
      type: error instanceof ApplicationFailure && error.type ? error.type : FailureType.GoalFailed,
      nonRetryable: true,
      details: [result],
    });
  }
  const ending = goalEnding(result);
  if (ending.kind === 'fail') {
    throw ApplicationFailure.create({
      message: ending.message,
      type: ending.type,
      nonRetryable: true,
      details: [result],
    });
  }
  return result;
}

class GoalRun {
  private readonly activities: ActivityProxies;
  private readonly workflowId = wf.workflowInfo().workflowId;
  private readonly planning: GoalPlanning;
  private readonly assessment: GoalAssessment;
  private readonly reflection: GoalReflection;
  private readonly visibility: GoalVisibility;
  private awaitingReview = false;
  private readonly toolCalls: GoalToolCalls;
  private readonly model: GoalModelCalls;
  private readonly discipline: GoalDiscipline;
  private readonly guards: GoalGuards;
  private readonly host: GoalHost;
  private readonly closingReport: GoalClosingReport;
  private readonly rules: GoalApprovalRules;

  constructor(
    private readonly state: GoalState,
    private readonly encryptedPayloads = false,
  ) {
    this.activities = proxiesFor(state.config);
    this.visibility = new GoalVisibility(state, this.workflowId, this.activities.ledger);
    this.host = new GoalHost({
      state,
      activities: this.activities,
      visibility: this.visibility,
      workflowId: this.workflowId,
    });
    this.discipline = new GoalDiscipline(state, this.visibility);
    this.model = new GoalModelCalls({
      state,
      activities: this.activities,
      workflowId: this.workflowId,
      record: (kind, summary, data) => this.visibility.record(kind, summary, data),
      planContext: () => this.planning.planContext(),
    });
    this.closingReport = new GoalClosingReport({ state, model: this.model, visibility: this.visibility });
    const context = {
      state,
      activities: this.activities,
      workflowId: this.workflowId,
      record: (kind: LedgerEventKind, summary: string, data: Record<string, unknown> = {}) =>
        this.visibility.record(kind, summary, data),
      note: (text: string) => state.notes.push(text),
      structured: this.model.structured.bind(this.model),
      onWorkspaceHost: <T>(call: (workspace: WorkspaceActivities) => Promise<T>) =>
        this.host.run((queue) =>
          call(queue === undefined ? this.activities.support : this.activities.onHost(queue).workspace),
        ),
    };
    this.planning = new GoalPlanning(context);
    this.assessment = new GoalAssessment(context);
    this.reflection = new GoalReflection(context, () => this.awaitHumanReview());
    this.guards = new GoalGuards(state, this.visibility, this.planning, new GoalJudge(context));
    this.rules = new GoalApprovalRules(() => this.state, this.visibility);
    this.toolCalls = new GoalToolCalls({
      state,
      rules: this.rules,
      activities: this.activities,
      workflowId: this.workflowId,
      planning: this.planning,
      guards: this.guards,
      visibility: this.visibility,
      host: this.host,
      priority: () => this.model.priority(),
      checkBudget: () => this.discipline.checkBudget(),
      continueAsNew: (stillValid: () => boolean) => this.continueAsNew(stillValid),
      timeForNewRun: () => this.timeForNewRun(),
      timeToHandOverParkedTurn: () => timeToHandOverParkedTurn(wf.workflowInfo()),
    });
  }

  private get config(): GoalConfig {
    return this.state.config;
  }

  registerHandlers(): void {
    registerGoalHandlers({
      state: this.state,
      workflowId: this.workflowId,
      decide: (call, decision, rule) => this.toolCalls.decide(call, decision, rule),
      rules: this.rules,
      encryptedPayloads: this.encryptedPayloads,
      applyRulesToWaiting: () => this.toolCalls.applyRulesToWaiting(),
      ignore: (refusal) => this.toolCalls.ignore(refusal),
      isAwaitingReview: () => this.awaitingReview,
      host: this.host,
      hostLiveness: (signal) =>
        recordHostLiveness({ state: this.state, visibility: this.visibility }, signal),
    });
  }

  async run(): Promise<GoalResult> {
    if (this.state.transcript.length === 0) {
      const failure = await this.prepare();
      if (failure) return this.finish(GoalStatus.Failed, failure);
    } else if (this.state.tools === undefined) {
      // A goal carried over from a version that kept no catalogue learns it now.
      const failure = await this.learnTools();
      if (failure) return this.finish(GoalStatus.Failed, failure);
    }
    for (;;) {
      this.visibility.show();
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
      const { reply, stop, maxTokens } = await this.modelTurn();
      const exhausted = await this.budgetExhausted();
      if (exhausted) return exhausted;
      const calls = this.nameCalls(reply);
      if (stop !== 'answer') {
        this.afterUnfinishedAnswer(reply, stop, calls, maxTokens);
        continue;
      }
      const replyText = textOf(reply);
      // Hard guard first: it must see whether a checkpoint was open before the judge closes it.
      const checkpointReply = this.guards.afterReply(replyText, calls.length > 0);
      if (checkpointReply.stop) {
        const ended = await this.afterGuardStop(checkpointReply.stop);
        if (ended) return ended;
      }
      const judgement = judgeReplyAfterCheckpoint(
        this.state.principles,
        this.guards.principleSettings(),
        checkpointReply.addressed,
      );
      if (judgement.addressed !== undefined) {
        this.visibility.record(
          LedgerEventKind.ReflectionAnswered,
          `checkpoint ${judgement.addressed ? 'answered' : 'not answered'}`,
          {
            addressed: judgement.addressed,
          },
        );
      }
      if (calls.length > 0) {
        this.state.currentTurn = judgement.holdToolCalls
          ? calls.map(heldBack)
          : planTurn({
              calls,
              config: this.config,
              catalogue: this.catalogue(),
              prepared: await this.toolCalls.prepare(calls),
              toolCallsSoFar: this.state.counters.toolCalls,
              nowMs: Date.now(),
            });
        this.toolCalls.requestApprovals(this.state.currentTurn);
        continue;
      }
      this.state.finalText = joinedText(this.state.cutText, textOf(reply));
      delete this.state.cutText;
      if (await this.awaitFollowUp()) continue;
      if (this.config.reflection.enabled) {
        this.state.phase = GoalPhase.Reviewing;
        this.visibility.show();
        await this.reflection.afterFinalAnswer(this.state.finalText);
        const review = this.state.reflection.review;
        if (review && !review.accepted) {
          const why = review.notes.trim() === '' ? '' : `: ${review.notes.trim()}`;
          return this.finish(GoalStatus.Rejected, `the output was rejected by ${review.by}${why}`);
        }
      }
      return this.finish(GoalStatus.Completed, 'final answer given');
    }
  }

  /**
   * An answer the model did not finish (goal/model-turn/stop-reasons.ts). A refusal fails the goal with
   * ModelRefused; a paused turn goes back as it is; a text cut at max_tokens is kept and the model
   * asked to continue; a tool call cut at max_tokens is never run: every call of that answer is
   * answered unrun, with why.
   */
  private afterUnfinishedAnswer(
    reply: TranscriptMessage,
    stop: Exclude<StopVerdict, 'answer'>,
    calls: readonly NamedCall[],
    maxTokens: number,
  ): void {
    const turn = this.state.counters.modelTurns;
    switch (stop) {
      case 'refusal': {
        const text = textOf(reply);
        throw ApplicationFailure.nonRetryable(
          `the model refused to continue${text === '' ? '' : `: ${text.slice(0, 300)}`}`,
          FailureType.ModelRefused,
        );
      }
      case 'paused':
        // It goes back as the request's last message, which the API refuses to end in whitespace.
        this.state.transcript[this.state.transcript.length - 1] = withoutTrailingSpace(reply);
        this.visibility.record(
          LedgerEventKind.ModelPaused,
          `model turn ${turn} was paused by the API; sent back to go on`,
          {
            turn,
          },
        );
        return;
      case 'cut-text':
        // Untrimmed: the cut may fall just after a space the continuation does not repeat.
        this.state.cutText = joinedText(this.state.cutText, untrimmedTextOf(reply));
        this.state.transcript = appendUserBlocks(this.state.transcript, [
          { type: 'text', text: CONTINUE_CUT_TEXT },
        ]);
        this.visibility.record(
          LedgerEventKind.ModelAnswerCut,
          `model turn ${turn} reached max_tokens (${maxTokens}) mid-text; asked to continue`,
          { turn, maxTokens, cut: 'text' },
        );
        return;
      case 'cut-call':
        this.state.currentTurn = calls.map((call) => cutOff(call, maxTokens));
        this.visibility.record(
          LedgerEventKind.ModelAnswerCut,
          `model turn ${turn} reached max_tokens (${maxTokens}) while writing a tool call; its ${calls.length} call(s) were not run`,
          { turn, maxTokens, cut: 'tool call', calls: calls.map((call) => call.toolUse.name) },
        );
        return;
    }
  }

  /**
   * keel's names for the reply's calls (goal/tool-calls/call-ids.ts). A reply whose tool_use ids had to be made
   * unique replaces the transcript's last message; the stored model request keeps the model's
   * own reply, so the next turn sends the changed message whole (goal/model-turn/request.ts matches by
   * identity), never a stored one that says otherwise.
   */
  private nameCalls(reply: TranscriptMessage): NamedCall[] {
    const transcript = this.state.transcript;
    const named = nameCalls({ reply, earlier: transcript.slice(0, -1), named: this.state.callsNamed });
    this.state.callsNamed = named.named;
    if (named.reply !== reply) transcript[transcript.length - 1] = named.reply;
    return named.calls;
  }

  /**
   * First run only: the workspace host, worker defaults, improvement notes from earlier runs, the
   * first plan. A workspace no host has fails the goal here, before any model call is paid for.
   */
  private async prepare(): Promise<string | undefined> {
    await this.host.bind();
    const toolsFailure = await this.learnTools();
    if (toolsFailure) return toolsFailure;
    const defaults = await this.activities.startLookups.workerDefaults();
    this.state.workerDefaults = defaults;
    this.rules.seed(this.config.approvalRules, defaults.approvalRules);
    this.state.principles = initialPrinciplesState(
      resolveCadence(this.config.principles, defaults.reflectionCadence),
    );
    const withNotes = this.config.reflection.enabled ? await this.reflection.openingMessage() : undefined;
    this.state.transcript = [userText(withNotes ?? goalMessage(this.config))];
    this.visibility.record(LedgerEventKind.GoalStarted, `goal started: ${this.config.goal}`, {
      cadence: this.state.principles.cadence.base,
      notesApplied: this.state.reflection.notesApplied,
    });
    this.host.recordBinding();
    if (!this.config.planning.enabled) return undefined;
    this.state.phase = GoalPhase.Planning;
    this.visibility.show();
    const outcome = await this.planning.start();
    return outcome.kind === 'give-up' ? outcome.reason : undefined;
  }

  /**
   * Records the tools this goal may use, as the worker describes them now. From here on the goal
   * decides from this data alone, so a worker deployed later with other tools cannot change it.
   */
  private async learnTools(): Promise<string | undefined> {
    try {
      const catalogue = await this.activities.startLookups.describeTools.executeWithOptions(
        { summary: "learn the goal's tools" },
        [this.config.tools === undefined ? {} : { patterns: this.config.tools }],
      );
      this.state.tools = { catalogue };
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      return `the goal's tools could not be set up: ${describeFailure(error)}`;
    }
    // A tool choice naming a tool the goal does not offer would be refused on every model turn.
    assertNamedToolOffered(
      this.config.model.toolChoice,
      modelToolDefinitions(this.catalogue(), this.config.planning.enabled),
    );
    return undefined;
  }

  private catalogue(): ToolCatalogue {
    return this.state.tools?.catalogue ?? [];
  }

  private async modelTurn(): Promise<ModelTurn> {
    this.state.phase = GoalPhase.Thinking;
    this.discipline.giveNotes();
    this.visibility.show();
    const turn = await this.model.turn();
    const thinking = thinkingOf(turn.reply);
    if (thinking !== '') {
      this.visibility.record(
        LedgerEventKind.ModelThought,
        `model turn ${this.state.counters.modelTurns} thought: ${abridged(thinking, THOUGHT_CHARS)}`,
        { turn: this.state.counters.modelTurns, characters: thinking.length },
      );
    }
    return turn;
  }

  /** Principle 4: a goal past any budget ends here, whatever the model says. */
  private async budgetExhausted(): Promise<GoalResult | undefined> {
    const reason = this.discipline.exhaustedBudget();
    return reason === undefined ? undefined : this.finish(GoalStatus.BudgetExhausted, reason);
  }

  /** Runs the turn's calls, then gives the results (and any notes) back; a result ends the goal. */
  private async finishTurn(turn: ToolCallRecord[]): Promise<GoalResult | undefined> {
    await this.toolCalls.run(turn);
    const results = toolResultBlocks(turn);
    const metaNote = takeMetaNote(this.state.principles);
    const last = results[results.length - 1];
    if (metaNote && last) results[results.length - 1] = withAppendedText(last, metaNote);
    this.state.transcript = appendUserBlocks(this.state.transcript, results);
    this.state.currentTurn = undefined;
    if (turn.some(wasCutByLimit)) {
      return this.finish(GoalStatus.Limit, `tool-call limit of ${this.config.limits.maxToolCalls} reached`);
    }
    const exhausted = await this.budgetExhausted();
    if (exhausted) return exhausted;
    if (this.toolCalls.planningGaveUp?.kind === 'give-up')
      return this.finish(GoalStatus.Failed, this.toolCalls.planningGaveUp.reason);
    const guardStop = await this.guards.afterTurn(turn);
    if (guardStop) {
      const ended = await this.afterGuardStop(guardStop);
      if (ended) return ended;
    }
    if (turn.some((call) => !isHarnessTool(call.toolName) && call.status === 'done'))
      this.discipline.checkpoint();
    const planning = await this.planning.checkStep();
    if (planning.kind === 'give-up') return this.finish(GoalStatus.Failed, planning.reason);
    return undefined;
  }

  /**
   * A hard guard stopped the model: the goal ends as stuck (a normal result status, not a failed
   * workflow), or with planning on the step failed and the plan backtracked, unless none is left.
   */
  private async afterGuardStop(stop: GuardStop): Promise<GoalResult | undefined> {
    if (stop.kind === 'stuck') return this.finish(GoalStatus.Stuck, `stopped by a guard: ${stop.reason}`);
    if (stop.outcome.kind === 'give-up') return this.finish(GoalStatus.Failed, stop.outcome.reason);
    return undefined;
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
      this.guards.startTask();
      this.state.finalText = undefined;
    }
  }

  private async awaitFollowUp(): Promise<boolean> {
    if (this.state.inbox.length > 0) return true;
    if (this.config.followUpWindowMs === 0) return false;
    this.state.phase = GoalPhase.AwaitingFollowUp;
    this.visibility.show();
    return wf.condition(() => this.state.inbox.length > 0, this.config.followUpWindowMs);
  }

  private async awaitHumanReview(): Promise<Review | undefined> {
    this.awaitingReview = true;
    this.visibility.record(LedgerEventKind.ReviewRequested, 'review requested: waiting for a human', {
      timeoutMs: this.config.limits.approvalTimeoutMs,
      update: 'submitReview',
    });
    this.visibility.show();
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
    if (this.timeForNewRun()) await this.continueAsNew();
  }

  private timeForNewRun(): boolean {
    return timeForNewRun(wf.workflowInfo());
  }

  /**
   * Hands the goal to a new run. The ledger reaches its listeners and running handlers finish
   * first; those awaits let other work move, so `stillValid` is asked again at the last moment
   * (mid-turn: no call may have started meanwhile) and, when it says no, this run goes on.
   */
  private async continueAsNew(stillValid: () => boolean = () => true): Promise<void> {
    await this.visibility.flush();
    // Handlers still running would be cut off by the new run; let them finish first.
    await wf.condition(wf.allHandlersFinished);
    if (!stillValid()) return;
    this.state.continuedAsNew += 1;
    this.recordContinuedAsNew(); // published by the new run: the ledger travels with the state
    this.visibility.handOver(this.state.continuedAsNew + 1);
    const lastRequest = this.model.carriedRequest();
    await wf.continueAsNew<typeof goalWorkflow>(this.config, {
      ...this.state,
      ...(lastRequest === undefined ? {} : { lastRequest }),
    });
  }

  private recordContinuedAsNew(): void {
    this.visibility.record(
      LedgerEventKind.GoalContinuedAsNew,
      `continued as new (run ${this.state.continuedAsNew + 1})`,
      {},
    );
  }

  async finish(status: GoalStatus, reason: string): Promise<GoalResult> {
    // A guard or a limit: the model says what was done and what is left (goal/model-turn/closing-report.ts).
    await this.closingReport.write(status, reason);
    this.state.status = status;
    this.state.phase = GoalPhase.Done;
    this.state.endReason = reason;
    this.awaitingReview = false;
    this.toolCalls.closePendingApprovals(`the goal ended (${status})`);
    const kind =
      status === GoalStatus.Completed
        ? LedgerEventKind.GoalCompleted
        : status === GoalStatus.Cancelled
          ? LedgerEventKind.GoalCancelled
          : status === GoalStatus.Stuck
            ? LedgerEventKind.GoalStuck
            : LedgerEventKind.GoalFailed;
    const cacheHitRate = cacheHitRateOf(this.state.usage);
    this.visibility.record(kind, `goal ${status}: ${reason}`, {
      status,
      reason,
      ...(cacheHitRate > 0 ? { cacheHitRate } : {}),
    });
    this.visibility.show();
    // The last events reach the listeners before the workflow closes (closing would stop retries),
    // also when a cancellation arrived during the closing report (the goal ends with its stop).
    await wf.CancellationScope.nonCancellable(() => this.visibility.flush());
    return goalResultOf(this.state, Date.now());
  }
}
