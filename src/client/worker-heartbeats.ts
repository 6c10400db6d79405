import { temporal } from '@temporalio/proto';
import { parseWorkerIdentity, type KeelWorkerIdentity } from '../workflows/hosts/host-queues';

/** Both the client's Connection and the worker's NativeConnection have one. */
export interface WorkerListingConnection {
  workflowService: Pick<temporal.api.workflowservice.v1.WorkflowService, 'listWorkers'>;
}

/** One keel worker (one task queue of one process) as Temporal's worker heartbeats describe it. */
export interface KeelWorkerBeat extends KeelWorkerIdentity {
  identity: string;
  taskQueue: string;
  /** Temporal's key for this worker (one per queue a process polls). */
  workerInstanceKey: string;
  status: 'running' | 'shutting-down' | 'shutdown' | 'unknown';
  /** When the worker last beat (epoch ms); undefined when the server has no beat yet. */
  heartbeatAtMs?: number;
  startedAtMs?: number;
}

const { WorkerStatus } = temporal.api.enums.v1;

/**
 * The keel workers Temporal's worker heartbeats know of (ListWorkers), optionally on one task
 * queue. Workers of other programs are left out. A worker killed without shutting down stays
 * listed as running with an old beat: judge it with `workerLiveness`.
 */
export async function listKeelWorkers(options: {
  connection: WorkerListingConnection;
  namespace: string;
  taskQueue?: string;
}): Promise<KeelWorkerBeat[]> {
  const { connection, namespace, taskQueue } = options;
  const query = taskQueue === undefined ? '' : `TaskQueue = ${JSON.stringify(taskQueue)}`;
  const beats: KeelWorkerBeat[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const response = await connection.workflowService.listWorkers({
      namespace,
      query,
      pageSize: 1000,
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    });
    // workersInfo carries the beat's time; the newer `workers` list does not (yet).
    for (const info of response.workersInfo ?? []) {
      const beat = info.workerHeartbeat;
      const identity = beat?.workerIdentity ?? '';
      const keel = parseWorkerIdentity(identity);
      if (beat === null || beat === undefined || keel === undefined) continue;
      const heartbeatAtMs = millisecondsOf(beat.heartbeatTime);
      const startedAtMs = millisecondsOf(beat.startTime);
      beats.push({
        ...keel,
        identity,
        taskQueue: beat.taskQueue ?? '',
        workerInstanceKey: beat.workerInstanceKey ?? '',
        status: statusOf(beat.status),
        ...(heartbeatAtMs === undefined ? {} : { heartbeatAtMs }),
        ...(startedAtMs === undefined ? {} : { startedAtMs }),
      });
    }
    nextPageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
  } while (nextPageToken !== undefined);
  return beats;
}

/** A beat may arrive this much after its interval (network, a busy event loop) and still count. */
export const HEARTBEAT_GRACE_MS = 2_000;

export type WorkerLiveness = 'live' | 'missing' | 'stopped';

/**
 * Whether a worker is alive at `nowMs`: stopped when it said so (a graceful shutdown), missing
 * when its last beat is older than its own interval (from its identity; `fallbackIntervalMs`
 * otherwise) plus the grace, live otherwise.
 */
export function workerLiveness(
  beat: KeelWorkerBeat,
  nowMs: number,
  fallbackIntervalMs: number,
): WorkerLiveness {
  if (beat.status === 'shutdown' || beat.status === 'shutting-down') return 'stopped';
  if (beat.heartbeatAtMs === undefined) return 'missing';
  const intervalMs = beat.heartbeatIntervalMs ?? fallbackIntervalMs;
  return nowMs - beat.heartbeatAtMs > intervalMs + HEARTBEAT_GRACE_MS ? 'missing' : 'live';
}

function statusOf(status: temporal.api.enums.v1.WorkerStatus | null | undefined): KeelWorkerBeat['status'] {
  switch (status) {
    case WorkerStatus.WORKER_STATUS_RUNNING:
      return 'running';
    case WorkerStatus.WORKER_STATUS_SHUTTING_DOWN:
      return 'shutting-down';
    case WorkerStatus.WORKER_STATUS_SHUTDOWN:
      return 'shutdown';
    default:
      return 'unknown';
  }
}

/** A protobuf Timestamp as epoch milliseconds; undefined when the server sent none. */
export function millisecondsOf(
  timestamp: { seconds?: unknown; nanos?: number | null } | null | undefined,
): number | undefined {
  if (!timestamp?.seconds) return undefined;
  return Number(timestamp.seconds) * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6);
}
