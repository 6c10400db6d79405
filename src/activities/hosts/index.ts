import { createListHostsActivity, type HostListing } from './list-hosts';
import { createPrepareWorkspaceActivity } from './prepare-workspace';
import { createCarryWorkspaceActivities } from './carry-workspace';
import { createProbeWorkspaceActivity, type HostIdentity } from './probe-workspace';

export type { HostIdentity } from './probe-workspace';
export type { HostListing, ListHostsInput } from './list-hosts';
export type { PrepareWorkspaceInput, PreparedWorkspace } from './prepare-workspace';
export type { ProbeWorkspaceInput } from './probe-workspace';
export {
  workspaceStateDirectory,
  workspaceStateRoot,
  type WorkspaceStateKind,
} from './workspace-state-directory';

/**
 * The activities of workspace affinity (issue 9): probeWorkspace and prepareWorkspace run on a
 * host's own queue and answer for that host; listHosts runs on the shared queue.
 */
export function createHostActivities(options: HostIdentity & { listing?: HostListing }) {
  const host: HostIdentity = { hostId: options.hostId, workspaceRoots: [...options.workspaceRoots] };
  return {
    ...createProbeWorkspaceActivity(host),
    ...createPrepareWorkspaceActivity(host),
    ...createCarryWorkspaceActivities(host),
    ...createListHostsActivity(options.listing),
  };
}
