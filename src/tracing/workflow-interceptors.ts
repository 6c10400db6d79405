/**
 * keel's workflow interceptor module (bundled into the workflow code, so no I/O here): one
 * `invoke_agent keel` span per run of a goal (the GenAI conventions' agent span,
 * gen-ai-conventions.ts), with the goal's tokens, estimated cost and tool calls by tier. It runs inside the SDK's OpenTelemetry interceptors, whose tracer provider and span
 * exporter sink (replay-safe: not called on replay) it uses.
 */
import * as otel from '@opentelemetry/api';
import {
  ContinueAsNew,
  workflowInfo,
  type ContinueAsNewInput,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import {
  GEN_AI_AGENT_NAME,
  errorType,
  GEN_AI_PROVIDER,
  GenAiAttribute,
  GenAiOperation,
  INVOKE_AGENT_SPAN_NAME,
} from './gen-ai-conventions';
import { goalAttributes, KeelAttribute } from './span-attributes';

/** The goal's input, as far as tracing needs it (the model's name prices the tokens). */
function modelOf(args: unknown[]): string | undefined {
  const input = args[0] as { model?: { name?: unknown } } | undefined;
  return typeof input?.model?.name === 'string' ? input.model.name : 'claude-sonnet-4-6';
}

class GoalSpan implements WorkflowInboundCallsInterceptor, WorkflowOutboundCallsInterceptor {
  private carried: unknown;

  async execute(
    input: WorkflowExecuteInput,
    next: Next<WorkflowInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    if (workflowInfo().workflowType !== 'goalWorkflow') return next(input);
    const tracer = otel.trace.getTracer('keel');
    const model = modelOf(input.args);
    const goalId = workflowInfo().workflowId;
    const attributes = {
      [GenAiAttribute.OperationName]: GenAiOperation.InvokeAgent,
      [GenAiAttribute.ProviderName]: GEN_AI_PROVIDER,
      [GenAiAttribute.AgentName]: GEN_AI_AGENT_NAME,
      [GenAiAttribute.ConversationId]: goalId,
      ...(model === undefined ? {} : { [GenAiAttribute.RequestModel]: model }),
      [KeelAttribute.GoalId]: goalId,
    };
    // INTERNAL: the agent runs here, in the workflow, not behind a remote call.
    const options = { kind: otel.SpanKind.INTERNAL, attributes };
    return tracer.startActiveSpan(INVOKE_AGENT_SPAN_NAME, options, async (span) => {
      try {
        const result = await next(input);
        span.setAttributes(goalAttributes(result, model));
        return result;
      } catch (error) {
        if (error instanceof ContinueAsNew) {
          span.setAttribute(KeelAttribute.GoalContinuedAsNew, true);
          span.setAttributes(goalAttributes(this.carried, model));
        } else {
          span.setAttribute(GenAiAttribute.ErrorType, errorType(error));
          span.setStatus({ code: otel.SpanStatusCode.ERROR, message: String(error) });
        }
        throw error;
      } finally {
        span.end();
      }
    });
  }

  async continueAsNew(
    input: ContinueAsNewInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>,
  ): Promise<never> {
    this.carried = input.args[1]; // the carried goal state: usage and counters so far
    return next(input);
  }
}

export const interceptors = (): WorkflowInterceptors => {
  const goal = new GoalSpan();
  return { inbound: [goal], outbound: [goal] };
};
