import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** One execution chain's history: every run that continue-as-new started, followed to the end. */
export interface ChainHistory {
  runs: number;
  events: number;
  bytes: number;
  largestRunEvents: number;
  largestRunBytes: number;
  /** Oldest first. */
  runIds: string[];
}

const EventType = temporal.api.enums.v1.EventType;

/**
 * Sums events and encoded bytes over the runs of a workflow, from its first run. Small pages keep
 * every response under the gRPC receive limit however large a run grows.
 */
export async function chainHistory(
  client: Client,
  workflowId: string,
  firstRunId: string,
): Promise<ChainHistory> {
  const total: ChainHistory = {
    runs: 0,
    events: 0,
    bytes: 0,
    largestRunEvents: 0,
    largestRunBytes: 0,
    runIds: [],
  };
  let runId: string | undefined = firstRunId;
  while (runId) {
    const run = await runHistory(client, workflowId, runId);
    total.runs += 1;
    total.runIds.push(runId);
    total.events += run.events;
    total.bytes += run.bytes;
    total.largestRunEvents = Math.max(total.largestRunEvents, run.events);
    total.largestRunBytes = Math.max(total.largestRunBytes, run.bytes);
    runId = run.continuedAs;
  }
  return total;
}

/** A run's history events, a small page at a time (every response stays under the gRPC receive limit). */
async function* eventsOf(
  client: Client,
  workflowId: string,
  runId: string,
): AsyncGenerator<temporal.api.history.v1.IHistoryEvent> {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse =
      await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        maximumPageSize: 50,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
    yield* page.history?.events ?? [];
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
}

async function runHistory(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<{ events: number; bytes: number; continuedAs: string | undefined }> {
  let events = 0;
  let bytes = 0;
  let continuedAs: string | undefined;
  for await (const event of eventsOf(client, workflowId, runId)) {
    events += 1;
    bytes += temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) {
      continuedAs = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
  }
  return { events, bytes, continuedAs };
}

/** The first run of a workflow's chain, from its latest run's start event. */
export async function firstRunIdOf(client: Client, workflowId: string): Promise<string> {
  const page = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId },
    maximumPageSize: 1,
  });
  const started = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  return started?.firstExecutionRunId ?? '';
}

/** The child workflows a chain's runs started (a keel goal's delegations), in the order started. */
export async function childrenOf(
  client: Client,
  workflowId: string,
  runIds: readonly string[],
): Promise<Array<{ workflowId: string; runId: string }>> {
  const children: Array<{ workflowId: string; runId: string }> = [];
  for (const runId of runIds) {
    for await (const event of eventsOf(client, workflowId, runId)) {
      const child = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (child?.workflowId && child.runId)
        children.push({ workflowId: child.workflowId, runId: child.runId });
    }
  }
  return children;
}
