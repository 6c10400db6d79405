export { LedgerSinkConfigError, type LedgerBatch, type LedgerSink } from './ledger-sink';
export { STDOUT_SINK_NAME, createStdoutSink, type StdoutSinkOptions } from './stdout-sink';
export {
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  createWebhookSink,
  parseWebhookUrl,
  webhookSinkName,
  type WebhookSinkOptions,
} from './webhook-sink';
export {
  LEDGER_SINKS_VARIABLE,
  ledgerSinksFromEnv,
  type LedgerSinkDependencies,
} from './ledger-sinks-from-env';
export {
  LedgerSinkFailureType,
  createLedgerSinkActivities,
  type DeliveryContext,
  type LedgerSinkActivities,
  type LedgerSinkActivityDependencies,
  type PublishLedgerEventsInput,
  type PublishLedgerEventsResult,
} from './ledger-sink-activities';
