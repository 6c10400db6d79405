import {
  isGrpcCancelledError,
  isGrpcDeadlineError,
  isGrpcServiceError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { parseWorkerIdentity } from '../workflows/hosts/host-queues';
import { pollsBeyondItsBeats } from './host-liveness';
import { NO_WORKER_WAIT_MS, type NoWorker } from './no-worker';
import { taskQueuePollers } from './task-queue-pollers';
import { listKeelWorkers, millisecondsOf, workerLiveness } from './worker-heartbeats';

/** Both the client's Connection and the worker's NativeConnection have one. */
export interface PollerConnection {
  workflowService: Pick<temporal.api.workflowservice.v1.WorkflowService, 'describeTaskQueue' | 'listWorkers'>;
}

/**
 * Whether a worker may answer a goal's queries and Updates on `taskQueue` now. False only when the
 * server shows none can: nothing polls the queue's workflow tasks, or every keel worker that polled
 * it has stopped or stopped beating (the server lists a poller for minutes after it went away, its
 * beats say at once). A poller of another program, or pollers with no heartbeats to judge them by,
 * count as present: asking them costs at most NO_WORKER_WAIT_MS.
 */
export async function workersMayAnswer(options: {
  connection: PollerConnection;
  namespace: string;
  taskQueue: string;
  nowMs?: number;
}): Promise<boolean> {
  const { connection, namespace, taskQueue } = options;
  const [pollers, beats] = await Promise.all([
    taskQueuePollers({ connection, namespace, taskQueue, tasks: 'workflow' }).catch(() => undefined),
    listKeelWorkers({ connection, namespace, taskQueue }).catch(() => undefined),
  ]);
  if (pollers === undefined) return true; // cannot tell: ask, within the deadline
  const nowMs = options.nowMs ?? Date.now();
  // The SDK's own default interval, for a worker whose identity names none (an older keel).
  const beating = (beats ?? []).filter(
    (beat) => beat.taskQueue === taskQueue && workerLiveness(beat, nowMs, 60_000) === 'live',
  );
  if (beating.length > 0) return true;
  return pollers.some((poller) => {
    const keel = parseWorkerIdentity(poller.identity ?? '');
    if (keel === undefined || beats === undefined) return true;
    const lastPollMs = millisecondsOf(poller.lastAccessTime);
    return pollsBeyondItsBeats({ ...keel, ...(lastPollMs === undefined ? {} : { lastPollMs }) }, beats);
  });
}

/** A worker's answer, or why there is none. */
export type WorkerAnswer<T> = { answered: true; value: T } | { answered: false; noWorker: NoWorker };

/**
 * Asks a goal's worker (a query, an Update) for at most NO_WORKER_WAIT_MS, and not at all when
 * the task queue shows no worker (an Update sent then would wait on the server for one, and be
 * applied beside whatever the command does instead). Errors other than the wait are thrown.
 */
export async function askWorker<T>(options: {
  client: Client;
  workflowId: string;
  taskQueue: string;
  ask: () => Promise<T>;
  /** Already judged (keel pending judges each task queue once). */
  workersPresent?: boolean;
  /** How long to wait for a worker that polls; undefined: as long as the call takes (a move's Update). */
  waitMs?: number | undefined;
}): Promise<WorkerAnswer<T>> {
  const { client, workflowId, taskQueue } = options;
  const present =
    options.workersPresent ??
    (await workersMayAnswer({
      connection: client.connection,
      namespace: client.options.namespace,
      taskQueue,
    }));
  if (!present) return { answered: false, noWorker: { workflowId, taskQueue, seen: 'no-poller' } };
  const waitMs = 'waitMs' in options ? options.waitMs : NO_WORKER_WAIT_MS;
  try {
    const value = await (waitMs === undefined
      ? options.ask()
      : client.withDeadline(Date.now() + waitMs, options.ask));
    return { answered: true, value };
  } catch (error) {
    if (!isUnanswered(error)) throw error;
    const waited = waitMs === undefined || waitMs === NO_WORKER_WAIT_MS ? {} : { waitedMs: waitMs };
    return { answered: false, noWorker: { workflowId, taskQueue, seen: 'no-answer', ...waited } };
  }
}

/**
 * The wait was cut: the deadline passed (a query's or an Update's call), the call was cancelled,
 * or the server refused to wait, having seen no poller on the queue for a while.
 */
export function isUnanswered(error: unknown): boolean {
  return (
    error instanceof WorkflowUpdateRPCTimeoutOrCancelledError ||
    isGrpcDeadlineError(error) ||
    isGrpcCancelledError(error) ||
    serverSawNoPoller(error)
  );
}

/** gRPC's status code 9 (keel does not depend on @grpc/grpc-js for one number). */
const GRPC_FAILED_PRECONDITION = 9;

function serverSawNoPoller(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (
      isGrpcServiceError(cause) &&
      Number(cause.code) === GRPC_FAILED_PRECONDITION &&
      /no poller/i.test(cause.details)
    )
      return true;
  }
  return false;
}
