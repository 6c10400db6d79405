import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { WorkspaceProbeState, type WorkspaceProbe } from '../../workflows/hosts/host-queues';
import { parseHostActivityInput, workspacePathSchema } from './host-activity-input';
import { isUnderRoots } from './workspace-roots';

export const probeWorkspaceInputSchema = z.object({ workspace: workspacePathSchema }).strict();
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
      return { hostId: host.hostId, state: await workspaceState(input.workspace, host.workspaceRoots) };
    },
  };
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
