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
  const answer = await askWorker({
    client,
    workflowId: handle.workflowId,
    taskQueue,
    ask: () => decideApproval(handle, { ...decision, via: 'update' }) as Promise<ApprovalReceipt>,
  });
  if (answer.answered) return { kind: 'decided', receipt: answer.value };
  // An Update that was sent and not answered may still be applied when a worker comes: it carries
  // the same decision, so whichever arrives second is refused as already decided.
  await decideApproval(handle, { ...decision, via: 'signal' });
  return { kind: 'signalled', noWorker: answer.noWorker };
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
  const callIds = options.select(listed.value.pendingApprovals).map((call) => call.callId);
  if (callIds.length === 0) return { kind: 'none-selected' };
  const decided = await askWorker({
    client,
    workflowId,
    taskQueue,
    workersPresent,
    ask: () =>
      decideApprovals(
        handle,
        callIds.map((callId) => ({ ...decision, callId })),
      ),
  });
  if (decided.answered) return { kind: 'decided', receipts: decided.value };
  await signalEach(handle, decision, callIds);
  return { kind: 'signalled', noWorker: decided.noWorker, callIds };
}

/** One signal per call, in order; a failure part way says which were sent and which were not. */
async function signalEach(
  handle: GoalHandle,
  decision: Omit<DecisionOptions, 'via' | 'callId'>,
  callIds: readonly string[],
): Promise<void> {
  for (const [index, callId] of callIds.entries()) {
    try {
      await decideApproval(handle, { ...decision, callId, via: 'signal' });
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
