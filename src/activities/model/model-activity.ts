import type Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { FailureType } from '../../workflows/common/failure-types';
import type {
  ModelCallInput,
  ModelCallResult,
  RequestSegment,
  StructuredCallInput,
  StructuredCallResult,
} from '../../workflows/goal/model-call';
import type { ContentBlock } from '../../workflows/common/transcript';
import { activityContextOrUndefined, heartbeatIntervalMs } from '../activity-context';
import { capAnswer } from './answer-cap';
import { wireRequest } from './cache-breakpoints';
import { StreamProgressTracker } from './stream-progress';
import { toModelFailure } from './model-errors';
import type { ModelRequestStore, StoredRequest } from './request-store/model-request-store';
import { STORED_REQUEST_VERSION } from './request-store/model-request-store';

export interface ModelActivityDependencies {
  /** Built by the worker from its own environment; the key never travels through history. */
  client: Anthropic;
  /** Where goals' last requests are kept so the next turn can extend them; none: always whole. */
  requestStore?: ModelRequestStore;
}

/** How often the stream's progress is sent at most (Temporal throttles heartbeats further). */
const PROGRESS_BEAT_MS = 1000;

export function createModelActivities({ client, requestStore }: ModelActivityDependencies) {
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
   * (stream-progress.ts); a dead worker is noticed within the heartbeat timeout. Cancellation
   * aborts the stream. Errors become Temporal failures.
   */
  async function send(body: Anthropic.MessageCreateParamsNonStreaming): Promise<Anthropic.Message> {
    const context = activityContextOrUndefined();
    const progress = new StreamProgressTracker();
    const beat = (): void => context?.heartbeat(progress.snapshot());
    // A stream can be silent for long (thinking, a slow first token): beat on a timer as well.
    const heartbeat = context ? setInterval(beat, heartbeatIntervalMs(context)) : undefined;
    let lastBeat = 0;
    try {
      const stream = client.messages.stream(body, context ? { signal: context.cancellationSignal } : {});
      stream.on('streamEvent', (event) => {
        progress.observe(event);
        const now = Date.now();
        if (now - lastBeat >= PROGRESS_BEAT_MS) {
          lastBeat = now;
          beat();
        }
      });
      return await stream.finalMessage();
    } catch (error) {
      if (context?.cancellationSignal.aborted) throw new CancelledFailure('the model call was cancelled');
      throw toModelFailure(error);
    } finally {
      if (heartbeat) clearInterval(heartbeat);
    }
  }

  return {
    /** One model turn over the Messages API. Retries belong to Temporal, not to the SDK. */
    async callModel(input: ModelCallInput): Promise<ModelCallResult> {
      const request = await assemble(input);
      const cache = { enabled: input.model.cache?.enabled ?? true, ttl: input.model.cache?.ttl ?? '5m' };
      const wire = wireRequest(request, cache, input.turnNote);
      const response = await send({
        model: input.model.name,
        max_tokens: input.model.maxTokens,
        system: wire.system,
        messages: wire.messages,
        ...(wire.tools.length > 0 ? { tools: wire.tools } : {}),
        ...(wire.tools.length > 0 && input.toolChoice === 'none' ? { tool_choice: { type: 'none' } } : {}),
        ...(input.model.temperature !== undefined ? { temperature: input.model.temperature } : {}),
        ...(input.model.thinking
          ? { thinking: { type: 'enabled', budget_tokens: input.model.thinking.budgetTokens } }
          : {}),
      });
      const result = toResult(response);
      const key = await remember(input, request, result.content);
      return key === undefined ? result : { ...result, request: key };
    },

    /** A structured answer through a forced tool call (see StructuredCallInput). */
    async callStructured(input: StructuredCallInput): Promise<StructuredCallResult> {
      const response = await send({
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
      });
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
