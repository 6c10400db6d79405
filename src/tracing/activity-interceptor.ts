import * as otel from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { KeelAttribute, KeelSpan, usageAttributes, type SpanAttributes } from './span-attributes';

/**
 * A `keel.model_turn` span around each model activity and a `keel.tool_call` span around each
 * tool activity, children of the SDK's RunActivity span: the turn's tokens and estimated cost,
 * the call's tool, tier and whether it succeeded. Inputs are read defensively, so a change in an
 * activity's input shape loses an attribute, never the call.
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
    const base: SpanAttributes = goalId === undefined ? {} : { [KeelAttribute.GoalId]: goalId };
    if (type === 'callModel' || type === 'callStructured') {
      const model = (argument.model as { name?: unknown } | undefined)?.name;
      const attributes: SpanAttributes = { ...base };
      if (typeof model === 'string') attributes[KeelAttribute.Model] = model;
      if (typeof argument.turn === 'number') attributes[KeelAttribute.Turn] = argument.turn;
      return this.span(KeelSpan.ModelTurn, attributes, next, input, (result) => {
        const reply = (result ?? {}) as { usage?: unknown; model?: unknown; stopReason?: unknown };
        // Priced by the model asked for (the price table's names); the reply's when none was named.
        const priced =
          typeof model === 'string' ? model : typeof reply.model === 'string' ? reply.model : undefined;
        return {
          ...usageAttributes(reply.usage, priced),
          ...(typeof reply.stopReason === 'string' ? { [KeelAttribute.StopReason]: reply.stopReason } : {}),
        };
      });
    }
    if (type === 'executeTool') {
      const attributes: SpanAttributes = { ...base };
      if (typeof argument.toolName === 'string') attributes[KeelAttribute.ToolName] = argument.toolName;
      if (typeof argument.callId === 'string') attributes[KeelAttribute.ToolCallId] = argument.callId;
      if (typeof argument.reversibility === 'string') attributes[KeelAttribute.Tier] = argument.reversibility;
      return this.span(KeelSpan.ToolCall, attributes, next, input, (result): SpanAttributes => {
        const ok = (result as { ok?: unknown } | undefined)?.ok;
        return typeof ok === 'boolean' ? { [KeelAttribute.ToolOk]: ok } : {};
      });
    }
    return next(input);
  }

  private span(
    name: string,
    attributes: SpanAttributes,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
    input: ActivityExecuteInput,
    fromResult: (result: unknown) => SpanAttributes,
  ): Promise<unknown> {
    return this.tracer.startActiveSpan(name, { attributes }, async (span) => {
      try {
        const result = await next(input);
        span.setAttributes(fromResult(result));
        return result;
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
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
