export { createTracing, tracingFromEnv, KEEL_TRACING_WORKFLOW_MODULE, type KeelTracing } from './tracing';
export { processTracing } from './process-tracing';
export { TracingConfigError } from './tracing-settings';
export { KeelAttribute } from './span-attributes';
export {
  chatSpanName,
  executeToolSpanName,
  GEN_AI_AGENT_NAME,
  GEN_AI_PROVIDER,
  GenAiAttribute,
  GenAiOperation,
  INVOKE_AGENT_SPAN_NAME,
} from './gen-ai-conventions';
