import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type { LedgerEvent } from '../../workflows/common/ledger';
import { activityContextOrUndefined } from '../activity-context';
import type { LedgerSink } from './ledger-sink';

/** Stable `ApplicationFailure.type` names raised by publishLedgerEvents. */
export const LedgerSinkFailureType = {
  /** At least one sink did not take the batch; retryable, and a retry skips the sinks that did. */
  DeliveryFailed: 'LedgerDeliveryFailed',
} as const;
export type LedgerSinkFailureType = (typeof LedgerSinkFailureType)[keyof typeof LedgerSinkFailureType];

export interface PublishLedgerEventsInput {
  workflowId: string;
  events: LedgerEvent[];
}

export interface PublishLedgerEventsResult {
  /** How many sinks hold the batch, counting those that took it on an earlier attempt. */
  delivered: number;
}

/** The slice of the activity context used to remember, across retries, who has the batch. */
export interface DeliveryContext {
  readonly info: { readonly heartbeatDetails: unknown };
  heartbeat(details?: unknown): void;
}

export interface LedgerSinkActivityDependencies {
  sinks: readonly LedgerSink[];
  /** The current activity's context by default; undefined outside an activity. */
  context?: () => DeliveryContext | undefined;
}

const DeliveryDetailsSchema = z.object({ deliveredSinks: z.array(z.string()) });

export function createLedgerSinkActivities(dependencies: LedgerSinkActivityDependencies) {
  const sinks = [...dependencies.sinks];
  const currentContext = dependencies.context ?? activityContextOrUndefined;
  const names = new Set<string>();
  for (const sink of sinks) {
    // Names key the retry bookkeeping below: two sinks with one name would hide a failure.
    if (names.has(sink.name)) throw new TypeError(`two ledger sinks are named ${JSON.stringify(sink.name)}`);
    names.add(sink.name);
  }

  /**
   * Hands a batch to every sink at once, so a slow sink delays no other. Every sink is
   * attempted; if any failed, the activity fails naming them, after the others have the batch.
   * Which sinks succeeded is kept in the heartbeat details (the SDK flushes them with the
   * failure), so Temporal's retry only repeats the failed ones. The workflow starts this
   * activity without awaiting it, so a slow or failing listener never blocks the goal.
   */
  async function publishLedgerEvents(input: PublishLedgerEventsInput): Promise<PublishLedgerEventsResult> {
    if (input.events.length === 0 || sinks.length === 0) return { delivered: 0 };
    const context = currentContext();
    const earlier = DeliveryDetailsSchema.safeParse(context?.info.heartbeatDetails);
    const delivered = new Set(
      (earlier.success ? earlier.data.deliveredSinks : []).filter((name) => names.has(name)),
    );
    const pending = sinks.filter((sink) => !delivered.has(sink.name));
    const batch = { workflowId: input.workflowId, events: input.events };
    // Promise.resolve().then(): a sink that throws synchronously still counts as one failure.
    const outcomes = await Promise.allSettled(
      pending.map((sink) => Promise.resolve().then(() => sink.publish(batch))),
    );
    const failures: string[] = [];
    outcomes.forEach((outcome, index) => {
      const sink = pending[index];
      if (!sink) return;
      if (outcome.status === 'fulfilled') delivered.add(sink.name);
      else failures.push(`${sink.name}: ${firstLine(outcome.reason)}`);
    });
    context?.heartbeat({ deliveredSinks: [...delivered] });
    if (failures.length > 0) {
      throw ApplicationFailure.retryable(
        `ledger sinks failed (${failures.length} of ${sinks.length}): ${failures.join('; ')}`,
        LedgerSinkFailureType.DeliveryFailed,
      );
    }
    return { delivered: delivered.size };
  }

  // A plain function, not a method: the worker registers activities detached from this object.
  return { publishLedgerEvents };
}

export type LedgerSinkActivities = ReturnType<typeof createLedgerSinkActivities>;

function firstLine(reason: unknown): string {
  const message = reason instanceof Error ? reason.message : String(reason);
  return message.split('\n')[0] ?? message;
}
