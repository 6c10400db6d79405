import type { HostView } from '../workflows/goal/messages';
import { unavailableActions } from '../workflows/hosts/host-binding';
import { hostLossText } from '../workflows/hosts/host-loss';
import type { SeenHost } from '../client/host-liveness';

/**
 * The loss of a goal's host as `keel status` and `keel pending` print it: the line (which host,
 * since when, what waits for it) and the actions a human has. The CLI's own reading of the
 * heartbeats wins over what the goal recorded (a watcher's signal may still be on its way);
 * without one (a server that cannot list workers) the goal's record decides. Empty while the host
 * is fine, and while the goal already shows it unavailable (those lines are printed instead).
 */
export function hostLossLines(options: {
  workflowId: string;
  host: HostView | undefined;
  pendingApprovals: number;
  /** undefined: the heartbeats could not be read; 'no-worker': no worker of the host ever beat. */
  seen: SeenHost | 'no-worker' | undefined;
}): string[] {
  const { workflowId, host, seen } = options;
  if (host === undefined || host.unavailableSince !== undefined) return [];
  const since =
    seen === undefined
      ? host.missingSince
      : seen === 'no-worker'
        ? (host.missingSince ?? 'no worker of it beats')
        : seen.state === 'live'
          ? undefined
          : (seen.missingSince ?? host.missingSince ?? 'unknown');
  if (since === undefined) return [];
  const actions = host.actions ?? unavailableActions({ workflowId, canRecreate: host.recreatable === true });
  return [
    hostLossText({ host: host.id, since, pendingApprovals: options.pendingApprovals }),
    ...actions.map((action) => `  ${action}`),
  ];
}
