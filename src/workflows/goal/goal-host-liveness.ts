import { LedgerEventKind } from '../common/ledger';
import { hostLivenessChange } from '../hosts/host-loss';
import type { GoalState } from './goal-state';
import type { GoalVisibility } from './goal-visibility';

/**
 * Applies a host watcher's hostLiveness signal: the loss (or the return) of the goal's host is
 * recorded in the ledger and shown in the status and the Web UI's details. Nothing else: the
 * goal does not move, and no call runs anywhere because of it. Repeats change nothing, so the
 * watchers of several workers may all say it.
 */
export function recordHostLiveness(
  goal: { state: GoalState; visibility: GoalVisibility },
  signal: { host: string; state: 'missing' | 'live'; since: string; by: string },
): void {
  const { state, visibility } = goal;
  const change = hostLivenessChange({ current: state.hostMissing, boundHost: state.host?.id, signal });
  if (change.kind === 'none') return;
  if (change.kind === 'missing') {
    state.hostMissing = change.missing;
    visibility.record(
      LedgerEventKind.HostMissing,
      `host ${change.missing.host} missing since ${change.missing.since} (seen by ${change.missing.by})`,
      { ...change.missing },
    );
  } else {
    delete state.hostMissing;
    visibility.record(LedgerEventKind.HostBack, `host ${change.was.host} is back (seen by ${change.by})`, {
      host: change.was.host,
      missingSince: change.was.since,
      since: change.since,
      by: change.by,
    });
  }
  visibility.show();
}
