import { WorkspaceProbeState, type WorkspaceProbe } from '../../workflows/hosts/host-queues';
import path from 'node:path';
import { activityContextOrUndefined } from '../activity-context';
import { goalLivenessOn } from './goal-liveness';
import type { HostIdentity } from './probe-workspace';
import { claimOf, claimWorkspace, registryDirectory, type GoalLiveness } from './workspace-claims';
import { STATE_DIRECTORY_NAME } from './workspace-overlap';
import { resolvedPath } from './workspace-roots';

/**
 * The goal that asks a host for its workspace claims it there, in the same answer: the host's
 * registry (workspace-claims.ts) records it, or the answer carries the one line why it may not
 * run here (its workspace inside, or holding, a running goal's), which fails the goal at its
 * start (goal/host/binding.ts). Asked in the probe because every goal asks it before anything else runs
 * in its workspace, and without a new step in the goal's history.
 *
 * Only a present workspace, or a missing one the goal may clone, is claimed; a probe called
 * outside an activity (a test, a tool) claims nothing.
 */
export function createProbeClaim(host: HostIdentity, liveness?: (hostId: string) => GoalLiveness) {
  const directory = registryDirectory(host.hostId, host.workspaceRoots);
  return async (probe: WorkspaceProbe, asked: string): Promise<WorkspaceProbe> => {
    if (probe.state !== WorkspaceProbeState.Present && probe.state !== WorkspaceProbeState.Missing)
      return probe;
    const context = activityContextOrUndefined();
    const workflowId = context?.info.workflowExecution?.workflowId;
    if (context === undefined || workflowId === undefined) return probe;
    const claim = await claimOf(workflowId, probe.workspace ?? asked);
    const isLive = liveness?.(host.hostId) ?? goalLivenessOn(context.client, host.hostId);
    // Every root's `.keel-state` holds its workspaces' state: a workspace holding one (a root
    // itself, or above it) could rewrite its siblings' held changes and journals.
    const stateDirectories = await Promise.all(
      host.workspaceRoots.map((root) => resolvedPath(path.join(root, STATE_DIRECTORY_NAME))),
    );
    const outcome = await claimWorkspace({ directory, claim, isLive, stateDirectories });
    return outcome.ok ? probe : { ...probe, refusal: outcome.line };
  };
}
