import { z } from 'zod';

/**
 * Workspace affinity (the pattern Temporal documents for files that live on one host): every
 * worker polls the shared task queue (goal workflows), its model queue and a queue of its own host,
 * where a goal sends everything that touches its workspace — tool calls, backups, the
 * irreversible-call journal. Pure naming rules, shared by workers, workflows, clients and tests.
 */

/** Host ids travel in task-queue names and worker identities: a short, plain name. */
export const hostIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/,
    'a host id is 1-63 letters, digits, dots, dashes or underscores, starting with a letter or digit',
  );

/** The queue only the workers of `hostId` poll. */
export function hostTaskQueue(sharedTaskQueue: string, hostId: string): string {
  return `${sharedTaskQueue}@${hostId}`;
}

/**
 * The queue of a shared queue's model calls (issue 42): every worker of the fleet polls it, and
 * Temporal's server paces its dispatch (the workers' maxTaskQueueActivitiesPerSecond), so the
 * requests per minute of one API key are held by the whole fleet, not by each worker. `:` is in
 * no host id, so it never names a host's queue.
 */
export function modelTaskQueue(sharedTaskQueue: string): string {
  return `${sharedTaskQueue}:model`;
}

const IDENTITY_PREFIX = 'keel-host=';

/** Who a keel worker process is, as its Temporal identity says (see workerIdentity). */
export interface KeelWorkerIdentity {
  hostId: string;
  /** Random per worker process: two processes of one host id are told apart by it. */
  instanceId?: string;
  /** How often the process's workers beat (Temporal's worker heartbeats): liveness is judged by it. */
  heartbeatIntervalMs?: number;
  pid?: number;
  machine?: string;
  /**
   * The disk of the host's first workspace root, as its marker file names it (host-claim): replicas
   * of one host id are accepted only on the same disk. Absent for a worker without roots.
   */
  diskId?: string;
}

/**
 * A keel worker's Temporal identity names its host, its process instance and its heartbeat
 * interval (and the disk of its workspace root, when it has one), so the hosts serving a queue —
 * and whether each is alive — can be read off Temporal's own worker listing (ListWorkers,
 * DescribeTaskQueue) without a registry of keel's own:
 * `keel-host=<host> <pid>@<machine> instance=<id> heartbeat=<ms> [disk=<id>]`.
 */
export function workerIdentity(
  identity: Required<Omit<KeelWorkerIdentity, 'diskId'>> & Pick<KeelWorkerIdentity, 'diskId'>,
): string {
  const { hostId, pid, machine, instanceId, heartbeatIntervalMs, diskId } = identity;
  const disk = diskId === undefined ? '' : ` disk=${diskId}`;
  return `${IDENTITY_PREFIX}${hostId} ${pid}@${machine} instance=${instanceId} heartbeat=${heartbeatIntervalMs}${disk}`;
}

/** The host id in a keel worker's identity; undefined for other pollers. */
export function hostIdOfIdentity(identity: string): string | undefined {
  return parseWorkerIdentity(identity)?.hostId;
}

/** What a keel worker's identity says; undefined for other workers (the SDK's `pid@machine`). */
export function parseWorkerIdentity(identity: string): KeelWorkerIdentity | undefined {
  if (!identity.startsWith(IDENTITY_PREFIX)) return undefined;
  const [hostId = '', ...words] = identity.slice(IDENTITY_PREFIX.length).split(' ');
  if (!hostIdSchema.safeParse(hostId).success) return undefined;
  const parsed: KeelWorkerIdentity = { hostId };
  for (const word of words) {
    const process = /^(\d+)@(.+)$/.exec(word);
    if (process) {
      parsed.pid = Number(process[1]);
      parsed.machine = process[2];
    } else if (word.startsWith('instance=') && word.length > 'instance='.length) {
      parsed.instanceId = word.slice('instance='.length);
    } else if (/^heartbeat=\d+$/.test(word)) {
      parsed.heartbeatIntervalMs = Number(word.slice('heartbeat='.length));
    } else if (word.startsWith('disk=') && word.length > 'disk='.length) {
      parsed.diskId = word.slice('disk='.length);
    }
  }
  return parsed;
}

/** What a host says of a workspace path when asked (probeWorkspace). */
export const WorkspaceProbeState = {
  Present: 'present',
  Missing: 'missing',
  NotADirectory: 'not-a-directory',
  /** The host serves only workspaces under its roots (KEEL_WORKSPACE_ROOTS), and this is not one. */
  OutsideRoots: 'outside-roots',
} as const;
export type WorkspaceProbeState = (typeof WorkspaceProbeState)[keyof typeof WorkspaceProbeState];

export const workspaceProbeSchema = z.lazy(() =>
  z.object({
    hostId: z.string(),
    state: z.enum(['present', 'missing', 'not-a-directory', 'outside-roots']),
    /**
     * The workspace's path on this host when it differs from the path asked: the goal moved from a
     * host with other roots, and this host holds it at the same place under one of its own.
     */
    workspace: z.string().optional(),
    /** The workspace's path under the root of this host that holds it (hosts with roots only). */
    relative: z.string().optional(),
    /**
     * Why the asking goal may not run here, in one line: its workspace lies inside, or holds, a
     * running goal's (activities/hosts/probe-claim.ts). Its start fails with WorkspaceNested.
     */
    refusal: z.string().optional(),
  }),
);
export type WorkspaceProbe = z.infer<typeof workspaceProbeSchema>;

/** Where a goal's workspace can be recreated from when it must move to another host. */
export const workspaceSourceSchema = z
  .object({
    git: z.string().min(1, 'git: a repository URL'),
    ref: z.string().min(1).optional(),
  })
  .strict();
export type WorkspaceSource = z.infer<typeof workspaceSourceSchema>;
