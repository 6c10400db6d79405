import type { Worker } from '@temporalio/worker';
import {
  HEARTBEAT_GRACE_MS,
  listKeelWorkers,
  type KeelWorkerBeat,
  type WorkerListingConnection,
} from '../../client/worker-heartbeats';
import { hostTaskQueue } from '../../workflows/hosts/host-queues';
import {
  decideAfterStart,
  decideHostClaim,
  liveOthersExpireAtMs,
  type HostClaimant,
  type LocalMachine,
} from './claim-decision';
import { ensureDiskMarker, readDiskMarker } from './disk-marker';
import { HostClaimError } from './host-claim-error';
import { localMachine } from './local-process';
import type { PollerListingConnection } from '../../client/task-queue-pollers';
import { listKeelPollers } from './queue-pollers';

export interface HostClaimOptions {
  /** Without describeTaskQueue (a test's fake), the claim goes by beats alone. */
  connection: {
    workflowService: WorkerListingConnection['workflowService'] &
      Partial<PollerListingConnection['workflowService']>;
  };
  namespace: string;
  /** The shared task queue; the claim looks at its host's own queue. */
  taskQueue: string;
  hostId: string;
  instanceId: string;
  replica: boolean;
  workspaceRoots: readonly string[];
  /** This process's heartbeat interval (0: its workers do not beat). */
  heartbeatIntervalMs: number;
  warn: (line: string) => void;
  info: (line: string) => void;
  /** This machine and its processes (worker/host-claim/local-process.ts); tests give their own. */
  local?: LocalMachine;
  now?: () => number;
  sleep?: (milliseconds: number) => Promise<void>;
}

const sleep = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/** What the claim found: the disk of the host's first root, for the worker's identity. */
export interface HostClaim {
  diskId?: string;
  /** Instance ids of the live processes it joined as a replica; empty when it is the only one. */
  joined: string[];
}

/**
 * Claims the host id before the worker polls (see worker/host-claim/claim-decision.ts): refused with a
 * HostClaimError, one line, when another live machine holds it (and still beats after its
 * beat would have aged: a crashed worker's restart waits for that). A holder on this machine whose
 * process runs is refused at once, even before its first beat: its poll is listed the moment it
 * polls, its pid answers here, so there is nothing to wait for (issue 41). A server that cannot list its
 * workers (one without ListWorkers) leaves the claim unchecked, with one warning. Once claimed,
 * the first workspace root gets its marker if it had none.
 */
export async function claimHost(options: HostClaimOptions): Promise<HostClaim> {
  const workspaceRoot = options.workspaceRoots[0];
  const now = options.now ?? Date.now;
  // The marker is read after each listing: a worker makes its marker before it beats, so a
  // replica that sees the first worker's beat also sees its marker, however close their starts.
  const local = options.local ?? localMachine();
  const look = async () => {
    const [listed, polls] = await Promise.all([listHostWorkers(options), listHostPollers(options)]);
    const marker =
      workspaceRoot === undefined ? undefined : await readDiskMarker(workspaceRoot, options.hostId);
    const claimant: HostClaimant = {
      hostId: options.hostId,
      instanceId: options.instanceId,
      replica: options.replica,
      ...(workspaceRoot === undefined ? {} : { workspaceRoot }),
      ...(marker === undefined ? {} : { diskId: marker.diskId }),
    };
    const input = {
      claimant,
      beats: typeof listed === 'string' ? [] : listed,
      nowMs: now(),
      fallbackIntervalMs: options.heartbeatIntervalMs,
      // Unchecked when the beats cannot be read: polls alone cannot tell a worker gone a minute ago.
      ...(typeof listed === 'string' ? {} : { polls }),
      local,
    };
    return { listed, input, marker, decision: decideHostClaim(input) };
  };
  const first = await look();
  const { listed, input } = first;
  let { decision, marker } = first;
  if (typeof listed === 'string')
    options.warn(
      `cannot check whether another machine already serves host id ${options.hostId} (listing the server's workers failed: ${listed}); starting unchecked — two machines with one id would split its goals' tool calls between their disks`,
    );
  const expiresAtMs = liveOthersExpireAtMs(input);
  if (decision.outcome === 'refused' && expiresAtMs !== undefined) {
    // A worker killed a moment ago (kill -9, a crash, a restart by systemd or Docker) still looks
    // live until its beat is old: the holder is refused only if it beats again by then.
    const waitMs = Math.max(0, expiresAtMs - input.nowMs) + 100;
    options.info(
      `host id ${options.hostId} is held by another instance that beat moments ago; waiting ${Math.ceil(waitMs / 1000)} s to see whether it still beats (a worker restarted after a crash takes the id once the old one's beat is old)`,
    );
    await (options.sleep ?? sleep)(waitMs);
    ({ decision, marker } = await look());
  }
  if (decision.outcome === 'refused') throw new HostClaimError(decision.reason);
  const joined = decision.joined.map((beat) => beat.instanceId ?? beat.identity);
  if (workspaceRoot === undefined) return { joined };
  return { diskId: (marker ?? (await ensureDiskMarker(workspaceRoot, options.hostId))).diskId, joined };
}

/**
 * Two machines that start with one id at the same moment both find nobody. So once the worker
 * polls and every process started with it has beaten (one interval and the grace), the claim is
 * judged once more; the later starter of a clashing pair stops with the same line, which its
 * run() then throws.
 */
export function recheckClaimWhenRunning(
  worker: Worker,
  options: HostClaimOptions & { diskId?: string },
): void {
  if (options.heartbeatIntervalMs <= 0) return; // its own workers never appear: nothing to order by
  const run = worker.run.bind(worker);
  worker.run = async () => {
    let refusal: HostClaimError | undefined;
    const check = async () => {
      const beats = await listHostWorkers(options);
      if (typeof beats === 'string') return; // told at start already
      const decision = decideAfterStart({
        claimant: {
          hostId: options.hostId,
          instanceId: options.instanceId,
          replica: options.replica,
          ...(options.workspaceRoots[0] === undefined ? {} : { workspaceRoot: options.workspaceRoots[0] }),
          ...(options.diskId === undefined ? {} : { diskId: options.diskId }),
        },
        beats,
        nowMs: (options.now ?? Date.now)(),
        fallbackIntervalMs: options.heartbeatIntervalMs,
      });
      if (decision.outcome !== 'refused') return;
      refusal = new HostClaimError(decision.reason);
      if (worker.getState() === 'RUNNING') worker.shutdown();
    };
    const timer = setTimeout(() => void check(), options.heartbeatIntervalMs + HEARTBEAT_GRACE_MS);
    try {
      await run();
    } finally {
      clearTimeout(timer);
    }
    if (refusal !== undefined) throw refusal;
  };
}

/**
 * The keel workers polling the host's queue; none when the server cannot say: the beats decide
 * then, as they did before polls were looked at.
 */
async function listHostPollers(options: HostClaimOptions) {
  const { describeTaskQueue } = options.connection.workflowService;
  if (describeTaskQueue === undefined) return [];
  try {
    return await listKeelPollers({
      connection: {
        workflowService: { describeTaskQueue: describeTaskQueue.bind(options.connection.workflowService) },
      },
      namespace: options.namespace,
      taskQueue: hostTaskQueue(options.taskQueue, options.hostId),
    });
  } catch {
    return [];
  }
}

/** The keel workers of the host's queue, or why the server cannot say. */
async function listHostWorkers(options: HostClaimOptions): Promise<KeelWorkerBeat[] | string> {
  try {
    return await listKeelWorkers({
      connection: options.connection,
      namespace: options.namespace,
      taskQueue: hostTaskQueue(options.taskQueue, options.hostId),
    });
  } catch (error) {
    // UNIMPLEMENTED on a server without ListWorkers, or heartbeats turned off there: no check,
    // as before claims existed, rather than a worker that cannot start.
    const message = error instanceof Error ? error.message : String(error);
    return message.split('\n')[0] ?? message;
  }
}
