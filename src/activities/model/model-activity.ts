import type Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { FailureType, RetryableModelFailureType } from '../../workflows/common/failure-types';
import type {
  ModelCallInput,
  ModelCallResult,
  RequestSegment,
  StructuredCallInput,
  StructuredCallResult,
} from '../../workflows/goal/model-turn/call-settings';
import type { ContentBlock } from '../../workflows/common/transcript';
import { activityContextOrUndefined, heartbeatIntervalMs } from '../activity-context';
import { capAnswer } from './answer-cap';
import { wireRequest } from './cache-breakpoints';
import { eventsBeforeAttempt, StreamProgressTracker } from './stream-progress';
import { arrivalMiddleware, StreamWatch, type GaveUp } from './stream-watch';
import { retryDelayMs } from './retry-delay';
import { toModelFailure } from './model-errors';
import { requestHeaders, toolChoiceOf } from './request-options';
import type { ModelRequestStore, StoredRequest } from './request-store/model-request-store';
import { STORED_REQUEST_VERSION } from './request-store/model-request-store';
import type { GoalsAtWork } from './goals-at-work';

export interface ModelActivityDependencies {
  /** Built by the worker from its own environment; the key never travels through history. */
  client: Anthropic;
  /** Where goals' last requests are kept so the next turn can extend them; none: always whole. */
  requestStore?: ModelRequestStore;
  /**
   * The backoff's jitter source (retry-delay.ts); Math.random unless given. The benchmark passes
   * one to measure the policy without jitter beside keel's (scripts/bench/api-bad-days.ts).
   */
  random?: () => number;
  /** The worker's bound on goals making model calls at once (goals-at-work.ts); none: no bound. */
  goalsAtWork?: GoalsAtWork;
}

/** How often the stream's progress is sent at most (Temporal throttles heartbeats further). */
const PROGRESS_BEAT_MS = 1000;
/** The first event's allowance for inputs that do not name one (older workflows' calls). */
const DEFAULT_FIRST_EVENT_WITHIN_MS = 5 * 60_000;

/**
 * How much longer a call may wait for a place among the goals at work before it goes ahead
 * anyway: until half its attempt's time, or half its schedule-to-close since it was first
 * scheduled, so waiting never times an attempt out or uses up the goal's patience (ten minutes
 * when it has neither). 0: go ahead now.
 */
export function placeWaitLimitMs(
  info: { startToCloseTimeoutMs: number; scheduleToCloseTimeoutMs: number; scheduledTimestampMs: number },
  now: number,
): number {
  const limits: number[] = [];
  if (info.startToCloseTimeoutMs > 0) limits.push(info.startToCloseTimeoutMs / 2);
  if (info.scheduleToCloseTimeoutMs > 0)
    limits.push(info.scheduleToCloseTimeoutMs / 2 - Math.max(0, now - info.scheduledTimestampMs));
  if (limits.length === 0) limits.push(10 * 60_000);
  return Math.max(0, Math.floor(Math.min(...limits)));
}

export function createModelActivities({
  client,
  requestStore,
  random,
  goalsAtWork,
}: ModelActivityDependencies) {
  /**
   * Waits until the goal has a place among the worker's goals at work, its heartbeats saying how
   * many goals are ahead (the Web UI's pending activity, `keel watch`). Returns the goal's id to
   * keep or leave the place by; undefined outside an activity or without a bound.
   */
  async function takePlace(
    context: ReturnType<typeof activityContextOrUndefined>,
    progress: StreamProgressTracker,
  ): Promise<string | undefined> {
    const goalId = context?.info.workflowExecution?.workflowId;
    if (goalsAtWork === undefined || context === undefined || goalId === undefined) return undefined;
    const giveUpAfterMs = placeWaitLimitMs(context.info, Date.now());
    if (giveUpAfterMs === 0) return goalId; // waited long enough: goes ahead without a place
    let ahead = 0;
    const beat = () =>
      context.heartbeat({ ...progress.snapshot(), waitingForPlace: { ahead, places: goalsAtWork.places } });
    let beating: ReturnType<typeof setInterval> | undefined;
    try {
      await goalsAtWork.enter(goalId, {
        priorityKey: context.info.priority?.priorityKey,
        signal: context.cancellationSignal,
        giveUpAfterMs,
        waiting: (now) => {
          ahead = now;
          if (beating === undefined) {
            beat();
            beating = setInterval(beat, heartbeatIntervalMs(context));
          }
        },
      });
    } catch {
      throw new CancelledFailure(
        'the model call was cancelled while it waited for a place among the goals at work',
      );
    } finally {
      if (beating !== undefined) clearInterval(beating);
    }
    return goalId;
  }

  /** The whole request: the input's own parts after the stored request it extends, if any. */
  async function assemble(
    input: ModelCallInput,
  ): Promise<Omit<StoredRequest, 'version' | 'goalId' | 'base'>> {
    if (input.continues === undefined) {
      return { system: input.system ?? '', tools: input.tools ?? [], messages: input.messages };
    }
    const stored = await requestStore?.get(input.continues.request).catch((error: unknown) => {
      log(`keel: the model request store could not be read (${String(error)})`);
      return undefined;
    });
    if (stored === undefined || stored.goalId !== input.goalId) {
      // Before any model call: nothing is paid for, and the workflow sends the request whole.
      throw ApplicationFailure.nonRetryable(
        `this worker's model request store has no request ${input.continues.request}`,
        FailureType.ModelRequestMissing,
      );
    }
    const segments = input.continues.segments;
    const messages =
      segments === undefined
        ? [...stored.messages, ...input.messages]
        : fromSegments(stored.messages, segments, input.messages);
    if (messages === undefined) {
      throw ApplicationFailure.nonRetryable(
        `the request's segments do not fit the stored request ${input.continues.request}`,
        FailureType.ModelRequestMissing,
      );
    }
    return { system: input.system ?? stored.system, tools: input.tools ?? stored.tools, messages };
  }

  /** Keeps the request and its answer for the next turn; a store that fails costs only that. */
  async function remember(
    input: ModelCallInput,
    request: Omit<StoredRequest, 'version' | 'goalId' | 'base'>,
    answer: ContentBlock[],
  ): Promise<string | undefined> {
    if (requestStore === undefined) return undefined;
    try {
      return await requestStore.put({
        version: STORED_REQUEST_VERSION,
        goalId: input.goalId,
        ...(input.continues === undefined ? {} : { base: input.continues.request }),
        system: request.system,
        tools: request.tools,
        messages: [...request.messages, { role: 'assistant', content: answer }],
      });
    } catch (error) {
      log(
        `keel: the model request store could not keep a request (${String(error)}); the next one is sent whole`,
      );
      return undefined;
    }
  }

  /**
   * Runs one Messages request as a stream, so max_tokens up to the model's output limit works
   * (the SDK refuses long non-streaming requests) and the heartbeats carry the answer as it forms
   * (stream-progress.ts). Heartbeats go out as stream data arrives (stream-watch.ts): a stream
   * silent for the heartbeat timeout, or no first event within `firstEventWithinMs`, ends the
   * attempt here, and a dead worker's attempt ends by the heartbeat timeout on the server. Cancellation aborts the stream. Errors become Temporal
   * failures whose next-retry delay this attempt's number decides (retry-delay.ts).
   */
  async function send(
    body: Anthropic.MessageCreateParamsNonStreaming,
    how: {
      firstEventWithinMs?: number | undefined;
      retryCapMs?: number | undefined;
      /** Per-request headers (betas, a gateway's): the shared client stays the worker's. */
      headers?: Record<string, string> | undefined;
      /**
       * `take`: a turn's call waits for the goal's place among the goals at work, and keeps it
       * while its answer asks for tools; `keep`: a structured call, which only renews the place.
       */
      place: 'take' | 'keep';
    },
  ): Promise<Anthropic.Message> {
    const context = activityContextOrUndefined();
    const attempt = context?.info.attempt ?? 1;
    const progress = new StreamProgressTracker(eventsBeforeAttempt(context?.info.heartbeatDetails));
    const goalId =
      how.place === 'take' ? await takePlace(context, progress) : context?.info.workflowExecution?.workflowId;
    if (goalId !== undefined) goalsAtWork?.keep(goalId);
    const gaveUp = new AbortController();
    const watch = new StreamWatch({
      beat: () => context?.heartbeat(progress.snapshot()),
      firstEventWithinMs: how.firstEventWithinMs ?? DEFAULT_FIRST_EVENT_WITHIN_MS,
      silenceMs: context?.info.heartbeatTimeoutMs || undefined,
      waitingBeatMs: context ? heartbeatIntervalMs(context) : 10_000,
      throttleMs: context ? Math.min(PROGRESS_BEAT_MS, heartbeatIntervalMs(context)) : PROGRESS_BEAT_MS,
      onGiveUp: () => gaveUp.abort(),
    });
    const signal = context ? AbortSignal.any([context.cancellationSignal, gaveUp.signal]) : gaveUp.signal;
    const backoff = {
      attempt,
      ...(how.retryCapMs === undefined ? {} : { capMs: how.retryCapMs }),
      ...(random === undefined ? {} : { random }),
    };
    watch.start();
    try {
      const arrived = arrivalMiddleware((bytes) => {
        progress.received(bytes);
        watch.arrived();
      });
      const stream = client.messages.stream(body, {
        signal,
        middleware: [arrived],
        ...(how.headers === undefined ? {} : { headers: how.headers }),
      });
      stream.on('streamEvent', (event) => progress.observe(event));
      const answer = await stream.finalMessage();
      // An answer that asks for no tool ends the goal's turns for now: its place goes to the next.
      if (
        goalId !== undefined &&
        how.place === 'take' &&
        !answer.content?.some((block) => block.type === 'tool_use')
      )
        goalsAtWork?.leave(goalId);
      else if (goalId !== undefined) goalsAtWork?.keep(goalId);
      return answer;
    } catch (error) {
      if (context?.cancellationSignal.aborted) throw new CancelledFailure('the model call was cancelled');
      const failure = failureOf(error, watch.gaveUp, backoff);
      // The last error rides in the heartbeat details: Temporal keeps them across attempts, so
      // a goal whose patience runs out can say what the API last answered (goal/lifecycle/failures.ts),
      // and the pending activity shows why it is waiting.
      if (!failure.nonRetryable) context?.heartbeat({ ...progress.snapshot(), lastError: failure.message });
      throw failure;
    } finally {
      watch.stop();
    }
  }

  return {
    /** One model turn over the Messages API. Retries belong to Temporal, not to the SDK. */
    async callModel(input: ModelCallInput): Promise<ModelCallResult> {
      const request = await assemble(input);
      const cache = { enabled: input.model.cache?.enabled ?? true, ttl: input.model.cache?.ttl ?? '5m' };
      const wire = wireRequest(request, cache, input.turnNote);
      const toolChoice = toolChoiceOf(input.model, input.toolChoice, wire.tools.length > 0);
      const response = await send(
        {
          model: input.model.name,
          max_tokens: input.model.maxTokens,
          system: wire.system,
          messages: wire.messages,
          ...(wire.tools.length > 0 ? { tools: wire.tools } : {}),
          ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
          ...(input.model.temperature !== undefined ? { temperature: input.model.temperature } : {}),
          ...(input.model.thinking
            ? { thinking: { type: 'enabled', budget_tokens: input.model.thinking.budgetTokens } }
            : {}),
        },
        { ...input, headers: requestHeaders(input.model), place: 'take' },
      );
      const result = toResult(response);
      const key = await remember(input, request, result.content);
      return key === undefined ? result : { ...result, request: key };
    },

    /** A structured answer through a forced tool call (see StructuredCallInput). */
    async callStructured(input: StructuredCallInput): Promise<StructuredCallResult> {
      const response = await send(
        {
          model: input.model.name,
          max_tokens: input.model.maxTokens,
          system: input.system,
          messages: [{ role: 'user', content: input.prompt }],
          tools: [
            {
              name: input.output.toolName,
              description: input.output.description,
              input_schema: { ...input.output.jsonSchema, type: 'object' },
            },
          ],
          tool_choice: { type: 'tool', name: input.output.toolName },
        },
        { ...input, headers: requestHeaders(input.model), place: 'keep' },
      );
      const result = toResult(response);
      const call = result.content.find(
        (block) => block.type === 'tool_use' && block.name === input.output.toolName,
      );
      if (call?.type === 'tool_use')
        return { raw: JSON.stringify(call.input), viaTool: true, usage: result.usage };
      const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
      return { raw: text, viaTool: false, usage: result.usage };
    },
  };
}

/** The Temporal failure of an attempt that threw: the watch's reason first, else the API's. */
function failureOf(
  error: unknown,
  why: GaveUp | undefined,
  backoff: { attempt: number; capMs?: number; random?: () => number },
): ApplicationFailure {
  if (why === undefined) return toModelFailure(error, backoff);
  const seconds = Math.round(why.afterMs / 100) / 10;
  return ApplicationFailure.create({
    message:
      why.reason === 'silence'
        ? `the model's stream went silent for ${seconds} s (timing.streamSilenceMs)`
        : `the model endpoint sent nothing for ${seconds} s after the request (timing.modelTimeoutMs)`,
    type: RetryableModelFailureType.Timeout,
    nextRetryDelay: retryDelayMs(backoff),
  });
}

/** The messages the segments describe, or undefined when they do not fit what there is. */
function fromSegments<Message>(
  stored: readonly Message[],
  segments: readonly RequestSegment[],
  sent: readonly Message[],
): Message[] | undefined {
  const messages: Message[] = [];
  let next = 0;
  for (const segment of segments) {
    if (segment === null) {
      if (next >= sent.length) return undefined;
      messages.push(sent[next++] as Message);
      continue;
    }
    const [from, to] = segment;
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to <= from || to > stored.length)
      return undefined;
    messages.push(...stored.slice(from, to));
  }
  return next === sent.length ? messages : undefined;
}

function log(message: string): void {
  const context = activityContextOrUndefined();
  if (context) context.log.warn(message);
  else console.warn(message);
}

function toResult(response: Anthropic.Message): ModelCallResult {
  if (!Array.isArray(response.content)) {
    throw ApplicationFailure.nonRetryable(
      'model response has no content array',
      FailureType.ModelResponseInvalid,
    );
  }
  // Text, tool calls and thinking (with its signature: the API wants it back exactly) go into the
  // transcript; other block kinds (server tools keel does not offer) are dropped.
  const content: ContentBlock[] = [];
  for (const block of response.content) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_use')
      content.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    else if (block.type === 'thinking')
      content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    else if (block.type === 'redacted_thinking')
      content.push({ type: 'redacted_thinking', data: block.data });
  }
  const usage = response.usage;
  return {
    content: capAnswer(content).content,
    stopReason: response.stop_reason ?? null,
    model: response.model,
    usage: {
      inputTokens: usage?.input_tokens ?? 0,
      outputTokens: usage?.output_tokens ?? 0,
      cacheCreationInputTokens: usage?.cache_creation_input_tokens ?? 0,
      cacheReadInputTokens: usage?.cache_read_input_tokens ?? 0,
      cacheCreation1hInputTokens: usage?.cache_creation?.ephemeral_1h_input_tokens ?? 0,
    },
  };
}
