import type { temporal } from '@temporalio/proto';
import {
  hostIdOfIdentity,
  hostTaskQueue,
  parseWorkerIdentity,
  type KeelWorkerIdentity,
} from '../workflows/hosts/host-queues';
import {
  hostServingStates,
  hostsLiveness,
  pollsBeyondItsBeats,
  withStartingWorkers,
  type HostLiveness,
  type SeenHost,
} from './host-liveness';
import { runningGoalsByHost } from './host-goals';
import { taskQueuePollers } from './task-queue-pollers';
import { listKeelWorkers, millisecondsOf, type KeelWorkerBeat } from './worker-heartbeats';

/** Both the client's Connection and the worker's NativeConnection have one. */
export interface TaskQueueConnection {
  workflowService: Pick<
    temporal.api.workflowservice.v1.WorkflowService,
    'describeTaskQueue' | 'listWorkers' | 'listWorkflowExecutions'
  >;
}

/** What `keel hosts` shows: hosts judged by their heartbeats, or, where the server has none, by their polls. */
export type HostsListing =
  { source: 'heartbeats'; hosts: HostLiveness[] } | { source: 'pollers'; hosts: ServingHost[]; note: string };

/**
 * The keel hosts of a shared task queue, judged by Temporal's worker heartbeats (ListWorkers):
 * each with its instances and whether it is live, missing or stopped (host-liveness.ts), and,
 * with `countGoals`, the running goals bound to it (search attribute KeelHost), which keeps a
 * missing host listed as long as a goal needs it. On a server that cannot list workers (or lists
 * none while pollers are there: heartbeats turned off), the hosts seen polling instead, with a
 * note saying why.
 */
export async function hostsServing(options: {
  connection: TaskQueueConnection;
  namespace: string;
  taskQueue: string;
  countGoals?: boolean;
  /** For workers whose identity names no interval (older keel): the SDK's own default. */
  fallbackIntervalMs?: number;
  nowMs?: number;
}): Promise<HostsListing> {
  const { connection, namespace, taskQueue } = options;
  let unavailable: string;
  // When no worker beats at all, the goals' hosts are all missing, unless pollers show that the
  // server only has heartbeats turned off.
  let noneBeating: HostLiveness[] | undefined;
  try {
    const [beats, goals] = await Promise.all([
      listKeelWorkers({ connection, namespace, taskQueue }),
      // Uncounted when visibility cannot say (KeelHost not registered): the hosts are still listed.
      options.countGoals
        ? runningGoalsByHost({ connection, namespace, taskQueue }).catch(() => undefined)
        : undefined,
    ]);
    const hosts = hostsLiveness({
      beats,
      sharedTaskQueue: taskQueue,
      nowMs: options.nowMs ?? Date.now(),
      fallbackIntervalMs: options.fallbackIntervalMs ?? 60_000,
      ...(goals === undefined ? {} : { runningGoalsByHost: goals }),
    });
    if (beats.length > 0) {
      const starting = await workersStartingSince(beats, { connection, namespace, taskQueue });
      return {
        source: 'heartbeats',
        hosts: withStartingWorkers({
          hosts,
          starting,
          sharedTaskQueue: taskQueue,
          goalsCounted: goals !== undefined,
        }),
      };
    }
    noneBeating = hosts;
    unavailable = 'the server lists no worker heartbeats';
  } catch (error) {
    unavailable = `the server cannot list workers: ${firstLine(error)}`;
  }
  const polling = await hostsPolling({ connection, namespace, taskQueue });
  if (polling.length === 0 && noneBeating !== undefined) return { source: 'heartbeats', hosts: noneBeating };
  return {
    source: 'pollers',
    hosts: polling,
    note: `${unavailable}: hosts read off the task queue's pollers, where a host that went away stays listed for about five minutes`,
  };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/**
 * The keel workers polling `taskQueue` beyond their beats: started (or made again) since, so
 * their first beat is still to come. None when the pollers cannot be read.
 */
async function workersStartingSince(
  beats: readonly KeelWorkerBeat[],
  options: Parameters<typeof pollersOf>[0],
): Promise<KeelWorkerIdentity[]> {
  const polling = pollingWorkers(await pollersOf(options).catch(() => []));
  return polling.filter((worker) => pollsBeyondItsBeats(worker, beats));
}

/** The keel workers among `pollers`, each with when it last polled where the server says. */
function pollingWorkers(
  pollers: readonly temporal.api.taskqueue.v1.IPollerInfo[],
): Array<KeelWorkerIdentity & { lastPollMs?: number }> {
  return pollers.flatMap((poller) => {
    const identity = parseWorkerIdentity(poller.identity ?? '');
    const lastPollMs = millisecondsOf(poller.lastAccessTime);
    return identity === undefined
      ? []
      : [{ ...identity, ...(lastPollMs === undefined ? {} : { lastPollMs }) }];
  });
}

/** A keel host seen polling a task queue. */
export interface ServingHost {
  hostId: string;
  /** The queue of the host's own (hostTaskQueue), where its workspace activities go. */
  hostTaskQueue: string;
  /**
   * When one of its workers last began a poll of the shared queue (ISO 8601), when the server
   * says. A poll waits up to a minute for a task, so an idle host's may be that old.
   */
  lastPolledAt?: string;
}

/**
 * The keel hosts polling a shared task queue (where worker heartbeats cannot be read), sorted by host id: read off the pollers of its
 * workflow and activity tasks (DescribeTaskQueue), whose identities name their host
 * (workerIdentity). Pollers of other programs are left out. The server forgets a poller about
 * five minutes after its last poll, so a host that just went away may still be listed.
 */
export async function hostsPolling(options: {
  connection: { workflowService: Pick<TaskQueueConnection['workflowService'], 'describeTaskQueue'> };
  namespace: string;
  taskQueue: string;
}): Promise<ServingHost[]> {
  const { taskQueue } = options;
  const lastPolled = new Map<string, number | undefined>();
  for (const poller of await pollersOf(options)) {
    const hostId = hostIdOfIdentity(poller.identity ?? '');
    if (hostId === undefined) continue;
    const at = millisecondsOf(poller.lastAccessTime);
    const known = lastPolled.get(hostId);
    lastPolled.set(hostId, known === undefined ? at : at === undefined ? known : Math.max(known, at));
  }
  return [...lastPolled.keys()].sort().map((hostId) => {
    const at = lastPolled.get(hostId);
    return {
      hostId,
      hostTaskQueue: hostTaskQueue(taskQueue, hostId),
      ...(at === undefined ? {} : { lastPolledAt: new Date(at).toISOString() }),
    };
  });
}

/** The pollers of a task queue's workflow and activity tasks (DescribeTaskQueue). */
async function pollersOf(options: {
  connection: { workflowService: Pick<TaskQueueConnection['workflowService'], 'describeTaskQueue'> };
  namespace: string;
  taskQueue: string;
}): Promise<temporal.api.taskqueue.v1.IPollerInfo[]> {
  const kinds = ['workflow', 'activity'] as const;
  const lists = await Promise.all(kinds.map((tasks) => taskQueuePollers({ ...options, tasks })));
  return lists.flat();
}

/**
 * The hosts a goal asks about its workspace as it starts (the listHosts activity): the live ones.
 * A worker polls before its first beat reaches the server, so a worker instance seen polling that
 * the heartbeats do not list yet counts as live; a host whose every listed worker is dead or
 * stopped is left out, although the server still lists its polls for minutes. Where heartbeats
 * cannot be read, every host seen polling.
 */
export async function hostsToAsk(options: {
  connection: TaskQueueConnection;
  namespace: string;
  taskQueue: string;
  nowMs?: number;
}): Promise<string[]> {
  const { connection, namespace, taskQueue } = options;
  const [beats, pollers] = await Promise.all([
    listKeelWorkers({ connection, namespace, taskQueue }).catch(() => undefined),
    pollersOf(options),
  ]);
  const polling = pollingWorkers(pollers);
  if (beats === undefined) return [...new Set(polling.map((identity) => identity.hostId))].sort();
  const states = hostServingStates({
    beats,
    sharedTaskQueue: taskQueue,
    nowMs: options.nowMs ?? Date.now(),
    fallbackIntervalMs: 60_000,
  });
  const hosts = new Set(
    [...states].filter(([, serving]) => serving.state === 'live').map(([hostId]) => hostId),
  );
  for (const poller of polling) if (pollsBeyondItsBeats(poller, beats)) hosts.add(poller.hostId);
  return [...hosts].sort();
}

/**
 * Reads the worker heartbeats once and tells, for a goal's host, whether it is live: what
 * `keel status` and `keel pending` check themselves, so they are right before a host watcher's
 * signal reaches the goal. undefined when the heartbeats cannot be read or the server lists none
 * at all (heartbeats off): then only what the goal recorded is known. A host the heartbeats call
 * missing (or do not list) while one of its workers polls its queue beyond its last beat has just
 * started (its first beat comes one interval after the start): that is no loss either.
 */
export async function hostSightings(options: {
  connection: TaskQueueConnection;
  namespace: string;
  nowMs?: number;
}): Promise<(host: { id: string; queue: string }) => Promise<SeenHost | 'no-worker' | undefined>> {
  let beats: KeelWorkerBeat[];
  try {
    beats = await listKeelWorkers({ connection: options.connection, namespace: options.namespace });
  } catch {
    return () => Promise.resolve(undefined);
  }
  if (beats.length === 0) return () => Promise.resolve(undefined);
  const nowMs = options.nowMs ?? Date.now();
  return async (host) => {
    const sharedTaskQueue = host.queue.endsWith(`@${host.id}`)
      ? host.queue.slice(0, -`@${host.id}`.length)
      : host.queue;
    const own = beats.filter((beat) => beat.hostId === host.id);
    const [seen] = hostsLiveness({
      beats: own,
      sharedTaskQueue,
      nowMs,
      fallbackIntervalMs: 60_000,
      runningGoalsByHost: { [host.id]: 1 }, // the goal asking needs it: listed however long dead
    });
    const sighting: SeenHost | 'no-worker' =
      seen === undefined || seen.instances.length === 0
        ? 'no-worker'
        : {
            state: seen.state,
            ...(seen.missingSince === undefined ? {} : { missingSince: seen.missingSince }),
          };
    if (sighting !== 'no-worker' && sighting.state !== 'missing') return sighting;
    const pollers = await pollersOf({ ...options, taskQueue: host.queue }).catch(() => []);
    const startedSince = pollingWorkers(pollers).some(
      (worker) => worker.hostId === host.id && pollsBeyondItsBeats(worker, own),
    );
    return startedSince ? undefined : sighting;
  };
}
