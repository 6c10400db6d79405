export { createTracing, tracingFromEnv, KEEL_TRACING_WORKFLOW_MODULE, type KeelTracing } from './tracing';
export { processTracing } from './process-tracing';
export { TracingConfigError } from './tracing-settings';
export { KeelAttribute, KeelSpan } from './span-attributes';
