import type Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../workflows/failure-types';
import type { ModelCallInput, ModelCallResult } from '../../workflows/model-call';
import { toolDefinitionsForModel } from '../../workflows/tools/tool-registry';
import type { ContentBlock } from '../../workflows/transcript';
import { activityContextOrUndefined, heartbeatIntervalMs } from '../activity-context';
import { toModelFailure } from './model-errors';

export interface ModelActivityDependencies {
  /** Built by the worker from its own environment; the key never travels through history. */
  client: Anthropic;
}

export function createModelActivities({ client }: ModelActivityDependencies) {
  return {
    /** One model turn over the Messages API. Retries belong to Temporal, not to the SDK. */
    async callModel(input: ModelCallInput): Promise<ModelCallResult> {
      const context = activityContextOrUndefined();
      // Heartbeats let Temporal notice a dead worker long before the start-to-close timeout.
      const heartbeat = context
        ? setInterval(() => context.heartbeat(), heartbeatIntervalMs(context))
        : undefined;
      try {
        const tools = toolDefinitionsForModel(input.toolNames);
        const response = await client.messages.create(
          {
            model: input.model.name,
            max_tokens: input.model.maxTokens,
            system: input.system,
            messages: input.messages as Anthropic.MessageParam[],
            ...(tools.length > 0 ? { tools: tools as Anthropic.Tool[] } : {}),
            ...(input.model.temperature !== undefined ? { temperature: input.model.temperature } : {}),
          },
          context ? { signal: context.cancellationSignal } : {},
        );
        return toResult(response);
      } catch (error) {
        if (error instanceof ApplicationFailure) throw error;
        throw toModelFailure(error);
      } finally {
        if (heartbeat) clearInterval(heartbeat);
      }
    },
  };
}

function toResult(response: Anthropic.Message): ModelCallResult {
  if (!Array.isArray(response.content)) {
    throw ApplicationFailure.nonRetryable(
      'model response has no content array',
      FailureType.ModelResponseInvalid,
    );
  }
  // Only text and tool_use go into the transcript; other block kinds (thinking, server tools)
  // are dropped rather than replayed to endpoints that may not understand them.
  const content: ContentBlock[] = [];
  for (const block of response.content) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_use')
      content.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
  }
  const usage = response.usage;
  return {
    content,
    stopReason: response.stop_reason ?? null,
    model: response.model,
    usage: {
      inputTokens: usage?.input_tokens ?? 0,
      outputTokens: usage?.output_tokens ?? 0,
      cacheCreationInputTokens: usage?.cache_creation_input_tokens ?? 0,
      cacheReadInputTokens: usage?.cache_read_input_tokens ?? 0,
    },
  };
}
