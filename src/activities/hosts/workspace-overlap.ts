import path from 'node:path';

/** The directory name keel keeps workspaces' state under (workspace-state-directory.ts). */
export const STATE_DIRECTORY_NAME = '.keel-state';

/** A running goal's hold on a workspace: both paths resolved (symbolic links followed). */
export interface WorkspaceClaim {
  workflowId: string;
  /** The workspace's real path. */
  workspace: string;
  /** The real path of its state (held layers, journal, backups), beside it. */
  stateRoot: string;
  /**
   * Where the symbolic links lie that the workspace's path as given (and its state's) passes
   * through: each link's own real location. The goal keeps using the path as given, so whoever may
   * change such a link may point the goal's tools, and its held changes, elsewhere. Absent in
   * claims recorded before.
   */
  links?: string[];
}

/**
 * Whether `inner` is `outer` or lies under it. Pure path arithmetic on absolute paths: trailing
 * slashes and `..` are normalised first, and `/w/ab` is not under `/w/a` (a prefix of the string
 * is not a parent directory).
 */
export function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(path.resolve(outer), path.resolve(inner));
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
}

/** Whether one workspace is, holds, or lies inside the other. */
export function workspacesOverlap(first: string, second: string): boolean {
  return isWithin(first, second) || isWithin(second, first);
}

/** Whether a path is keel's state directory or lies inside one (any `.keel-state` on its way). */
export function isInsideStateDirectory(target: string): boolean {
  return path.resolve(target).split(path.sep).includes(STATE_DIRECTORY_NAME);
}

/** Why a new claim cannot stand beside a running goal's, or undefined when it can. */
export type ClaimConflict =
  | { kind: 'inside' | 'contains'; other: WorkspaceClaim }
  | { kind: 'state-inside'; other: WorkspaceClaim }
  | { kind: 'holds-state'; other: WorkspaceClaim }
  | { kind: 'through-link' | 'holds-link'; other: WorkspaceClaim; link: string }
  | { kind: 'in-state-directory' }
  | { kind: 'own-state-inside' }
  | { kind: 'holds-keel-state'; directory: string }
  | { kind: 'state-on-registry'; registry: string };

/** Where this host keeps what no goal may touch: the claims registry file, and every state directory. */
export interface KeelState {
  /** The registry file (workspace-claims.ts), real path; its lock and its aside copies lie beside it. */
  registry: string;
  /** Real paths of the state directories besides the registry's: each workspace root's `.keel-state`. */
  stateDirectories: readonly string[];
}

/**
 * Whether a workspace would hold keel's own state: a goal there could rewrite the registry (and
 * drop the claims that keep siblings out) or other goals' held changes and journals, unapproved.
 * Or whether its state would land on the registry (a workspace named `workspace-claims.json`
 * beside the first root's state): its state directory and the registry would be one path.
 */
function keelStateConflict(claim: WorkspaceClaim, keel: KeelState): ClaimConflict | undefined {
  const registryDirectory = path.dirname(keel.registry);
  for (const directory of [registryDirectory, ...keel.stateDirectories])
    if (isWithin(directory, claim.workspace)) return { kind: 'holds-keel-state', directory };
  const name = path.basename(claim.stateRoot);
  const registryName = path.basename(keel.registry);
  const onRegistry =
    path.resolve(path.dirname(claim.stateRoot)) === path.resolve(registryDirectory) &&
    (name === registryName || name.startsWith(`${registryName}.`));
  if (onRegistry || isWithin(registryDirectory, claim.stateRoot))
    return { kind: 'state-on-registry', registry: keel.registry };
  return undefined;
}

/**
 * The first reason `claim` may not run beside `others` (claims of other goals): one workspace
 * inside another, either one's state inside the other's workspace (a symbolic link can put a
 * workspace's state under a workspace that does not hold the workspace itself), or a workspace
 * inside keel's state, where every sibling's held changes lie. Claims of the same goal (its
 * retries, its later runs) never conflict with it; nor do two goals in the very same workspace:
 * its state lies beside it, out of both goals' reach, as it always has.
 */
export function claimConflict(
  claim: WorkspaceClaim,
  others: readonly WorkspaceClaim[],
  keel?: KeelState,
): ClaimConflict | undefined {
  if (isInsideStateDirectory(claim.workspace)) return { kind: 'in-state-directory' };
  // `/` (or a link to it) would hold its own state, `/.keel-state`, and every other's.
  if (isWithin(claim.stateRoot, claim.workspace)) return { kind: 'own-state-inside' };
  const held = keel === undefined ? undefined : keelStateConflict(claim, keel);
  if (held !== undefined) return held;
  for (const other of others) {
    if (other.workflowId === claim.workflowId) continue;
    if (path.resolve(claim.workspace) === path.resolve(other.workspace)) continue;
    if (isWithin(claim.workspace, other.workspace)) return { kind: 'inside', other };
    if (isWithin(other.workspace, claim.workspace)) return { kind: 'contains', other };
    if (isWithin(other.stateRoot, claim.workspace)) return { kind: 'holds-state', other };
    if (isWithin(claim.stateRoot, other.workspace)) return { kind: 'state-inside', other };
    // A link on the way to one goal's workspace, inside another's, is that other goal's to change.
    const through = (claim.links ?? []).find((link) => isWithin(link, other.workspace));
    if (through !== undefined) return { kind: 'through-link', other, link: through };
    const held = (other.links ?? []).find((link) => isWithin(link, claim.workspace));
    if (held !== undefined) return { kind: 'holds-link', other, link: held };
  }
  return undefined;
}

/** The one line a refused start fails with. */
export function conflictLine(claim: WorkspaceClaim, conflict: ClaimConflict): string {
  const reason =
    " (a goal could rewrite the other goal's held changes); wait for that goal to end or choose another directory";
  switch (conflict.kind) {
    case 'in-state-directory':
      return `workspace ${claim.workspace} lies inside keel's state directory (${STATE_DIRECTORY_NAME}), where held changes and journals are kept: choose another directory`;
    case 'holds-keel-state':
      return `workspace ${claim.workspace} contains ${conflict.directory}, keel's state directory (the workspace claims, other goals' held changes and journals), which no goal may rewrite: choose a directory below it`;
    case 'state-on-registry':
      return `workspace ${claim.workspace} would keep its state at ${claim.stateRoot}, where keel keeps its workspace claims (${conflict.registry}): rename the directory`;
    case 'own-state-inside':
      return `workspace ${claim.workspace} would hold its own state (${claim.stateRoot}), where held changes and journals are kept: choose a directory below it`;
    case 'inside':
      return `workspace ${claim.workspace} lies inside ${conflict.other.workspace}, the workspace of running goal ${conflict.other.workflowId}: workspaces never nest${reason}`;
    case 'contains':
      return `workspace ${claim.workspace} contains ${conflict.other.workspace}, the workspace of running goal ${conflict.other.workflowId}: workspaces never nest${reason}`;
    case 'holds-state':
      return `workspace ${claim.workspace} contains ${conflict.other.stateRoot}, the state of running goal ${conflict.other.workflowId}${reason}`;
    case 'through-link':
      return `workspace ${claim.workspace} is reached through the symbolic link ${conflict.link}, inside ${conflict.other.workspace}, the workspace of running goal ${conflict.other.workflowId}, which that goal could point elsewhere: give the workspace by its real path${reason}`;
    case 'holds-link':
      return `workspace ${claim.workspace} contains the symbolic link ${conflict.link}, through which running goal ${conflict.other.workflowId} reaches its workspace ${conflict.other.workspace}: a goal here could point it elsewhere${reason}`;
    case 'state-inside':
      return `workspace ${claim.workspace} keeps its state in ${claim.stateRoot}, inside ${conflict.other.workspace}, the workspace of running goal ${conflict.other.workflowId}${reason}`;
  }
}
