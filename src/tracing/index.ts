export {
  createTracing,
  processTracing,
  tracingFromEnv,
  TracingConfigError,
  KEEL_TRACING_WORKFLOW_MODULE,
  type KeelTracing,
} from './tracing';
export { KeelAttribute, KeelSpan } from './span-attributes';
