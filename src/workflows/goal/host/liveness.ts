import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import { unavailableActions, unavailableText, type HostBinding } from '../../hosts/host-binding';
import { hostLivenessChange } from '../../hosts/host-loss';
import type { WorkspaceProbe } from '../../hosts/host-queues';
import { GoalPhase, type GoalState } from '../lifecycle/state';
import type { GoalVisibility } from '../views/visibility';
import type { AskedHost } from './questions';

/** While a host is away, the question to it waits in its queue up to this long before it is asked anew. */
const LONGEST_QUESTION_WAIT_MS = 10 * 60_000;

type AskHost = (hostId: string, waitMs: number) => Promise<AskedHost>;

/**
 * A call found no worker of the goal's host: the wait a human sees (phase host-unavailable, the
 * ledger, candidate actions), asking the host again until it answers or a human rebinds the goal.
 */
export async function waitForHost(
  goal: { state: GoalState; visibility: GoalVisibility; workflowId: string },
  ask: AskHost,
): Promise<void> {
  const { state, visibility } = goal;
  const host = state.host as HostBinding;
  const phaseBefore = state.phase;
  host.unavailableSince = new Date().toISOString();
  const actions = unavailableActions({
    workflowId: goal.workflowId,
    canRecreate: state.config.workspaceSource !== undefined,
  });
  visibility.record(LedgerEventKind.HostUnavailable, unavailableText(host), {
    host: host.id,
    since: host.unavailableSince,
    actions,
  });
  state.phase = GoalPhase.HostUnavailable;
  visibility.show();
  const waitingFor = host.id;
  // A question waits in the host's queue until a worker takes it, so a longer wait does not
  // delay the resumption; it only keeps a week-long outage from filling the history.
  let questionWaitMs = state.config.timing.hostTimeoutMs;
  const longestWaitMs = Math.max(questionWaitMs, LONGEST_QUESTION_WAIT_MS);
  for (;;) {
    if (state.host?.id !== waitingFor) break; // rebound by a human (rebindHost)
    const answer = await askUnlessRebound(state, ask, waitingFor, questionWaitMs);
    questionWaitMs = Math.min(questionWaitMs * 2, longestWaitMs);
    if (answer !== undefined) {
      visibility.record(LedgerEventKind.HostAvailable, `host ${waitingFor} is back`, {
        host: waitingFor,
        unavailableSince: host.unavailableSince,
        workspace: answer.state,
      });
      delete host.unavailableSince;
      break;
    }
  }
  if (state.phase === GoalPhase.HostUnavailable) state.phase = phaseBefore;
  visibility.show();
}

/** Asks the host again (its workers take the question once they poll), unless a rebind comes first. */
async function askUnlessRebound(
  state: GoalState,
  ask: AskHost,
  hostId: string,
  waitMs: number,
): Promise<WorkspaceProbe | undefined> {
  // One scope for both: whichever loses is cancelled, so no wait outlives its round.
  const scope = new wf.CancellationScope();
  const first = await scope.run(() =>
    Promise.race([
      ask(hostId, waitMs).then((answer) => answer.probe),
      wf.condition(() => state.host?.id !== hostId).then(() => undefined),
    ]),
  );
  scope.cancel();
  return first;
}

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
