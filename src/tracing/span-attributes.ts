import { estimateUsd, inputTokensOfAllKinds } from '../workflows/principles/cost';
import { GenAiAttribute } from './gen-ai-conventions';

/**
 * keel's own attribute keys, set beside the GenAI conventions' (gen-ai-conventions.ts) on the
 * same spans, shared by the activity side and the workflow side, and the pure functions that turn
 * keel's values into attributes. No I/O: the workflow bundle imports this file.
 */
export const KeelAttribute = {
  GoalId: 'keel.goal.id',
  GoalStatus: 'keel.goal.status',
  GoalContinuedAsNew: 'keel.goal.continued_as_new',
  ModelTurns: 'keel.model_turns',
  ToolCalls: 'keel.tool_calls',
  ToolCallsReadOnly: 'keel.tool_calls.read_only',
  ToolCallsMutating: 'keel.tool_calls.mutating',
  ToolCallsIrreversible: 'keel.tool_calls.irreversible',
  Turn: 'keel.model.turn',
  /** What a structured call was for (a plan, a review, a reflection). */
  Purpose: 'keel.model.purpose',
  StopReason: 'keel.model.stop_reason',
  CacheCreationTokens: 'keel.usage.cache_creation_input_tokens',
  CacheReadTokens: 'keel.usage.cache_read_input_tokens',
  CostUsd: 'keel.cost.usd',
  ToolName: 'keel.tool.name',
  ToolCallId: 'keel.tool.call_id',
  Tier: 'keel.tool.tier',
  ToolOk: 'keel.tool.ok',
} as const;

interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
}

export type SpanAttributeValue = string | number | boolean | string[];
export type SpanAttributes = Record<string, SpanAttributeValue>;

/** Tokens and the estimated cost (keel's price table) of a usage record; none when it is not one. */
export function usageAttributes(usage: unknown, model: string | undefined): SpanAttributes {
  if (!isUsage(usage)) return {};
  const attributes: SpanAttributes = {
    // The GenAI conventions count every input token here, cached ones included (Anthropic's
    // input_tokens leaves them out); the cache attributes say how many the cache wrote and served.
    [GenAiAttribute.InputTokens]: inputTokensOfAllKinds(usage),
    [GenAiAttribute.OutputTokens]: usage.outputTokens,
    [GenAiAttribute.CacheCreationInputTokens]: usage.cacheCreationInputTokens,
    [GenAiAttribute.CacheReadInputTokens]: usage.cacheReadInputTokens,
    // keel's names from before the conventions had cache attributes, kept for existing queries.
    [KeelAttribute.CacheCreationTokens]: usage.cacheCreationInputTokens,
    [KeelAttribute.CacheReadTokens]: usage.cacheReadInputTokens,
  };
  if (model !== undefined) {
    const estimate = estimateUsd({ usage, model });
    if (estimate.priced) attributes[KeelAttribute.CostUsd] = estimate.usd;
  }
  return attributes;
}

/** A goal's totals, from what its run returned (a GoalResult) or carried on (its state). */
export function goalAttributes(value: unknown, model: string | undefined): SpanAttributes {
  if (typeof value !== 'object' || value === null) return {};
  const record = value as Record<string, unknown>;
  const attributes: SpanAttributes = { ...usageAttributes(record.usage, model) };
  if (typeof record.status === 'string') attributes[KeelAttribute.GoalStatus] = record.status;
  const counters = record.counters as Record<string, unknown> | undefined;
  if (typeof counters?.modelTurns === 'number') attributes[KeelAttribute.ModelTurns] = counters.modelTurns;
  if (typeof counters?.toolCalls === 'number') attributes[KeelAttribute.ToolCalls] = counters.toolCalls;
  const tiers = counters?.toolCallsByReversibility as Record<string, unknown> | undefined;
  if (typeof tiers?.['read-only'] === 'number')
    attributes[KeelAttribute.ToolCallsReadOnly] = tiers['read-only'];
  if (typeof tiers?.mutating === 'number') attributes[KeelAttribute.ToolCallsMutating] = tiers.mutating;
  if (typeof tiers?.irreversible === 'number')
    attributes[KeelAttribute.ToolCallsIrreversible] = tiers.irreversible;
  return attributes;
}

function isUsage(value: unknown): value is Usage {
  if (typeof value !== 'object' || value === null) return false;
  const usage = value as Record<string, unknown>;
  return (
    typeof usage.inputTokens === 'number' &&
    typeof usage.outputTokens === 'number' &&
    typeof usage.cacheCreationInputTokens === 'number' &&
    typeof usage.cacheReadInputTokens === 'number'
  );
}
