import { HEARTBEAT_GRACE_MS, workerLiveness, type KeelWorkerBeat } from '../../client/worker-heartbeats';
import type { KeelWorkerIdentity } from '../../workflows/hosts/host-queues';

/**
 * Whether a worker process may serve its host id (issue 23). Two machines started with one id
 * would split a goal's tool calls between two disks without anyone noticing, so a process claims
 * the id at start against the live workers of the host's queue: nobody else live, it is the
 * host; someone else live, it is refused, unless it asked to be a replica and proves, by the
 * marker in its workspace root (worker/host-claim/disk-marker.ts), that it sees the same disk. Pure: the listing
 * and the clock come in.
 */

/** The process asking for the host id. */
export interface HostClaimant {
  hostId: string;
  instanceId: string;
  /** --replica / KEEL_HOST_REPLICA=1: it joins a live host id when both see the same disk. */
  replica: boolean;
  /** The first workspace root, where the host's marker is; undefined for a host without roots. */
  workspaceRoot?: string;
  /** The disk id of the marker in that root; undefined when there is none yet. */
  diskId?: string;
}

/**
 * A keel worker seen polling the host's queue (DescribeTaskQueue). The server lists a poll the
 * moment it arrives, while a worker's first beat comes one interval after it starts: a worker
 * started seconds ago is seen only here.
 */
export interface KeelWorkerPoll extends KeelWorkerIdentity {
  identity: string;
  /** When its current poll began (epoch ms); an idle worker's poll waits up to a minute. */
  polledAtMs: number;
}

/**
 * What this machine can see of its own processes: a holder that names this machine and a pid that
 * runs is known live at once, without waiting for beats (issue 41: a second worker on one machine
 * was told only after it had polled and taken tasks).
 */
export interface LocalMachine {
  machine: string;
  pid: number;
  /** Whether a process with this pid exists here. */
  running: (pid: number) => boolean;
}

export type HostClaimDecision =
  | {
      outcome: 'claimed';
      /** The live instances it joins as a replica (empty: the only one). */ joined: KeelWorkerBeat[];
    }
  | { outcome: 'refused'; reason: string };

export interface HostClaimInput {
  claimant: HostClaimant;
  /** The keel workers of the host's queue, as listKeelWorkers reads them. */
  beats: readonly KeelWorkerBeat[];
  nowMs: number;
  /** For beats whose identity names no interval: this process's own. */
  fallbackIntervalMs: number;
  /** The host queue's pollers; none: judged by beats alone. */
  polls?: readonly KeelWorkerPoll[];
  /** This machine; none: every holder is judged by its beats, as one on another machine. */
  local?: LocalMachine;
}

/** A live process of the id, and whether it is known live (it runs here) or only beat lately. */
interface Holder {
  beat: KeelWorkerBeat;
  /** Runs on this machine: no wait can make it count as gone. */
  here: boolean;
  /** When it would count as gone unless it beats (again); ignored when `here`. */
  expiresAtMs: number;
  /** Seen polling but not beating yet: when that poll began. */
  polledAtMs?: number;
}

/** The decision at start: against every live instance of another process holding the id. */
export function decideHostClaim(input: HostClaimInput): HostClaimDecision {
  const { claimant } = input;
  if (claimant.replica && claimant.workspaceRoot === undefined)
    return refused(
      `--replica needs a workspace root (--workspace-root / KEEL_WORKSPACE_ROOTS): the host's marker file there is what proves both machines see the same disk`,
    );
  const holders = liveOthers(input);
  // One that runs here first: its line tells how to run two workers on one machine.
  const first = holders.find((holder) => holder.here) ?? holders[0];
  if (first === undefined) return { outcome: 'claimed', joined: [] };
  if (!claimant.replica)
    return refused(
      first.here
        ? `host id ${claimant.hostId} is held by a live worker on this machine, ${describeHolder(first, input.nowMs)}: give this worker its own id (--host-id / KEEL_HOST_ID), or start it with --replica (KEEL_HOST_REPLICA=1) and the same --workspace-root as that worker to share its host`
        : `host id ${claimant.hostId} is held by a live worker on ${describeHolder(first, input.nowMs)}: give this machine its own id (--host-id / KEEL_HOST_ID), or start it with --replica (KEEL_HOST_REPLICA=1) if both machines see the same workspace disk`,
    );
  const elsewhere = holders.find(
    (holder) => holder.beat.diskId === undefined || holder.beat.diskId !== claimant.diskId,
  );
  if (elsewhere !== undefined)
    return refused(
      `--replica: host id ${claimant.hostId} is held by a live worker on ${describeHolder(elsewhere, input.nowMs)} serving ${diskText(elsewhere.beat.diskId)}, but this machine's workspace root ${claimant.workspaceRoot ?? ''} holds ${diskText(claimant.diskId)}: a replica must see the same disk; otherwise give this machine its own id (--host-id / KEEL_HOST_ID)`,
    );
  return { outcome: 'claimed', joined: holders.map((holder) => holder.beat) };
}

/**
 * The decision once the process polls (one heartbeat interval after its start, when every process
 * that started with it has beaten once): two that started together both saw nobody. Only the
 * later starter (by start time, then instance id; every process orders them alike) is judged
 * again, against the instances that started before it, so exactly one of a clashing pair stops.
 */
export function decideAfterStart(input: HostClaimInput): HostClaimDecision {
  const own = input.beats.find((beat) => beat.instanceId === input.claimant.instanceId);
  if (own === undefined) return { outcome: 'claimed', joined: [] }; // not listed yet: nothing to order by
  const earlier = input.beats.filter((beat) => startOrder(beat, own) < 0);
  return decideHostClaim({ ...input, beats: earlier });
}

/**
 * When every instance that holds the id now would count as missing unless it beats (again)
 * (epoch ms); undefined when none does, or when one runs on this machine: that one is alive now,
 * and waiting would only delay the same refusal. A holder killed a moment ago looks live until then.
 */
export function liveOthersExpireAtMs(input: HostClaimInput): number | undefined {
  const holders = liveOthers(input);
  if (holders.length === 0 || holders.some((holder) => holder.here)) return undefined;
  return Math.max(...holders.map((holder) => holder.expiresAtMs));
}

/** Negative when `left` started first; ties broken by instance id, so the order is total. */
function startOrder(left: KeelWorkerBeat, right: KeelWorkerBeat): number {
  const byTime = (left.startedAtMs ?? 0) - (right.startedAtMs ?? 0);
  if (byTime !== 0) return byTime;
  const leftId = left.instanceId ?? '';
  const rightId = right.instanceId ?? '';
  return leftId < rightId ? -1 : leftId > rightId ? 1 : 0;
}

/**
 * One holder per live process of the same host id other than the claimant (a process polls
 * several queues). Live by its beat, as before; or, before its first beat, by a poll that began
 * less than an interval and the grace ago. On this machine a running pid makes either sure at once;
 * a gone pid drops only a poller: a beating holder whose pid is gone here may be a machine that
 * shares this one's name (a cloned VM), and its beat still decides.
 */
function liveOthers(input: HostClaimInput): Holder[] {
  const { claimant, nowMs, fallbackIntervalMs } = input;
  const byInstance = new Map<string, Holder>();
  const beaten = new Set<string>();
  for (const beat of input.beats) {
    if (beat.hostId !== claimant.hostId || beat.instanceId === claimant.instanceId) continue;
    // A worker from before instances were named is one process per identity.
    const key = beat.instanceId ?? beat.identity;
    beaten.add(key);
    if (workerLiveness(beat, nowMs, fallbackIntervalMs) !== 'live') continue;
    const expiresAtMs = (beat.heartbeatAtMs ?? nowMs) + intervalOf(beat, input) + HEARTBEAT_GRACE_MS + 1;
    byInstance.set(key, { beat, here: runsHere(beat, input.local) === true, expiresAtMs });
  }
  for (const poll of input.polls ?? []) {
    if (poll.hostId !== claimant.hostId || poll.instanceId === claimant.instanceId) continue;
    const key = poll.instanceId ?? poll.identity;
    if (beaten.has(key) || byInstance.has(key)) continue; // its beats say more than its polls
    const expiresAtMs = poll.polledAtMs + intervalOf(poll, input) + HEARTBEAT_GRACE_MS + 1;
    if (nowMs >= expiresAtMs) continue; // should have beaten by now: gone, or listed from long ago
    const here = runsHere(poll, input.local);
    if (here === false) continue; // it ran here and is gone: a crashed worker's restart waits for nothing
    const beat: KeelWorkerBeat = { ...poll, taskQueue: '', workerInstanceKey: '', status: 'unknown' };
    byInstance.set(key, { beat, here: here === true, expiresAtMs, polledAtMs: poll.polledAtMs });
  }
  return [...byInstance.values()];
}

/** True: it names this machine and its pid runs; false: it names this machine and is gone; undefined: elsewhere. */
function runsHere(worker: KeelWorkerIdentity, local: LocalMachine | undefined): boolean | undefined {
  if (local === undefined || worker.machine !== local.machine || worker.pid === undefined) return undefined;
  // Its pid is this process's own: an earlier life of this worker (a container restarted alike).
  return worker.pid !== local.pid && local.running(worker.pid);
}

function intervalOf(worker: KeelWorkerIdentity, input: HostClaimInput): number {
  return worker.heartbeatIntervalMs ?? input.fallbackIntervalMs;
}

function describeHolder(holder: Holder, nowMs: number): string {
  const { beat } = holder;
  const secondsAgo = (atMs: number) => `${Math.max(0, Math.round((nowMs - atMs) / 1000))} s ago`;
  const seen =
    holder.polledAtMs !== undefined
      ? `polling since ${secondsAgo(holder.polledAtMs)}, no beat yet`
      : `last beat ${beat.heartbeatAtMs === undefined ? 'unknown' : secondsAgo(beat.heartbeatAtMs)}`;
  return `${beat.machine ?? 'an unnamed machine'} (pid ${beat.pid ?? '?'}, instance ${beat.instanceId ?? '?'}, ${seen})`;
}

function diskText(diskId: string | undefined): string {
  return diskId === undefined ? 'no marked disk' : `disk ${diskId}`;
}

function refused(reason: string): HostClaimDecision {
  return { outcome: 'refused', reason };
}
