/**
 * keel's workflow interceptor module (bundled into the workflow code, so no I/O here): one
 * `keel.goal` span per run of a goal, with the goal's tokens, estimated cost and tool calls by
 * tier. It runs inside the SDK's OpenTelemetry interceptors, whose tracer provider and span
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
import { goalAttributes, KeelAttribute, KeelSpan } from './span-attributes';

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
    return tracer.startActiveSpan(KeelSpan.Goal, async (span) => {
      span.setAttribute(KeelAttribute.GoalId, workflowInfo().workflowId);
      try {
        const result = await next(input);
        span.setAttributes(goalAttributes(result, model));
        return result;
      } catch (error) {
        if (error instanceof ContinueAsNew) {
          span.setAttribute(KeelAttribute.GoalContinuedAsNew, true);
          span.setAttributes(goalAttributes(this.carried, model));
        } else {
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
