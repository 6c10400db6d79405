import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { WorkspaceProbeState, type WorkspaceProbe } from '../../workflows/hosts/host-queues';
import { parseHostActivityInput, workspacePathSchema } from './host-activity-input';
import { isUnderRoots } from './workspace-roots';
import { pathUnderRoots, workspaceCandidates } from './workspace-mapping';

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
 * workspace. It only looks: a missing path is an answer ("missing"), never an error.
 */
export function createProbeWorkspaceActivity(host: HostIdentity) {
  return {
    async probeWorkspace(raw: ProbeWorkspaceInput): Promise<WorkspaceProbe> {
      const input = parseHostActivityInput(probeWorkspaceInputSchema, raw, 'probeWorkspace');
      const roots = host.workspaceRoots;
      const state = await workspaceState(input.workspace, roots);
      if (state !== WorkspaceProbeState.OutsideRoots) {
        const relative = await pathUnderRoots(input.workspace, roots);
        return { hostId: host.hostId, state, ...(relative === undefined ? {} : { relative }) };
      }
      if (input.relative === undefined) return { hostId: host.hostId, state };
      return mappedProbe(host.hostId, input.relative, roots);
    },
  };
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
  for (const candidate of candidates) {
    const state = await workspaceState(candidate, roots);
    if (state === WorkspaceProbeState.Present) return { hostId, state, workspace: candidate, relative };
  }
  return { hostId, state: await workspaceState(first, roots), workspace: first, relative };
}

/**
 * The state of a workspace path on this host. Roots come first: a host does not even say whether
 * it has a path it does not serve. An unreadable path (EACCES, say) throws, to be retried.
 */
export async function workspaceState(
  workspace: string,
  workspaceRoots: readonly string[],
): Promise<WorkspaceProbeState> {
  if (!(await isUnderRoots(workspace, workspaceRoots))) return WorkspaceProbeState.OutsideRoots;
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
