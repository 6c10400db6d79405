import type { Client } from '@temporalio/client';
import type { ApprovalReceipt, PendingApprovalView } from '../workflows/goal/messages';
import {
  decideApproval,
  decideApprovals,
  goalStatus,
  type DecisionOptions,
  type GoalHandle,
} from './goal-client';
import type { NoWorker } from './no-worker';
import { changeSetDigest } from '../workflows/approvals/change-set-digest';
import { askWorker, workersMayAnswer } from './worker-answer';

/**
 * Approving or denying when the goal's worker may be gone (issue 41). The Update tells at once
 * whether the goal took the decision, but waits for a worker to say so: it is tried for a few
 * seconds at most, and not at all when the task queue shows no worker. Otherwise the decision goes
 * as the approve/deny signal, with the same fields and signature: the server records it in the
 * goal's history, and the goal judges it like any decision when a worker runs it again.
 */

export type DecisionDelivery =
  { kind: 'decided'; receipt: ApprovalReceipt } | { kind: 'signalled'; noWorker: NoWorker };

export async function deliverDecision(
  client: Client,
  handle: GoalHandle,
  decision: Omit<DecisionOptions, 'via'>,
): Promise<DecisionDelivery> {
  const { taskQueue } = await handle.describe();
  const listed =
    decision.signingKey === undefined ? decision : await withListing(client, handle, taskQueue, decision);
  const answer = await askWorker({
    client,
    workflowId: handle.workflowId,
    taskQueue,
    ask: () => decideApproval(handle, { ...listed, via: 'update' }) as Promise<ApprovalReceipt>,
  });
  if (answer.answered) return { kind: 'decided', receipt: answer.value };
  // An Update that was sent and not answered may still be applied when a worker comes: it carries
  // the same decision, so whichever arrives second is refused as already decided.
  await decideApproval(handle, { ...listed, via: 'signal' });
  return { kind: 'signalled', noWorker: answer.noWorker };
}

/**
 * A signed decision with the call as the goal lists it now, so the signature covers which ask it
 * decides (an escalated call is asked twice). Unlisted (no worker answers, or the call is not
 * waiting) it is signed without: the goal takes that for a call's first ask only.
 */
async function withListing(
  client: Client,
  handle: GoalHandle,
  taskQueue: string,
  decision: Omit<DecisionOptions, 'via'>,
): Promise<Omit<DecisionOptions, 'via'>> {
  const listing = await askWorker({
    client,
    workflowId: handle.workflowId,
    taskQueue,
    ask: () => goalStatus(handle),
  });
  const call = listing.answered
    ? listing.value.pendingApprovals.find((pending) => pending.callId === decision.callId)
    : undefined;
  return call === undefined ? decision : { ...decision, listed: call };
}

export type BulkDelivery =
  | { kind: 'decided'; receipts: ApprovalReceipt[] }
  /** No worker listed the pending calls: nothing was sent. */
  | { kind: 'not-listed'; noWorker: NoWorker }
  /** The goal lists none that `select` keeps: nothing was sent. */
  | { kind: 'none-selected' }
  /** Listed, but the Update was not answered: a signal per call went instead. */
  | { kind: 'signalled'; noWorker: NoWorker; callIds: string[] };

/**
 * `keel approve|deny <goal> --all`: the calls the goal lists (those `select` keeps) decided in one
 * Update, all or none. The list comes from the goal's worker; without it nothing is sent, since
 * only the goal knows which calls wait. A worker that listed them but does not take the Update in
 * time gets one signal per call instead, each judged on its own.
 */
export async function deliverBulkDecision(options: {
  client: Client;
  handle: GoalHandle;
  select: (pending: readonly PendingApprovalView[]) => PendingApprovalView[];
  decision: Omit<DecisionOptions, 'via' | 'callId'>;
}): Promise<BulkDelivery> {
  const { client, handle, decision } = options;
  const { taskQueue } = await handle.describe();
  const workflowId = handle.workflowId;
  const workersPresent = await workersMayAnswer({
    connection: client.connection,
    namespace: client.options.namespace,
    taskQueue,
  });
  const listed = await askWorker({
    client,
    workflowId,
    taskQueue,
    workersPresent,
    ask: () => goalStatus(handle),
  });
  if (!listed.answered) return { kind: 'not-listed', noWorker: listed.noWorker };
  const decisions = options
    .select(listed.value.pendingApprovals)
    .map((call) => listedDecision(decision, call));
  const callIds = decisions.map((each) => each.callId);
  if (callIds.length === 0) return { kind: 'none-selected' };
  const decided = await askWorker({
    client,
    workflowId,
    taskQueue,
    workersPresent,
    ask: () => decideApprovals(handle, decisions),
  });
  if (decided.answered) return { kind: 'decided', receipts: decided.value };
  await signalEach(handle, decisions);
  return { kind: 'signalled', noWorker: decided.noWorker, callIds };
}

/**
 * One call's decision as it was listed: it names the held changes the listing showed, so a set
 * that changed since (a call escalated between the listing and the send) is refused by the goal,
 * not approved unseen; and a signature covers the ask that was listed.
 */
export function listedDecision(
  decision: Omit<DecisionOptions, 'via' | 'callId'>,
  call: PendingApprovalView,
): Omit<DecisionOptions, 'via'> {
  return {
    ...decision,
    callId: call.callId,
    listed: call,
    ...(call.heldChanges === undefined ? {} : { changesDigest: changeSetDigest(call.heldChanges) }),
  };
}

/** One signal per call, in order; a failure part way says which were sent and which were not. */
async function signalEach(
  handle: GoalHandle,
  decisions: ReadonlyArray<Omit<DecisionOptions, 'via'>>,
): Promise<void> {
  const callIds = decisions.map((each) => each.callId);
  for (const [index, decision] of decisions.entries()) {
    try {
      await decideApproval(handle, { ...decision, via: 'signal' });
    } catch (error) {
      const sent = callIds.slice(0, index);
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(
        `the decisions went as signals for ${sent.length === 0 ? 'no call' : sent.join(', ')}, not for ${callIds.slice(index).join(', ')}: ${message}`,
        { cause: error },
      );
    }
  }
}
