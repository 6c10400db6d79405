import * as wf from '@temporalio/workflow';
import { z } from 'zod';
import { parseStructuredOutput } from '../../common/structured-output';
import { expectedTokens } from '../../common/context-tokens';
import { LedgerEventKind } from '../../common/ledger';
import type { TranscriptMessage } from '../../common/transcript';
import { temporalPriorityKey } from '../../planning/assessment';
import { harnessOffer } from '../tool-calls/turn';
import { modelToolDefinitions, type ModelToolDefinition } from '../../tools/harness-tools';
import type { ActivityProxies } from '../lifecycle/activity-proxies';
import type { StructuredAnswer, StructuredRequest } from '../oversight/context';
import { describeFailure, modelFailure } from '../lifecycle/failures';
import { ContextFitting, type TooLong } from './context-fitting';
import type { GoalState } from '../lifecycle/state';
import type { ModelCallInput, ModelCallResult } from './call-settings';
import {
  carriedModelRequest,
  nextModelRequest,
  resumedModelRequest,
  storedModelRequest,
  type ModelRequestParts,
  type StoredModelRequest,
} from './request';
import { systemPrompt } from './prompts';
import { closingReportMessages } from './closing-report';
import { judgeStop, moreRoomThan, type StopVerdict } from './stop-reasons';
import { FailureType } from '../../common/failure-types';
import { isFailureOfType } from '../lifecycle/failures';
import type { CarriedModelRequest } from './carried-request';
import { modelCallTimeouts, modelQueue } from './retry-policy';
import { TurnModels, type ModelTry } from './turn-models';

/** A model turn's answer, what its stop reason means, and the room it was given. */
export interface ModelTurn {
  readonly reply: TranscriptMessage;
  readonly stop: StopVerdict;
  readonly maxTokens: number;
}

type SentRequest = { system: string; tools: ModelToolDefinition[]; messages: TranscriptMessage[] };

/** The room to ask a cut tool call again with, or undefined when the answer stands as it is. */
function cutCallRoom(verdict: StopVerdict, model: string, maxTokens: number): number | undefined {
  return verdict === 'cut-call' ? moreRoomThan(model, maxTokens) : undefined;
}

/**
 * The answer ran into the end of the model's context window (model_context_window_exceeded):
 * judgeStop reads it as cut, for what is kept, but more output room cannot help, a shorter
 * request can (platform.claude.com/docs/en/build-with-claude/handling-stop-reasons).
 */
const WINDOW_FULL = 'model_context_window_exceeded';

/** After this many requests a run's worker stores did not have, the run stops naming them. */
const MAX_MISSED_REQUESTS = 3;

/**
 * The goal's model calls: agent turns and structured answers, with their token usage counted and
 * the goal's priority applied. Model errors that retries cannot fix end the goal (modelFailure).
 */
export class GoalModelCalls {
  constructor(
    private readonly goal: {
      readonly state: GoalState;
      readonly activities: ActivityProxies;
      readonly workflowId: string;
      /** Writes a ledger event (a trimmed context says so). */
      record(kind: LedgerEventKind, summary: string, data: Record<string, unknown>): void;
      /** The active plan step, told to the model with every turn when the goal plans. */
      planContext(): string | undefined;
    },
  ) {
    const state = goal.state;
    this.models = new TurnModels(goal);
    this.context = new ContextFitting({
      state,
      record: (kind, summary, data) => goal.record(kind, summary, data),
      models: () => [state.config.model.name, ...(state.config.model.fallbacks ?? [])],
    });
    this.stored = resumedModelRequest(state.lastRequest, state.transcript);
    delete state.lastRequest; // true only at the start of the run that received it
  }

  /**
   * The request the worker stored after the last turn; across continue-as-new it travels as
   * `lastRequest` (see carriedRequest), read in the constructor, before anything changes the
   * transcript.
   */
  private stored: StoredModelRequest | undefined;
  private missedRequests = 0;
  /** The transcript expectedRequestTokens fitted, which the turn right after sends as it is. */
  private fittedTranscript: readonly TranscriptMessage[] | undefined;
  /** Which model each turn goes to (fallback models, goal/model-turn/fallback.ts). */
  private readonly models: TurnModels;
  /** The context budget, in characters and in tokens (goal/model-turn/context-fitting.ts). */
  private readonly context: ContextFitting;

  private get state(): GoalState {
    return this.goal.state;
  }

  /** For continue-as-new: the stored request, if the transcript still starts with its messages. */
  carriedRequest(): CarriedModelRequest | undefined {
    return carriedModelRequest(this.stored, this.state.transcript);
  }

  /**
   * One agent turn over the transcript; the reply joins the transcript. Its stop reason is judged
   * here (goal/model-turn/stop-reasons.ts): an answer cut off while writing a tool call is asked again once with
   * the model's whole output room before it is kept, and a request the model finds too long for
   * its context is trimmed harder and sent once more.
   */
  /**
   * The tokens the next turn's request is expected to hold, over the transcript fitted as the turn
   * will send it (the turn does not fit it again unless it changed since).
   */
  expectedRequestTokens(): number {
    this.fitContext();
    this.fittedTranscript = this.state.transcript;
    return expectedTokens(this.state.transcript, this.overhead(), this.state.contextMeasure);
  }

  async turn(): Promise<ModelTurn> {
    const config = this.state.config;
    const turn = this.state.counters.modelTurns + 1;
    if (this.fittedTranscript !== this.state.transcript) this.fitContext();
    this.fittedTranscript = undefined;
    let sent = this.request();
    let maxTokens = config.model.maxTokens;
    // One large trim and one more request, for a refusal or an answer that ran out of window.
    let trimmedHarder = false;
    let askedAgain = false;
    let result: ModelCallResult;
    let answeredBy: ModelTry;
    this.models.beginTurn(turn);
    for (;;) {
      const asked = Date.now(); // workflow time: the same on replay
      try {
        // The patience counts from here across every model the turn goes to.
        for (;;) {
          answeredBy = this.models.nextTry(asked, maxTokens);
          try {
            result = await this.send(sent, turn, answeredBy);
            break;
          } catch (error) {
            if (!this.models.handOn(answeredBy, error, turn, asked)) throw error;
          }
        }
      } catch (error) {
        const tooLong = isFailureOfType(error, FailureType.ModelContextTooLong);
        if (
          !trimmedHarder &&
          tooLong &&
          this.fitHarder({ kind: 'refused', message: describeFailure(error) })
        ) {
          trimmedHarder = true;
          sent = this.request();
          continue;
        }
        throw modelFailure(error, { waitedMs: Date.now() - asked, patienceMs: config.model.patienceMs });
      }
      const sentTokens = answeredBy.model.maxTokens;
      const verdict = judgeStop(result.stopReason, result.content);
      const windowFull = result.stopReason === WINDOW_FULL;
      if (windowFull && !trimmedHarder) {
        trimmedHarder = true;
        if (this.fitHarder({ kind: 'window-full', usage: result.usage })) {
          // Paid for, though not kept: more output room cannot help, a shorter request can.
          this.addUsage(result.usage, answeredBy.model.name);
          sent = this.request();
          continue;
        }
      }
      const room =
        askedAgain || windowFull ? undefined : cutCallRoom(verdict, answeredBy.model.name, sentTokens);
      if (room === undefined) break;
      // Paid for, though the answer is not kept: its last call is incomplete.
      this.addUsage(result.usage, answeredBy.model.name);
      this.goal.record(
        LedgerEventKind.ModelAnswerCut,
        `model turn ${turn} reached max_tokens (${sentTokens}) while writing a tool call; asked again with ${room}`,
        {
          turn,
          maxTokens: sentTokens,
          askedAgainWith: room,
          ...(this.models.enabled ? { model: answeredBy.model.name } : {}),
        },
      );
      askedAgain = true;
      maxTokens = room;
    }
    this.state.counters.modelTurns = turn;
    this.state.lastModel = result.model;
    this.addUsage(result.usage);
    this.models.answered(turn, answeredBy.model.name, result.usage); // its model's tokens too
    const reply: TranscriptMessage = { role: 'assistant', content: result.content };
    this.state.transcript.push(reply);
    this.context.measured(result.usage);
    this.stored = result.request === undefined ? undefined : storedModelRequest(result.request, sent, reply);
    // An answer that ran out of window again, or with nothing left to trim, is kept as cut.
    const stop = judgeStop(result.stopReason, result.content);
    return { reply, stop, maxTokens };
  }

  /**
   * The closing report's request (goal/model-turn/closing-report.ts): the goal's own system prompt, tools and
   * transcript, fitted to its context budget, with the report's prompt as the last user message.
   * Built before it is sent so the workflow can weigh its size against the budget left.
   */
  closingReportRequest(prompt: string): { request: SentRequest; chars: number } {
    this.fitContext();
    const whole = this.request();
    const request = { ...whole, messages: closingReportMessages(whole.messages, prompt) };
    return { request, chars: JSON.stringify(request).length };
  }

  /**
   * Sends the closing report's request: no tools allowed (tool_choice none), little room, brief
   * retries. Its usage is counted; its answer is not kept in the transcript (the goal has ended).
   */
  async closingReport(request: SentRequest, maxTokens: number): Promise<ModelCallResult> {
    // The model taking turns now: a primary left for overload is not asked for the report.
    const closing = this.models.nextTry(Date.now(), maxTokens);
    const result = await this.send(request, this.state.counters.modelTurns + 1, closing, {
      summary: 'closing report',
      callModel: this.goal.activities.closingReport.callModel,
      toolChoice: 'none',
      closing: true,
    });
    this.addUsage(result.usage, closing.model.name);
    return result;
  }

  /** What the next model request holds: the system prompt, the tools, the transcript. */
  private request(): SentRequest {
    return { ...this.prefix(), messages: [...this.state.transcript] };
  }

  /** What every request sends before the transcript: the system prompt and the tools. */
  private prefix(): Omit<SentRequest, 'messages'> {
    const config = this.state.config;
    return {
      system: systemPrompt(config),
      tools: modelToolDefinitions(this.state.tools?.catalogue ?? [], harnessOffer(config)),
    };
  }

  /**
   * Sends a request, by reference to the stored one where it can. The active plan step changes
   * within a goal, so it travels as the turn's note, after the cached prefix (goal/model-turn/call-settings.ts).
   */
  private async send(
    sent: SentRequest,
    turn: number,
    to: ModelTry,
    how: {
      summary: string;
      callModel: ActivityProxies['model']['callModel'];
      toolChoice?: ModelCallInput['toolChoice'];
      /** The closing report: a courtesy, retried briefly by its own proxy. */
      closing?: true;
    } = { summary: `model turn ${turn}`, callModel: this.goal.activities.model.callModel },
  ): Promise<ModelCallResult> {
    const planContext = this.goal.planContext();
    const config = this.state.config;
    // The answer's own room decides how long an attempt may stream (goal/model-turn/retry-policy.ts); the
    // closing report keeps its proxy's brief schedule and takes only the attempt's bound.
    const timeouts = to.timeouts;
    const options = how.closing ? { startToCloseTimeout: timeouts.startToCloseTimeout } : timeouts;
    const call = (parts: ModelRequestParts): Promise<ModelCallResult> =>
      how.callModel.executeWithOptions({ summary: how.summary, ...this.placement(), ...options }, [
        {
          model: to.model,
          ...parts,
          ...(planContext ? { turnNote: planContext } : {}),
          ...(how.toolChoice ? { toolChoice: how.toolChoice } : {}),
          firstEventWithinMs: config.timing.modelTimeoutMs,
          retryCapMs: config.timing.modelRetryCapMs,
          goalId: this.goal.workflowId,
          turn,
        } satisfies ModelCallInput,
      ]);
    const parts: ModelRequestParts =
      this.missedRequests < MAX_MISSED_REQUESTS ? nextModelRequest(this.stored, sent) : sent;
    try {
      return await call(parts);
    } catch (error) {
      // The worker that ran it does not have the stored request (another machine, pruned):
      // nothing was sent to the model, so the request goes whole.
      if (parts.continues === undefined || !isFailureOfType(error, FailureType.ModelRequestMissing))
        throw error;
      this.missedRequests += 1;
      return call(sent);
    }
  }

  /** Trims in one large step for a request the model found too long (goal/model-turn/context-fitting.ts). */
  private fitHarder(tooLong: TooLong): boolean {
    return this.context.fitHarder(tooLong, this.overhead());
  }

  /**
   * Keeps the transcript within the goal's context budget before it is sent (and stored: the
   * trimmed transcript is what the state and continue-as-new carry from now on).
   */
  private fitContext(): void {
    this.context.fit(this.overhead());
  }

  /** What a request sends besides the transcript: the system prompt and the tools. */
  private overhead(): string {
    return JSON.stringify(this.prefix());
  }

  /** A structured answer (plan, belief, review, reflection), counted for the raw-fallback rate. */
  async structured<Schema extends z.ZodType>(
    options: StructuredRequest<Schema>,
  ): Promise<StructuredAnswer<z.output<Schema>>> {
    const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(options.schema, { io: 'input' });
    const settings = this.state.config.model;
    // Without a model of its own, the model taking turns now (a fallback while the primary rests).
    const name = options.model ?? this.models.active();
    const model =
      name === settings.name ? settings : { ...settings, name, maxTokens: this.models.roomOf(name) };
    let result;
    try {
      result = await this.goal.activities.model.callStructured.executeWithOptions(
        {
          summary: options.purpose,
          ...this.placement(),
          ...modelCallTimeouts(this.state.config, model.maxTokens),
        },
        [
          {
            model,
            system: 'You answer with structured data through the tool you are given.',
            prompt: options.prompt,
            output: { toolName: options.toolName, description: options.description, jsonSchema },
            firstEventWithinMs: this.state.config.timing.modelTimeoutMs,
            retryCapMs: this.state.config.timing.modelRetryCapMs,
            goalId: this.goal.workflowId,
            purpose: options.purpose,
          },
        ],
      );
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      return { ok: false, error: describeFailure(error) };
    }
    this.addUsage(result.usage, name);
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

  /**
   * Where a model call runs: the goal's priority, and the fleet's model queue when its workers hold
   * a model request limit (goal/model-turn/retry-policy.ts).
   */
  private placement(): { priority: { priorityKey: number }; taskQueue?: string } {
    return { priority: this.priority(), ...modelQueue(this.state.workerDefaults.sharedModelQueue) };
  }

  /** The Temporal priority of the goal's model and tool activities (set by self-assessment). */
  priority(): { priorityKey: number } {
    return { priorityKey: temporalPriorityKey(this.state.assessment.priority) };
  }

  /** Adds to the goal's tokens, and with `model` to that model's (each priced at its own rates). */
  private addUsage(usage: ModelCallResult['usage'], model?: string): void {
    if (model !== undefined) this.models.used(model, usage);
    const total = this.state.usage;
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    total.cacheCreationInputTokens += usage.cacheCreationInputTokens;
    total.cacheReadInputTokens += usage.cacheReadInputTokens;
    total.cacheCreation1hInputTokens =
      (total.cacheCreation1hInputTokens ?? 0) + (usage.cacheCreation1hInputTokens ?? 0);
  }
}
