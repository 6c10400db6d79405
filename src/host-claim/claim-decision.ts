import { HEARTBEAT_GRACE_MS, workerLiveness, type KeelWorkerBeat } from '../client/worker-heartbeats';

/**
 * Whether a worker process may serve its host id (issue 23). Two machines started with one id
 * would split a goal's tool calls between two disks without anyone noticing, so a process claims
 * the id at start against the live workers of the host's queue: nobody else live, it is the
 * host; someone else live, it is refused, unless it asked to be a replica and proves, by the
 * marker in its workspace root (disk-marker.ts), that it sees the same disk. Pure: the listing
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
}

/** The decision at start: against every live instance of another process holding the id. */
export function decideHostClaim(input: HostClaimInput): HostClaimDecision {
  const { claimant } = input;
  if (claimant.replica && claimant.workspaceRoot === undefined)
    return refused(
      `--replica needs a workspace root (--workspace-root / KEEL_WORKSPACE_ROOTS): the host's marker file there is what proves both machines see the same disk`,
    );
  const others = liveOthers(input);
  const first = others[0];
  if (first === undefined) return { outcome: 'claimed', joined: [] };
  if (!claimant.replica)
    return refused(
      `host id ${claimant.hostId} is held by a live worker on ${describeBeat(first, input.nowMs)}: give this machine its own id (--host-id / KEEL_HOST_ID), or start it with --replica (KEEL_HOST_REPLICA=1) if both machines see the same workspace disk`,
    );
  const elsewhere = others.find((beat) => beat.diskId === undefined || beat.diskId !== claimant.diskId);
  if (elsewhere !== undefined)
    return refused(
      `--replica: host id ${claimant.hostId} is held by a live worker on ${describeBeat(elsewhere, input.nowMs)} serving ${diskText(elsewhere.diskId)}, but this machine's workspace root ${claimant.workspaceRoot ?? ''} holds ${diskText(claimant.diskId)}: a replica must see the same disk; otherwise give this machine its own id (--host-id / KEEL_HOST_ID)`,
    );
  return { outcome: 'claimed', joined: others };
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
 * When every instance that holds the id now would count as missing unless it beats again (epoch
 * ms); undefined when none does. A holder killed a moment ago looks live until then.
 */
export function liveOthersExpireAtMs(input: HostClaimInput): number | undefined {
  const expiries = liveOthers(input).map(
    (beat) =>
      (beat.heartbeatAtMs ?? input.nowMs) +
      (beat.heartbeatIntervalMs ?? input.fallbackIntervalMs) +
      HEARTBEAT_GRACE_MS +
      1,
  );
  return expiries.length === 0 ? undefined : Math.max(...expiries);
}

/** Negative when `left` started first; ties broken by instance id, so the order is total. */
function startOrder(left: KeelWorkerBeat, right: KeelWorkerBeat): number {
  const byTime = (left.startedAtMs ?? 0) - (right.startedAtMs ?? 0);
  if (byTime !== 0) return byTime;
  const leftId = left.instanceId ?? '';
  const rightId = right.instanceId ?? '';
  return leftId < rightId ? -1 : leftId > rightId ? 1 : 0;
}

/** One beat per live process of the same host id other than the claimant (a process polls several queues). */
function liveOthers(input: HostClaimInput): KeelWorkerBeat[] {
  const byInstance = new Map<string, KeelWorkerBeat>();
  for (const beat of input.beats) {
    if (beat.hostId !== input.claimant.hostId || beat.instanceId === input.claimant.instanceId) continue;
    if (workerLiveness(beat, input.nowMs, input.fallbackIntervalMs) !== 'live') continue;
    // A worker from before instances were named is one process per identity.
    byInstance.set(beat.instanceId ?? beat.identity, beat);
  }
  return [...byInstance.values()];
}

function describeBeat(beat: KeelWorkerBeat, nowMs: number): string {
  const ago =
    beat.heartbeatAtMs === undefined
      ? 'unknown'
      : `${Math.max(0, Math.round((nowMs - beat.heartbeatAtMs) / 1000))} s ago`;
  return `${beat.machine ?? 'an unnamed machine'} (pid ${beat.pid ?? '?'}, instance ${beat.instanceId ?? '?'}, last beat ${ago})`;
}

function diskText(diskId: string | undefined): string {
  return diskId === undefined ? 'no marked disk' : `disk ${diskId}`;
}

function refused(reason: string): HostClaimDecision {
  return { outcome: 'refused', reason };
}
