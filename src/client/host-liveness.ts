import { hostTaskQueue, type KeelWorkerIdentity } from '../workflows/hosts/host-queues';
import {
  HEARTBEAT_GRACE_MS,
  workerLiveness,
  type KeelWorkerBeat,
  type WorkerLiveness,
} from './worker-heartbeats';

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

/**
 * `hosts` with the workers that poll but do not beat yet (pollsBeyondItsBeats): such a worker has
 * just started, or come back, and its first beat comes an interval after its start. Its host is
 * live, with it listed, whether the beats called the host missing (a goal needs it) or did not
 * list it at all; without this, `keel hosts` would call a host missing for the first second of
 * its life and exit 3.
 */
export function withStartingWorkers(options: {
  hosts: readonly HostLiveness[];
  starting: readonly KeelWorkerIdentity[];
  sharedTaskQueue: string;
  /** Whether `hosts` count their running goals: a host listed anew then has none. */
  goalsCounted: boolean;
}): HostLiveness[] {
  const startingByHost = new Map<string, HostInstance[]>();
  for (const worker of options.starting) {
    const instances = startingByHost.get(worker.hostId) ?? [];
    if (worker.instanceId !== undefined && instances.some((known) => known.instanceId === worker.instanceId))
      continue; // polling both its workflow and activity tasks
    instances.push({
      ...(worker.instanceId === undefined ? {} : { instanceId: worker.instanceId }),
      ...(worker.machine === undefined ? {} : { machine: worker.machine }),
      ...(worker.pid === undefined ? {} : { pid: worker.pid }),
      state: 'live',
    });
    startingByHost.set(worker.hostId, instances);
  }
  const hosts = options.hosts.map((host) => {
    const starting = startingByHost.get(host.hostId);
    startingByHost.delete(host.hostId);
    if (starting === undefined || host.state === 'live') return host;
    const { missingSince: _wasMissingSince, ...rest } = host;
    // A worker made again in the same process keeps its instance id: listed once, as it is now.
    const startingIds = new Set(starting.map((instance) => instance.instanceId));
    const others = host.instances.filter(
      (instance) => instance.instanceId === undefined || !startingIds.has(instance.instanceId),
    );
    return { ...rest, state: 'live' as const, instances: [...starting, ...others] };
  });
  for (const [hostId, instances] of startingByHost)
    hosts.push({
      hostId,
      hostTaskQueue: hostTaskQueue(options.sharedTaskQueue, hostId),
      state: 'live',
      instances,
      ...(options.goalsCounted ? { runningGoals: 0 } : {}),
    });
  return hosts.sort((one, other) => one.hostId.localeCompare(other.hostId));
}

function recent(beat: KeelWorkerBeat, nowMs: number): boolean {
  return beat.heartbeatAtMs !== undefined && nowMs - beat.heartbeatAtMs <= FORGET_MISSING_AFTER_MS;
}

function secondsSince(atMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - atMs) / 1000));
}

/**
 * Whether each host seen in the beats serves now, and since when it does not (its newest beat);
 * a live one says whether a worker of it is listed dead or stopped beside the live ones (it may
 * have just come back).
 */
export type HostServing = { state: 'live'; withLostInstances: boolean } | { state: 'missing'; since: string };

/**
 * Each host's serving state for the host watcher: live when any of its workers on the shared
 * queue beats; missing otherwise, however long ago it died or whether it stopped gracefully (its
 * goals wait either way).
 */
export function hostServingStates(options: {
  beats: readonly KeelWorkerBeat[];
  sharedTaskQueue: string;
  nowMs: number;
  fallbackIntervalMs: number;
}): Map<string, HostServing> {
  const states = new Map<string, HostServing>();
  const newest = new Map<string, number>();
  const lost = new Set<string>();
  const live = new Set<string>();
  for (const beat of options.beats) {
    if (beat.taskQueue !== options.sharedTaskQueue) continue;
    const at = beat.heartbeatAtMs ?? beat.startedAtMs ?? 0;
    newest.set(beat.hostId, Math.max(newest.get(beat.hostId) ?? 0, at));
    if (workerLiveness(beat, options.nowMs, options.fallbackIntervalMs) === 'live') live.add(beat.hostId);
    else lost.add(beat.hostId);
  }
  for (const [hostId, at] of newest)
    states.set(
      hostId,
      live.has(hostId)
        ? { state: 'live', withLostInstances: lost.has(hostId) }
        : { state: 'missing', since: new Date(at).toISOString() },
    );
  return states;
}

/**
 * The worker whose host watcher acts: the first live one by instance id on the shared queue.
 * Every worker computes the same answer from the same listing, so exactly one acts (two for a
 * round at most, while their listings differ: the goals ignore the repeat), and when it dies the
 * next one takes over within a heartbeat interval.
 */
export function watcherLeader(options: {
  beats: readonly KeelWorkerBeat[];
  sharedTaskQueue: string;
  nowMs: number;
  fallbackIntervalMs: number;
}): string | undefined {
  const live = options.beats
    .filter((beat) => beat.taskQueue === options.sharedTaskQueue && beat.instanceId !== undefined)
    .filter((beat) => workerLiveness(beat, options.nowMs, options.fallbackIntervalMs) === 'live')
    .map((beat) => beat.instanceId as string)
    .sort();
  return live[0];
}

export interface HostTransition {
  host: string;
  state: 'missing' | 'live';
  since: string;
}

/**
 * What changed since the last round: hosts that turned missing, and missing ones that came back.
 * A watcher with no earlier round (it just started, maybe as the host that came back, and leads
 * at once) cannot know which goals were told of a loss: it reports every missing host, and the
 * live hosts that have a dead or stopped worker listed beside the live one (they may have just
 * come back), not all of them: that would be a signal to every goal. The goals ignore repeats.
 */
export function hostTransitions(
  previous: ReadonlyMap<string, HostServing> | undefined,
  now: ReadonlyMap<string, HostServing>,
  nowMs: number,
): HostTransition[] {
  const transitions: HostTransition[] = [];
  for (const [host, serving] of [...now].sort(([one], [other]) => one.localeCompare(other))) {
    const before = previous?.get(host);
    if (serving.state === 'missing' && before?.state !== 'missing')
      transitions.push({ host, state: 'missing', since: serving.since });
    const cameBack =
      previous === undefined
        ? serving.state === 'live' && serving.withLostInstances
        : before?.state === 'missing';
    if (serving.state === 'live' && cameBack)
      transitions.push({ host, state: 'live', since: new Date(nowMs).toISOString() });
  }
  return transitions;
}

/**
 * What a watcher remembers for its next round: the states now, and the missing hosts the server
 * no longer lists at all (it forgets dead workers), so their return is still seen as one.
 */
export function rememberedStates(
  previous: ReadonlyMap<string, HostServing> | undefined,
  now: ReadonlyMap<string, HostServing>,
): Map<string, HostServing> {
  const remembered = new Map(now);
  for (const [host, serving] of previous ?? [])
    if (serving.state === 'missing' && !remembered.has(host)) remembered.set(host, serving);
  return remembered;
}

/**
 * Whether a worker instance seen polling is alive although its beats do not say so: it has none
 * yet (a worker polls before its first beat reaches the server), or it polled after its last beat
 * could have been its last (a worker made again in the same process keeps its instance id, and
 * its predecessor's beat says shutdown). A dead worker's polls, which the server keeps listing for
 * minutes, began before it died, so within its last beat's interval.
 */
export function pollsBeyondItsBeats(
  poller: { instanceId?: string; lastPollMs?: number },
  beats: readonly KeelWorkerBeat[],
): boolean {
  const own = beats.filter((beat) => beat.instanceId !== undefined && beat.instanceId === poller.instanceId);
  if (own.length === 0) return true;
  if (poller.lastPollMs === undefined) return false;
  const lastPollMs = poller.lastPollMs;
  return own.every((beat) => {
    if (beat.heartbeatAtMs === undefined) return true;
    const mayStillBeat =
      beat.status === 'running' ? (beat.heartbeatIntervalMs ?? 60_000) + HEARTBEAT_GRACE_MS : 0;
    return lastPollMs > beat.heartbeatAtMs + mayStillBeat;
  });
}
