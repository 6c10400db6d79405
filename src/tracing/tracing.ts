import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { SimplePlugin } from '@temporalio/plugin';
import { KeelActivityTracing } from './activity-interceptor';
import { tracingExporters } from './tracing-settings';

export { TracingConfigError } from './tracing-settings';

/**
 * OpenTelemetry for keel: the SDK's interceptors (@temporalio/interceptors-opentelemetry) on client
 * and worker, plus keel's own spans — `keel.goal` per run of a goal (workflow side, exported
 * through the SDK's replay-safe sink), `keel.model_turn` and `keel.tool_call` per activity — with
 * token, cost and tier attributes. Both are Temporal plugins, so a bundle built ahead
 * (bundleWorkflowCode with `plugins`) carries the workflow interceptors too.
 */
export interface KeelTracing {
  /** For Worker.create, bundleWorkflowCode and the Client: the SDK's plugin, then keel's. */
  readonly plugins: readonly SimplePlugin[];
  /** Exports what is buffered now. */
  flush(): Promise<void>;
  /** Exports what is still buffered and stops the exporters; call before the process ends. */
  shutdown(): Promise<void>;
}

/** Workflow interceptor module with keel's goal span (bundled with the workflow code). */
export const KEEL_TRACING_WORKFLOW_MODULE = require.resolve('./workflow-interceptors');

export function createTracing(options: {
  spanProcessors: readonly SpanProcessor[];
  serviceName?: string;
}): KeelTracing {
  const resource = new Resource({ 'service.name': options.serviceName ?? 'keel' });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [...options.spanProcessors] });
  registerContextOnce();
  const tracer = provider.getTracer('keel');
  // One processor the workflow sink feeds: every configured processor gets workflow spans too.
  const fanOut: SpanProcessor = {
    onStart: (span, context) =>
      options.spanProcessors.forEach((processor) => processor.onStart(span, context)),
    onEnd: (span) => options.spanProcessors.forEach((processor) => processor.onEnd(span)),
    forceFlush: async () =>
      void (await Promise.all(options.spanProcessors.map((processor) => processor.forceFlush()))),
    shutdown: async () =>
      void (await Promise.all(options.spanProcessors.map((processor) => processor.shutdown()))),
  };
  const temporalPlugin = new OpenTelemetryPlugin({ resource, spanProcessor: fanOut, tracer });
  const keelPlugin = new SimplePlugin({
    name: 'KeelTracingPlugin',
    workerInterceptors: {
      activity: [(context) => ({ inbound: new KeelActivityTracing(context, tracer) })],
      workflowModules: [KEEL_TRACING_WORKFLOW_MODULE],
    },
  });
  return {
    plugins: [temporalPlugin, keelPlugin],
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Tracing as the standard OTEL_* variables ask: OTEL_TRACES_EXPORTER (a comma list of `console`,
 * `otlp`, `none`) and, for OTLP, the exporter's own OTEL_EXPORTER_OTLP_* variables;
 * OTEL_SERVICE_NAME names the service. Unlike the SDK default (otlp), tracing is off when
 * OTEL_TRACES_EXPORTER is unset and no OTLP endpoint is configured: keel then sends nothing.
 */
export function tracingFromEnv(env: NodeJS.ProcessEnv = process.env): KeelTracing | undefined {
  const exporters = tracingExporters(env);
  if (exporters.length === 0) return undefined;
  const processors = exporters.map((name): SpanProcessor => {
    const exporter: SpanExporter = name === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
    return name === 'console' ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  });
  return createTracing({
    spanProcessors: processors,
    ...(env.OTEL_SERVICE_NAME ? { serviceName: env.OTEL_SERVICE_NAME } : {}),
  });
}

let contextRegistered = false;

/**
 * Context in Node: spans follow async calls (AsyncLocalStorage), and trace context travels in
 * Temporal headers (W3C). Global, so registered once; an application that registered its own
 * keeps it (the API refuses a second registration).
 */
function registerContextOnce(): void {
  if (contextRegistered) return;
  contextRegistered = true;
  otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  otel.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}
