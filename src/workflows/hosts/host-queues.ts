import { z } from 'zod';

/**
 * Workspace affinity (the pattern Temporal documents for files that live on one host): every
 * worker polls the shared task queue (goal workflows, model calls) and a queue of its own host,
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

const IDENTITY_PREFIX = 'keel-host=';

/**
 * A keel worker's Temporal identity names its host, so the hosts serving a queue can be read off
 * its pollers (DescribeTaskQueue) without a registry of their own.
 */
export function workerIdentity(hostId: string, pid: number, machine: string): string {
  return `${IDENTITY_PREFIX}${hostId} ${pid}@${machine}`;
}

/** The host id in a keel worker's identity; undefined for other pollers. */
export function hostIdOfIdentity(identity: string): string | undefined {
  if (!identity.startsWith(IDENTITY_PREFIX)) return undefined;
  const hostId = identity.slice(IDENTITY_PREFIX.length).split(' ')[0] ?? '';
  return hostIdSchema.safeParse(hostId).success ? hostId : undefined;
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

export const workspaceProbeSchema = z.object({
  hostId: z.string(),
  state: z.enum(['present', 'missing', 'not-a-directory', 'outside-roots']),
});
export type WorkspaceProbe = z.infer<typeof workspaceProbeSchema>;

/** Where a goal's workspace can be recreated from when it must move to another host. */
export const workspaceSourceSchema = z
  .object({
    git: z.string().min(1, 'git: a repository URL'),
    ref: z.string().min(1).optional(),
  })
  .strict();
export type WorkspaceSource = z.infer<typeof workspaceSourceSchema>;
