import type { LedgerEvent } from '../../workflows/common/ledger';

/**
 * A listener for a goal's ledger events (issue 5): the workflow hands new events to the
 * publishLedgerEvents activity, which passes them to every configured sink. Delivery is at least
 * once — a retried activity may send a batch again — so listeners dedupe by workflowId and the
 * event's sequence, which is unique and increasing within a goal.
 */
export interface LedgerSink {
  /** Names the sink in errors and in retry bookkeeping; unique among the configured sinks. */
  name: string;
  /** Resolves once the sink has the whole batch; rejects (for Temporal to retry) otherwise. */
  publish(batch: LedgerBatch): Promise<void>;
}

export interface LedgerBatch {
  workflowId: string;
  events: LedgerEvent[];
}

/** A sink configuration that cannot work; the message is one line naming what to fix. */
export class LedgerSinkConfigError extends Error {
  override readonly name = 'LedgerSinkConfigError';
}
