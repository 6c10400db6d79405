import { hostTaskQueue } from '../workflows/hosts/host-queues';
import { workerLiveness, type KeelWorkerBeat, type WorkerLiveness } from './worker-heartbeats';

/**
 * Which keel hosts are alive, judged from Temporal's worker heartbeats (ListWorkers) alone: pure,
 * so `keel hosts`, `keel status`, `keel pending` and the workers' host watcher decide alike and
 * tests need no server.
 */

/** One worker process of a host, as its shared-queue worker beats. */
export interface HostInstance {
  instanceId?: string;
  machine?: string;
  pid?: number;
  state: WorkerLiveness;
  /** Whole seconds since its last beat; absent when the server has none yet. */
  secondsSinceBeat?: number;
}

export interface HostLiveness {
  hostId: string;
  /** The queue of the host's own, where its goals' workspace activities go. */
  hostTaskQueue: string;
  /** live: a worker beats; missing: none beats (killed, cut off, or no worker at all); stopped: all shut down. */
  state: WorkerLiveness;
  /** Seconds since the host's newest beat; absent for a host no worker ever served. */
  secondsSinceBeat?: number;
  /** Since when it has been missing (its newest beat, ISO 8601), while it is. */
  missingSince?: string;
  instances: HostInstance[];
  /** Running goals bound to it (search attribute KeelHost), when counted. */
  runningGoals?: number;
}

/** What a client saw of one goal's host in the heartbeats (keel status, keel pending). */
export interface SeenHost {
  state: WorkerLiveness;
  /** Its newest beat, when it is not live. */
  missingSince?: string;
}

/**
 * A missing host that no running goal needs is listed this long after its last beat, so a loss
 * stays in sight a while, and then drops off; a host that stopped gracefully drops off at once.
 */
export const FORGET_MISSING_AFTER_MS = 2 * 60_000;

/**
 * The hosts serving `sharedTaskQueue`, sorted by id: one entry per host id with its instances
 * (only the beats of workers on the shared queue count: one per process). A host is live when
 * any instance is, missing when none is and one is missing, stopped when all stopped. Hosts
 * named in `runningGoalsByHost` are always listed (missing when no worker of theirs beats at all);
 * others only while live or lately missing.
 */
export function hostsLiveness(options: {
  beats: readonly KeelWorkerBeat[];
  sharedTaskQueue: string;
  nowMs: number;
  /** Liveness of a worker whose identity names no interval (an older keel). */
  fallbackIntervalMs: number;
  runningGoalsByHost?: Readonly<Record<string, number>>;
}): HostLiveness[] {
  const { beats, sharedTaskQueue, nowMs, fallbackIntervalMs } = options;
  const goals = options.runningGoalsByHost ?? {};
  const byHost = new Map<string, KeelWorkerBeat[]>();
  for (const beat of beats) {
    if (beat.taskQueue !== sharedTaskQueue) continue;
    byHost.set(beat.hostId, [...(byHost.get(beat.hostId) ?? []), beat]);
  }
  for (const [hostId, count] of Object.entries(goals))
    if (count > 0 && !byHost.has(hostId)) byHost.set(hostId, []);
  const hosts: HostLiveness[] = [];
  for (const [hostId, hostBeats] of byHost) {
    const runningGoals = options.runningGoalsByHost === undefined ? undefined : (goals[hostId] ?? 0);
    const needed = (runningGoals ?? 0) > 0;
    const judged = hostBeats
      .map((beat) => ({ beat, state: workerLiveness(beat, nowMs, fallbackIntervalMs) }))
      .sort((one, other) => (one.beat.instanceId ?? '').localeCompare(other.beat.instanceId ?? ''));
    // Stopped workers and long-dead ones are not shown, unless a goal needs the host and they are all it has.
    const shown = judged.filter(
      ({ beat, state }) => state === 'live' || (state === 'missing' && (needed || recent(beat, nowMs))),
    );
    if (shown.length === 0 && !needed) continue;
    const instances = shown.length > 0 ? shown : judged;
    const state: WorkerLiveness = instances.some((instance) => instance.state === 'live')
      ? 'live'
      : instances.some((instance) => instance.state === 'missing') || instances.length === 0
        ? 'missing'
        : 'stopped';
    const newestBeat = Math.max(...hostBeats.map((beat) => beat.heartbeatAtMs ?? Number.NEGATIVE_INFINITY));
    hosts.push({
      hostId,
      hostTaskQueue: hostTaskQueue(sharedTaskQueue, hostId),
      state,
      ...(Number.isFinite(newestBeat) ? { secondsSinceBeat: secondsSince(newestBeat, nowMs) } : {}),
      ...(state === 'missing' && Number.isFinite(newestBeat)
        ? { missingSince: new Date(newestBeat).toISOString() }
        : {}),
      instances: instances.map(({ beat, state: instanceState }) => ({
        ...(beat.instanceId === undefined ? {} : { instanceId: beat.instanceId }),
        ...(beat.machine === undefined ? {} : { machine: beat.machine }),
        ...(beat.pid === undefined ? {} : { pid: beat.pid }),
        state: instanceState,
        ...(beat.heartbeatAtMs === undefined
          ? {}
          : { secondsSinceBeat: secondsSince(beat.heartbeatAtMs, nowMs) }),
      })),
      ...(runningGoals === undefined ? {} : { runningGoals }),
    });
  }
  return hosts.sort((one, other) => one.hostId.localeCompare(other.hostId));
}

function recent(beat: KeelWorkerBeat, nowMs: number): boolean {
  return beat.heartbeatAtMs !== undefined && nowMs - beat.heartbeatAtMs <= FORGET_MISSING_AFTER_MS;
}

function secondsSince(atMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - atMs) / 1000));
}

/** The ids of the live hosts (what a goal at its start may ask about its workspace). */
export function liveHostIds(hosts: readonly HostLiveness[]): string[] {
  return hosts.filter((host) => host.state === 'live').map((host) => host.hostId);
}
