import * as otel from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import {
  chatSpanName,
  executeToolSpanName,
  GEN_AI_PROVIDER,
  GenAiAttribute,
  errorType,
  GenAiOperation,
} from './gen-ai-conventions';
import { KeelAttribute, usageAttributes, type SpanAttributes } from './span-attributes';

/**
 * A `chat {model}` span around each model activity and an `execute_tool {tool}` span around each
 * tool activity, children of the SDK's RunActivity span, named and attributed as OpenTelemetry's
 * GenAI conventions ask (gen-ai-conventions.ts) with keel's own attributes beside: the turn's
 * tokens and estimated cost, the call's tool, tier and whether it succeeded. Inputs are read
 * defensively, so a change in an activity's input shape loses an attribute, never the call.
 */
export class KeelActivityTracing implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly context: ActivityContext,
    private readonly tracer: otel.Tracer,
  ) {}

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const type = this.context.info.activityType;
    const argument = (input.args[0] ?? {}) as Record<string, unknown>;
    const goalId = this.context.info.workflowExecution?.workflowId;
    const base: SpanAttributes =
      goalId === undefined ? {} : { [KeelAttribute.GoalId]: goalId, [GenAiAttribute.ConversationId]: goalId };
    if (type === 'callModel' || type === 'callStructured') {
      const settings = (argument.model ?? {}) as {
        name?: unknown;
        maxTokens?: unknown;
        temperature?: unknown;
      };
      const model = typeof settings.name === 'string' ? settings.name : undefined;
      // Operation, provider and model at creation: the conventions ask for them there (sampling).
      const attributes: SpanAttributes = {
        ...base,
        [GenAiAttribute.OperationName]: GenAiOperation.Chat,
        [GenAiAttribute.ProviderName]: GEN_AI_PROVIDER,
      };
      if (model !== undefined) attributes[GenAiAttribute.RequestModel] = model;
      if (typeof settings.maxTokens === 'number')
        attributes[GenAiAttribute.RequestMaxTokens] = settings.maxTokens;
      // callStructured sends no temperature whatever the settings say, so only callModel's counts.
      if (type === 'callModel' && typeof settings.temperature === 'number')
        attributes[GenAiAttribute.RequestTemperature] = settings.temperature;
      if (typeof argument.turn === 'number') attributes[KeelAttribute.Turn] = argument.turn;
      if (typeof argument.purpose === 'string') attributes[KeelAttribute.Purpose] = argument.purpose;
      const kind = otel.SpanKind.CLIENT; // the model runs in another process (the conventions' advice)
      return this.span(chatSpanName(model), kind, attributes, next, input, (result) => {
        const reply = (result ?? {}) as { usage?: unknown; model?: unknown; stopReason?: unknown };
        const answered = typeof reply.model === 'string' ? reply.model : undefined;
        // Priced by the model asked for (the price table's names); the reply's when none was named.
        return {
          ...usageAttributes(reply.usage, model ?? answered),
          ...(answered === undefined ? {} : { [GenAiAttribute.ResponseModel]: answered }),
          ...(typeof reply.stopReason === 'string'
            ? {
                [GenAiAttribute.ResponseFinishReasons]: [reply.stopReason],
                [KeelAttribute.StopReason]: reply.stopReason,
              }
            : {}),
        };
      });
    }
    if (type === 'executeTool') {
      const tool = typeof argument.toolName === 'string' ? argument.toolName : undefined;
      const attributes: SpanAttributes = {
        ...base,
        [GenAiAttribute.OperationName]: GenAiOperation.ExecuteTool,
      };
      if (tool !== undefined) {
        attributes[GenAiAttribute.ToolName] = tool;
        attributes[KeelAttribute.ToolName] = tool;
      }
      if (typeof argument.callId === 'string') {
        attributes[GenAiAttribute.ToolCallId] = argument.callId;
        attributes[KeelAttribute.ToolCallId] = argument.callId;
      }
      if (typeof argument.reversibility === 'string') attributes[KeelAttribute.Tier] = argument.reversibility;
      const kind = otel.SpanKind.INTERNAL;
      return this.span(executeToolSpanName(tool), kind, attributes, next, input, (result): SpanAttributes => {
        const ok = (result as { ok?: unknown } | undefined)?.ok;
        return typeof ok === 'boolean' ? { [KeelAttribute.ToolOk]: ok } : {};
      });
    }
    return next(input);
  }

  private span(
    name: string,
    kind: otel.SpanKind,
    attributes: SpanAttributes,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
    input: ActivityExecuteInput,
    fromResult: (result: unknown) => SpanAttributes,
  ): Promise<unknown> {
    return this.tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
      try {
        const result = await next(input);
        span.setAttributes(fromResult(result));
        return result;
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setAttribute(GenAiAttribute.ErrorType, errorType(error));
        span.setStatus({
          code: otel.SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
        throw error;
      } finally {
        span.end();
      }
    });
  }
}
