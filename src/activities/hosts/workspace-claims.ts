import { lstat, mkdir, readFile, realpath, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import lockfile from 'proper-lockfile';
import { z } from 'zod';
import { lockCompromised, registryCorrupt } from './workspace-claims-failures';
import { claimConflict, conflictLine, STATE_DIRECTORY_NAME, type WorkspaceClaim } from './workspace-overlap';
import { resolvedPath } from './workspace-roots';
import { workspaceStateRoot } from './workspace-state-directory';

const REGISTRY_SCHEMA_VERSION = 1;
const REGISTRY_FILE = 'workspace-claims.json';

const registrySchema = z.object({
  schemaVersion: z.literal(REGISTRY_SCHEMA_VERSION),
  claims: z.array(
    z.object({
      workflowId: z.string().min(1),
      workspace: z.string().min(1),
      stateRoot: z.string().min(1),
      links: z.array(z.string().min(1)).optional(),
      claimedAt: z.string(),
    }),
  ),
});
type Registry = z.infer<typeof registrySchema>;

/** Whether a goal's workflow still runs with its workspace on this host. */
export type GoalLiveness = (workflowId: string) => Promise<boolean>;

/** Above this many claims, every claim's goal is asked after, and the ended ones dropped. */
const PRUNE_ABOVE = 64;

/**
 * A holder that died leaves the lock stale after a minute without its refresh, and it is taken
 * over. A minute, refreshed every 10 s: a worker busy enough to miss five refreshes in a row is
 * rare, while 10 s (refreshed at 5 s) was missed under load and the lock lost mid-claim.
 */
const LOCK_TIMING = { staleMilliseconds: 60_000, updateMilliseconds: 10_000 };

/**
 * The host's registry of running goals' workspaces: one file with a lock, on the host's first
 * workspace root, which every replica of the host shares (docs/several-machines.md), so two goals
 * started at once on two replicas are judged one after the other and cannot both pass.
 *
 * Nothing removes a claim when its goal ends (a terminated goal runs no code): a claim stands in
 * the way only while its goal's workflow still runs with this host, which is asked of Temporal
 * before a start is refused. A host without roots keeps its registry in KEEL_STATE_DIRECTORY, or
 * else the temporary directory.
 */
export function registryDirectory(hostId: string, workspaceRoots: readonly string[]): string {
  const root = workspaceRoots[0];
  if (root !== undefined) return path.join(path.resolve(root), STATE_DIRECTORY_NAME);
  // KEEL_STATE_DIRECTORY: where a host without roots keeps it instead (its tests: a folder they remove).
  const base = process.env.KEEL_STATE_DIRECTORY?.trim() || tmpdir();
  return path.join(base, `keel-workspace-claims-${encodeURIComponent(hostId)}`);
}

/**
 * The claim of a workspace as given: its real path, the real path of its state beside it, and
 * where the symbolic links lie that either path as given passes through.
 */
export async function claimOf(workflowId: string, workspace: string): Promise<WorkspaceClaim> {
  const state = workspaceStateRoot(workspace);
  const [real, stateRoot, workspaceLinks, stateLinks] = await Promise.all([
    resolvedPath(workspace),
    resolvedPath(state),
    linksOnTheWay(workspace),
    linksOnTheWay(state),
  ]);
  const links = [...new Set([...workspaceLinks, ...stateLinks])];
  return { workflowId, workspace: real, stateRoot, ...(links.length > 0 ? { links } : {}) };
}

/**
 * The real location of every symbolic link met while following `target` as given, component by
 * component: `/w/a/link/sub` with `link` a link gives `<real /w/a>/link`, and so on below it.
 */
export async function linksOnTheWay(target: string): Promise<string[]> {
  const links: string[] = [];
  const parts = path
    .resolve(target)
    .split(path.sep)
    .filter((part) => part !== '');
  let walked: string = path.sep;
  for (const part of parts) {
    const next = path.join(walked, part);
    const stat = await lstat(next).catch(() => undefined);
    if (stat === undefined) break; // nothing further exists to be a link
    if (stat.isSymbolicLink()) links.push(path.join(await resolvedPath(walked), part));
    walked = next;
  }
  return links;
}

export type ClaimOutcome = { ok: true } | { ok: false; line: string };

/**
 * Records `claim` unless it overlaps a running goal's (workspace-overlap.ts): then the one line
 * that says why. Idempotent for one goal (a retry, a later run, a move back).
 */
export async function claimWorkspace(options: {
  directory: string;
  claim: WorkspaceClaim;
  isLive: GoalLiveness;
  /** Real paths of the host's other state directories (each workspace root's `.keel-state`). */
  stateDirectories?: readonly string[];
  now?: () => Date;
  /** Tests shorten it to see a lock lost; proper-lockfile takes at least 2 s and 1 s. */
  lockTiming?: { staleMilliseconds: number; updateMilliseconds: number };
}): Promise<ClaimOutcome> {
  const { directory, claim, isLive } = options;
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, REGISTRY_FILE);
  // Real paths, as the claim's: a workspace must not hold the registry through a symbolic link.
  const keel = {
    registry: path.join(await realpath(directory), REGISTRY_FILE),
    stateDirectories: options.stateDirectories ?? [],
  };
  // The lock is a directory beside the file (atomic mkdir, also on network file systems).
  const timing = options.lockTiming ?? LOCK_TIMING;
  let lost: Error | undefined;
  const release = await lockfile.lock(directory, {
    lockfilePath: `${file}.lock`,
    stale: timing.staleMilliseconds,
    update: timing.updateMilliseconds,
    retries: { retries: 50, minTimeout: 50, maxTimeout: 500 },
    onCompromised: (error) => {
      lost = error; // seen below, before the write and after it (workspace-claims-failures.ts)
    },
  });
  const held = () => {
    if (lost !== undefined) throw lockCompromised(file, lost);
  };
  try {
    const registry = await readRegistry(file);
    let others = registry.claims.filter((entry) => entry.workflowId !== claim.workflowId);
    for (;;) {
      const conflict = claimConflict(claim, others, keel);
      if (conflict === undefined) break;
      if (!('other' in conflict)) return { ok: false, line: conflictLine(claim, conflict) };
      // A goal that ended (completed, failed, cancelled, terminated, timed out) holds nothing.
      if (await isLive(conflict.other.workflowId)) return { ok: false, line: conflictLine(claim, conflict) };
      const ended = conflict.other.workflowId;
      others = others.filter((entry) => entry.workflowId !== ended);
    }
    if (others.length > PRUNE_ABOVE) {
      const live = await Promise.all(others.map((entry) => isLive(entry.workflowId)));
      others = others.filter((_, index) => live[index]);
    }
    const claimedAt = (options.now ?? (() => new Date()))().toISOString();
    held();
    await writeRegistry(file, {
      schemaVersion: REGISTRY_SCHEMA_VERSION,
      claims: [...others, { ...claim, claimedAt }],
    });
    held(); // lost during the write: another claimant may have judged without this claim
    return { ok: true };
  } finally {
    // A lost lock is no longer ours to release (it may be another claimant's by now).
    if (lost === undefined) await release();
  }
}

async function readRegistry(file: string): Promise<Registry> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { schemaVersion: REGISTRY_SCHEMA_VERSION, claims: [] };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw registryCorrupt(file, 'not JSON');
  }
  const parsed = registrySchema.safeParse(json);
  if (!parsed.success) throw registryCorrupt(file, `not schema version ${REGISTRY_SCHEMA_VERSION}`);
  return parsed.data;
}

/** Written aside and renamed into place: a reader never sees half a registry. */
async function writeRegistry(file: string, registry: Registry): Promise<void> {
  const aside = `${file}.${randomBytes(4).toString('hex')}`;
  await writeFile(aside, `${JSON.stringify(registry, null, 2)}\n`);
  await rename(aside, file);
}
