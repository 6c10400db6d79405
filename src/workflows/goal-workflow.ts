import * as wf from '@temporalio/workflow';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import type { KeelActivities } from '../activities';
import { FailureType, NON_RETRYABLE_MODEL_FAILURES } from './failure-types';
import { parseGoalInput, type GoalConfig, type GoalInput } from './goal-input';
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
import {
  approvalSignalPayloadSchema,
  approvalUpdatePayloadSchema,
  approveSignal,
  decideApprovalUpdate,
  denySignal,
  DESCRIPTIONS,
  goalStatusQuery,
  userMessagePayloadSchema,
  userMessageSignal,
  type GoalStatusView,
} from './messages';
import { followUpMessage, goalMessage, systemPrompt } from './prompts';
import { formatToolResult } from './tools/tool-registry';
import { appendUserBlocks, describeMessage, textOf, toolUsesOf, userText } from './transcript';
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
}

/**
 * One goal, pursued by a ReAct loop: model turn → tool calls (in parallel, each possibly waiting
 * for a human) → results back to the model, until a final answer or a limit. All bookkeeping is
 * in `state`; every side effect is an activity, so a crashed worker or a restarted server loses
 * nothing. `carried` is the state handed over by continue-as-new.
 */
export async function goalWorkflow(input: GoalInput, carried?: unknown): Promise<GoalResult> {
  const state = carried === undefined ? newGoalState(input) : resumeGoalState(carried);
  const goal = new GoalRun(state);
  goal.registerHandlers();
  try {
    return await goal.run();
  } catch (error) {
    if (wf.isCancellation(error)) return goal.finish(GoalStatus.Cancelled, 'cancelled by request');
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
    transcript: [userText(goalMessage(config))],
    tasks: [
      { index: 0, text: goalMessage(config), startedAt: new Date(now).toISOString(), startedAtTurn: 0 },
    ],
    counters: emptyCounters(),
    usage: emptyUsage(),
    inbox: [],
    startedAtMs: now,
    continuedAsNew: 0,
  };
}

function resumeGoalState(carried: unknown): GoalState {
  const loaded = loadGoalState(carried);
  if (!loaded.ok) throw ApplicationFailure.nonRetryable(loaded.message, FailureType.InvalidGoalState);
  return loaded.state;
}

class GoalRun {
  private readonly activities: ReturnType<typeof proxiesFor>;

  constructor(private readonly state: GoalState) {
    this.activities = proxiesFor(state.config);
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
    wf.setHandler(goalStatusQuery, () => this.statusView(), { description: DESCRIPTIONS.status });
  }

  async run(): Promise<GoalResult> {
    for (;;) {
      if (this.state.currentTurn) {
        const cutByLimit = await this.runToolCalls(this.state.currentTurn);
        if (cutByLimit)
          return this.finish(
            GoalStatus.Limit,
            `tool-call limit of ${this.config.limits.maxToolCalls} reached`,
          );
      }
      this.takeFollowUps();
      await this.continueAsNewIfSuggested();
      if (this.state.counters.modelTurns >= this.config.limits.maxTurns) {
        return this.finish(GoalStatus.Limit, `model turn limit of ${this.config.limits.maxTurns} reached`);
      }
      const reply = await this.modelTurn();
      const toolUses = toolUsesOf(reply);
      if (toolUses.length > 0) {
        this.state.currentTurn = planTurn({
          toolUses,
          config: this.config,
          toolCallsSoFar: this.state.counters.toolCalls,
          nowMs: Date.now(),
        });
        this.state.counters.approvalsRequested += this.state.currentTurn.filter(
          (call) => call.approval,
        ).length;
        continue;
      }
      this.state.finalText = textOf(reply);
      if (await this.awaitFollowUp()) continue;
      return this.finish(GoalStatus.Completed, 'final answer given');
    }
  }

  private async modelTurn() {
    this.state.phase = GoalPhase.Thinking;
    const turn = this.state.counters.modelTurns + 1;
    let result;
    try {
      result = await this.activities.model.callModel.executeWithOptions({ summary: `model turn ${turn}` }, [
        {
          model: this.config.model,
          system: systemPrompt(this.config),
          messages: this.state.transcript,
          toolNames: offeredTools(this.config),
          goalId: wf.workflowInfo().workflowId,
          turn,
        },
      ]);
    } catch (error) {
      throw modelFailure(error);
    }
    this.state.counters.modelTurns = turn;
    const usage = this.state.usage;
    usage.inputTokens += result.usage.inputTokens;
    usage.outputTokens += result.usage.outputTokens;
    usage.cacheCreationInputTokens += result.usage.cacheCreationInputTokens;
    usage.cacheReadInputTokens += result.usage.cacheReadInputTokens;
    const reply = { role: 'assistant' as const, content: result.content };
    this.state.transcript.push(reply);
    return reply;
  }

  /** Runs every call of the turn in its own lane; returns whether a call was cut by the limit. */
  private async runToolCalls(turn: ToolCallRecord[]): Promise<boolean> {
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
    this.state.transcript = appendUserBlocks(this.state.transcript, toolResultBlocks(turn));
    this.state.currentTurn = undefined;
    return turn.some(wasCutByLimit);
  }

  private canContinueAsNewMidTurn(turn: ToolCallRecord[]): boolean {
    return (
      wf.workflowInfo().continueAsNewSuggested &&
      !turn.some((call) => call.status === 'running' || call.status === 'ready') &&
      turn.some((call) => call.status === 'awaiting-approval')
    );
  }

  private async runLane(call: ToolCallRecord): Promise<void> {
    if (call.status === 'done') return;
    if (call.status === 'awaiting-approval') {
      const decision = await this.awaitDecision(call);
      if (!decision.approved) {
        call.status = 'done';
        call.result = { content: denialText(decision), isError: true };
        return;
      }
      call.status = 'ready';
    }
    await this.execute(call);
  }

  private async awaitDecision(call: ToolCallRecord): Promise<ApprovalDecision> {
    const approval = call.approval;
    if (!approval) throw new Error(`call ${call.callId} awaits approval without an approval record`);
    this.state.phase = GoalPhase.AwaitingApproval;
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
    }
    return approval.decision as ApprovalDecision;
  }

  private decide(call: ToolCallRecord, decision: Omit<ApprovalDecision, 'decidedAt'>): void {
    if (!call.approval) return;
    call.approval.decision = { ...decision, decidedAt: new Date().toISOString() };
    if (decision.approved) this.state.counters.approvalsGranted += 1;
    else this.state.counters.approvalsDenied += 1;
  }

  private async execute(call: ToolCallRecord): Promise<void> {
    this.state.phase = GoalPhase.RunningTools;
    call.status = 'running';
    const counters = this.state.counters;
    counters.toolCalls += 1;
    counters.toolCallsByTool[call.toolName] = (counters.toolCallsByTool[call.toolName] ?? 0) + 1;
    counters.toolCallsByReversibility[call.reversibility] += 1;
    const { workflowId } = wf.workflowInfo();
    const tools =
      call.reversibility === 'irreversible' ? this.activities.onceOnlyTools : this.activities.tools;
    try {
      const outcome = await tools.executeTool.executeWithOptions({ summary: call.summary }, [
        {
          toolName: call.toolName,
          input: call.input,
          workspace: this.config.workspace,
          callId: call.callId,
          // Stable across retries, replays and continue-as-new: the tool can refuse a repeat.
          idempotencyKey: `${workflowId}/${call.callId}`,
          reversibility: call.reversibility,
        },
      ]);
      call.result = { content: formatToolResult(outcome), isError: !outcome.ok };
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      call.result = this.failedCallResult(call, error);
    }
    call.status = 'done';
  }

  private failedCallResult(call: ToolCallRecord, error: unknown): NonNullable<ToolCallRecord['result']> {
    const detail = describeFailure(error);
    if (call.reversibility === 'irreversible') {
      this.state.counters.unknownOutcomes += 1;
      return { content: unknownOutcomeText(call.summary, detail), isError: true, unknownOutcome: true };
    }
    return { content: `The tool could not run: ${detail}.`, isError: true };
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
      this.state.finalText = undefined;
    }
  }

  private async awaitFollowUp(): Promise<boolean> {
    if (this.state.inbox.length > 0) return true;
    if (this.config.followUpWindowMs === 0) return false;
    this.state.phase = GoalPhase.AwaitingFollowUp;
    return wf.condition(() => this.state.inbox.length > 0, this.config.followUpWindowMs);
  }

  private async continueAsNewIfSuggested(): Promise<void> {
    if (wf.workflowInfo().continueAsNewSuggested) await this.continueAsNew();
  }

  private async continueAsNew(): Promise<never> {
    // Handlers still running would be cut off by the new run; let them finish first.
    await wf.condition(wf.allHandlersFinished);
    this.state.continuedAsNew += 1;
    return wf.continueAsNew<typeof goalWorkflow>(this.config, this.state);
  }

  finish(status: GoalStatus, reason: string): GoalResult {
    this.state.status = status;
    this.state.phase = GoalPhase.Done;
    this.state.endReason = reason;
    return {
      status,
      reason,
      ...(this.state.finalText !== undefined ? { finalText: this.state.finalText } : {}),
      counters: this.state.counters,
      usage: this.state.usage,
      tasks: this.state.tasks.length,
    };
  }

  private statusView(): GoalStatusView {
    const state = this.state;
    const task = state.tasks[state.tasks.length - 1] ?? { index: 0, text: state.config.goal };
    return {
      goal: state.config.goal,
      status: state.status,
      phase: state.phase,
      task: { index: task.index, text: task.text },
      counters: state.counters,
      usage: state.usage,
      pendingApprovals: (state.currentTurn ?? [])
        .filter((call) => call.status === 'awaiting-approval' && call.approval && !call.approval.decision)
        .map((call) => ({
          callId: call.callId,
          toolName: call.toolName,
          summary: call.summary,
          reversibility: call.reversibility,
          input: call.input,
          requestedAt: call.approval?.requestedAt ?? '',
          deadline: new Date(call.approval?.deadlineMs ?? 0).toISOString(),
        })),
      latestMessages: state.transcript.slice(-8).map((message) => describeMessage(message)),
      ...(state.finalText !== undefined ? { finalText: state.finalText } : {}),
      ...(state.endReason !== undefined ? { endReason: state.endReason } : {}),
      continuedAsNew: state.continuedAsNew,
    };
  }
}

/**
 * Activity proxies with explicit timeouts and retry policies. Irreversible tools get their own
 * proxy with maximumAttempts 1: a call whose outcome is unknown is reported, never re-run.
 */
function proxiesFor(config: GoalConfig) {
  const { modelTimeoutMs, toolTimeoutMs, heartbeatTimeoutMs } = config.timing;
  const toolOptions = { startToCloseTimeout: toolTimeoutMs, heartbeatTimeout: heartbeatTimeoutMs };
  return {
    model: wf.proxyActivities<Pick<KeelActivities, 'callModel'>>({
      startToCloseTimeout: modelTimeoutMs,
      heartbeatTimeout: heartbeatTimeoutMs,
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '1m',
        maximumAttempts: 10,
        nonRetryableErrorTypes: [...NON_RETRYABLE_MODEL_FAILURES],
      },
    }),
    tools: wf.proxyActivities<Pick<KeelActivities, 'executeTool'>>({
      ...toolOptions,
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumAttempts: 3,
        nonRetryableErrorTypes: [FailureType.WorkspaceMissing],
      },
    }),
    onceOnlyTools: wf.proxyActivities<Pick<KeelActivities, 'executeTool'>>({
      ...toolOptions,
      retry: { maximumAttempts: 1 },
    }),
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
