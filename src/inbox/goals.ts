import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { DecisionOptions } from '../client/goal-client';
import { closedGoalStatus, goalHandle, goalStatus } from '../client/goal-client';
import { deliverBulkDecision, deliverDecision } from '../client/decision-delivery';
import {
  bulkNotSentLine,
  bulkSignalledLine,
  noWorkerCause,
  signalledDecisionLine,
} from '../client/no-worker';
import { runningGoals, statusOfEach } from '../client/pending-calls';
import { pendingEntries, type PendingEntry } from '../client/pending-entries';
import { askWorker } from '../client/worker-answer';
import { followGoalEvents, type GoalStreamEvent } from '../client/goal-events';
import { changeSetDigest } from '../workflows/approvals/change-set-digest';
import type { LedgerEvent } from '../workflows/common/ledger';
import { ledgerQuery, type GoalStatusView } from '../workflows/goal/messages';

/**
 * What the inbox asks of Temporal, behind one small interface so the HTTP side can be tested
 * without a server. Everything goes through the client helpers `keel pending`, `keel approve`
 * and `keel ledger` use: the inbox decides exactly as the CLI does.
 */

export type Decision = Omit<DecisionOptions, 'via' | 'callId'>;
export interface Outcome {
  ok: boolean;
  message: string;
}

export interface InboxGoals {
  /** Every waiting call across running goals, and a line per goal that could not be asked. */
  pending(): Promise<{ entries: PendingEntry[]; notes: string[]; signed: Set<string> }>;
  /** A goal's own view, or why there is none (no worker, no such goal). */
  goal(workflowId: string): Promise<{ view?: GoalStatusView; note?: string }>;
  /** The goal's ledger events after a sequence number (what its page shows first). */
  events(workflowId: string, afterSequence: number): Promise<LedgerEvent[]>;
  /** Its live events after an offset, until the goal ends or the signal aborts (client/goal-events.ts). */
  follow(workflowId: string, after: number, signal: AbortSignal): AsyncIterable<GoalStreamEvent>;
  decide(workflowId: string, callId: string, decision: Decision): Promise<Outcome>;
  /** The named calls of one goal in one Update, each only if still listed with the digest shown. */
  decideBulk(workflowId: string, calls: ReadonlyMap<string, string>, decision: Decision): Promise<Outcome>;
}

export function temporalGoals(client: Client): InboxGoals {
  return {
    async pending() {
      const entries: PendingEntry[] = [];
      const notes: string[] = [];
      /** Goals whose decisions must be signed (their input sets approvalSignatures). */
      const signed = new Set<string>();
      for (const { goal, answer, error } of await statusOfEach(client, await runningGoals(client))) {
        if (answer === undefined) notes.push(`${goal.workflowId} could not be asked: ${error ?? ''}`);
        else if (!answer.answered) notes.push(`${goal.workflowId}: ${noWorkerCause(answer.noWorker)}`);
        else {
          entries.push(...pendingEntries(goal.workflowId, answer.value));
          if (answer.value.signedApprovals === true) signed.add(goal.workflowId);
        }
      }
      return { entries, notes, signed };
    },

    async goal(workflowId) {
      const handle = goalHandle(client, workflowId);
      try {
        const { taskQueue } = await handle.describe();
        const answer = await askWorker({ client, workflowId, taskQueue, ask: () => goalStatus(handle) });
        return answer.answered ? { view: answer.value } : { note: noWorkerCause(answer.noWorker) };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { note: `no goal with id ${workflowId}` };
        throw error;
      }
    },

    events(workflowId, afterSequence) {
      return goalHandle(client, workflowId).query(ledgerQuery, { afterSequence });
    },

    follow(workflowId, after, signal) {
      return followGoalEvents(goalHandle(client, workflowId), { after, signal });
    },

    async decide(workflowId, callId, decision) {
      const handle = goalHandle(client, workflowId);
      return refusedInWords(client, workflowId, async () => {
        const delivery = await deliverDecision(client, handle, { ...decision, callId });
        if (delivery.kind === 'signalled')
          return {
            ok: true,
            message: signalledDecisionLine(delivery.noWorker, { approved: decision.approved, callId }),
          };
        const verb = delivery.receipt.approved ? 'approved' : 'denied';
        return { ok: true, message: `${verb}: ${delivery.receipt.toolSummary}` };
      });
    },

    async decideBulk(workflowId, calls, decision) {
      const handle = goalHandle(client, workflowId);
      return refusedInWords(client, workflowId, async () => {
        const delivery = await deliverBulkDecision({
          client,
          handle,
          decision,
          // What the approver saw, or nothing: a call whose held changes differ now was not seen.
          select: (pending) =>
            pending.filter(
              (call) =>
                calls.has(call.callId) &&
                calls.get(call.callId) === (call.heldChanges === undefined ? '' : digestOf(call)),
            ),
        });
        if (delivery.kind === 'none-selected')
          return { ok: false, message: `none of the chosen calls of ${workflowId} waits as shown any more` };
        if (delivery.kind === 'not-listed')
          return { ok: false, message: bulkNotSentLine(delivery.noWorker, decision.approved) };
        if (delivery.kind === 'signalled')
          return {
            ok: true,
            message: bulkSignalledLine(delivery.noWorker, decision.approved, delivery.callIds),
          };
        return {
          ok: true,
          message: delivery.receipts
            .map((receipt) => `${receipt.approved ? 'approved' : 'denied'}: ${receipt.toolSummary}`)
            .join('\n'),
        };
      });
    },
  };
}

function digestOf(call: { heldChanges?: Parameters<typeof changeSetDigest>[0] }): string {
  return call.heldChanges === undefined ? '' : changeSetDigest(call.heldChanges);
}

/** A refusal by the goal (who may decide, a wrong digest, an ended goal) as one line, not a 500. */
async function refusedInWords(
  client: Client,
  workflowId: string,
  send: () => Promise<Outcome>,
): Promise<Outcome> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError)
      return { ok: false, message: `refused: ${error.cause?.message ?? error.message}` };
    if (error instanceof WorkflowNotFoundError) {
      const ended = await closedGoalStatus(client, workflowId);
      return {
        ok: false,
        message: ended
          ? `goal ${workflowId} has ended (${ended}): it takes no decisions now`
          : `no goal ${workflowId}`,
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `refused: ${message.split('\n')[0] ?? message}` };
  }
}
