import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { WorkspaceProbeState, type WorkspaceProbe } from '../../workflows/hosts/host-queues';
import { parseHostActivityInput, workspacePathSchema } from './host-activity-input';
import { relativeUnderRoots, resolvedPath } from './workspace-roots';
import { workspaceCandidates } from './workspace-mapping';
import { createProbeClaim } from './probe-claim';

export const probeWorkspaceInputSchema = z
  .object({
    workspace: workspacePathSchema,
    /**
     * The workspace's path under its root on the host the goal leaves: a host whose roots do not
     * hold `workspace` looks for it at that path under its own roots (workspace-mapping.ts).
     */
    relative: z.string().optional(),
  })
  .strict();
export type ProbeWorkspaceInput = z.infer<typeof probeWorkspaceInputSchema>;

export interface HostIdentity {
  hostId: string;
  /** Absolute paths this host serves workspaces under; empty: any path. */
  workspaceRoots: readonly string[];
}

/**
 * What this host has at a workspace path, so a goal can bind to the host that holds its
 * workspace. It looks, and the asking goal claims what it found: a missing path is an answer
 * ("missing"), never an error.
 */
export function createProbeWorkspaceActivity(host: HostIdentity, claim = createProbeClaim(host)) {
  return {
    async probeWorkspace(raw: ProbeWorkspaceInput): Promise<WorkspaceProbe> {
      const input = parseHostActivityInput(probeWorkspaceInputSchema, raw, 'probeWorkspace');
      // The asking goal claims the workspace in the same answer (probe-claim.ts).
      return claim(await look(input, host), input.workspace);
    },
  };
}

/** What the host has at the path asked (or, on a move, at the same place under its roots). */
async function look(input: ProbeWorkspaceInput, host: HostIdentity): Promise<WorkspaceProbe> {
  const roots = host.workspaceRoots;
  const place = await placeOf(input.workspace, roots);
  if (place.state !== WorkspaceProbeState.OutsideRoots) {
    return {
      hostId: host.hostId,
      state: place.state,
      ...(place.relative === undefined ? {} : { relative: place.relative }),
    };
  }
  if (input.relative === undefined) return { hostId: host.hostId, state: place.state };
  return mappedProbe(host.hostId, input.relative, roots);
}

/** A workspace from a host with other roots: the first of this host's candidates that holds it. */
async function mappedProbe(
  hostId: string,
  relative: string,
  roots: readonly string[],
): Promise<WorkspaceProbe> {
  const candidates = workspaceCandidates(relative, roots);
  const first = candidates[0];
  if (first === undefined) return { hostId, state: WorkspaceProbeState.OutsideRoots };
  // All at once (see placeOf), then judged in order, as one after another would be.
  const places = await Promise.all(candidates.map((candidate) => placeOf(candidate, roots)));
  for (const [index, place] of places.entries()) {
    const candidate = candidates[index] ?? first;
    if (place.state === WorkspaceProbeState.Present)
      return { hostId, state: place.state, workspace: candidate, relative };
  }
  return { hostId, state: places[0]?.state ?? WorkspaceProbeState.Missing, workspace: first, relative };
}

/**
 * The state of a workspace path on this host. Roots come first: a host does not even say whether
 * it has a path it does not serve. An unreadable path (EACCES, say) throws, to be retried.
 */
export async function workspaceState(
  workspace: string,
  workspaceRoots: readonly string[],
): Promise<WorkspaceProbeState> {
  return (await placeOf(workspace, workspaceRoots)).state;
}

/**
 * The state of a path and where it lies under the roots, in one round of file-system requests
 * (issue 41). A probe asked them one after another (up to a dozen for a missing path under
 * roots), and each waits behind all the file work queued in libuv's thread pool: on a worker busy
 * with many goals' journals, backups and reads, a probe that takes a millisecond idle took tens
 * of seconds and outlived its timeout. Asked together, it waits about as long as one request.
 */
async function placeOf(
  workspace: string,
  roots: readonly string[],
): Promise<{ state: WorkspaceProbeState; relative?: string }> {
  const [resolved, resolvedRoots, found] = await Promise.all([
    roots.length === 0 ? undefined : resolvedPath(workspace),
    Promise.all(roots.map(resolvedPath)),
    statState(workspace).then(
      (state) => ({ state }),
      (error: unknown) => ({ error }),
    ),
  ]);
  const relative = resolved === undefined ? undefined : relativeUnderRoots(resolved, resolvedRoots);
  // Judged by the roots before the stat: a path outside them is not ours to say anything of.
  if (roots.length > 0 && relative === undefined) return { state: WorkspaceProbeState.OutsideRoots };
  if ('error' in found) throw found.error;
  return { state: found.state, ...(relative === undefined ? {} : { relative }) };
}

async function statState(workspace: string): Promise<WorkspaceProbeState> {
  try {
    return (await stat(workspace)).isDirectory()
      ? WorkspaceProbeState.Present
      : WorkspaceProbeState.NotADirectory;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a file stands where a parent directory should be; the workspace is not there.
    if (code === 'ENOENT' || code === 'ENOTDIR') return WorkspaceProbeState.Missing;
    throw error;
  }
}
