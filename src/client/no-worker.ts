/**
 * What every command says, and how long it waits, when no worker runs a goal (issue 41). Queries
 * and Updates are answered by a worker, so without one they wait (an Update until one comes back,
 * a query until the server gives up, half a minute later). The commands ask for at most
 * NO_WORKER_WAIT_MS, or not at all when the task queue shows no worker, and then answer from what
 * the server holds: a decision becomes a signal, a status the goal's search attributes. Pure, so
 * the CLI loads it without the Temporal client and tests need no server.
 */

/** How long a command waits for a worker to answer a query or an Update before it answers itself. */
export const NO_WORKER_WAIT_MS = 5_000;

/**
 * The exit code of a command that answered without the goal's worker: a decision recorded as a
 * signal but not yet judged, a status read from the server's record, a bulk decision not sent.
 * Like `keel hosts`' 3 (a host a goal needs is missing): the goal waits for a worker.
 */
export const NO_WORKER_EXIT_CODE = 3;

/** Why a goal did not answer: nothing polls its task queue, or what polls did not answer in time. */
export interface NoWorker {
  workflowId: string;
  taskQueue: string;
  seen: 'no-poller' | 'no-answer';
  /** How long it was waited for, when not NO_WORKER_WAIT_MS (keel tools --timeout). */
  waitedMs?: number;
}

/** The one phrase for it, first in every line that says it. */
export function noWorkerCause(noWorker: NoWorker): string {
  return noWorker.seen === 'no-poller'
    ? `no worker polls task queue ${noWorker.taskQueue}`
    : `no worker answered within ${(noWorker.waitedMs ?? NO_WORKER_WAIT_MS) / 1000} s (task queue ${noWorker.taskQueue})`;
}

/** Put above anything shown from the server's record instead of the goal's own answer. */
export function serverRecordNote(noWorker: NoWorker, asOf: string | undefined): string {
  return `(${noWorkerCause(noWorker)}: shown from the server's record${asOf === undefined ? '' : `, as of ${asOf}`})`;
}

/** `keel approve|deny <goal> <call>` when the decision went as a signal (exit NO_WORKER_EXIT_CODE). */
export function signalledDecisionLine(
  noWorker: NoWorker,
  decision: { approved: boolean; callId: string },
): string {
  const what = decision.approved ? 'approval' : 'denial';
  return `${noWorkerCause(noWorker)}: the ${what} of ${decision.callId} is recorded as a signal and is decided when a worker runs goal ${noWorker.workflowId} (keel status ${noWorker.workflowId} shows the outcome)`;
}

/**
 * `keel approve|deny <goal> --all` when no worker can list the pending calls: only the goal knows
 * their ids, so nothing is sent (a guessed list could decide a call nobody saw).
 */
export function bulkNotSentLine(noWorker: NoWorker, approved: boolean): string {
  const verb = approved ? 'approve' : 'deny';
  return `${noWorkerCause(noWorker)}: nothing was decided: --all needs goal ${noWorker.workflowId}'s list of pending calls, which only a worker can read (start one: keel worker; or name a call: keel ${verb} ${noWorker.workflowId} <callId> records it as a signal)`;
}

/**
 * `keel approve|deny --all` when a worker listed the calls but did not take the Update in time:
 * each decision went as a signal of its own, judged alone when a worker runs the goal.
 */
export function bulkSignalledLine(noWorker: NoWorker, approved: boolean, callIds: readonly string[]): string {
  const what = approved ? 'approvals' : 'denials';
  return `${noWorkerCause(noWorker)}: the ${what} of ${callIds.join(', ')} are recorded as signals, one per call, each decided on its own (not all-or-none) when a worker runs goal ${noWorker.workflowId} (keel status ${noWorker.workflowId} shows the outcome)`;
}

/** A command that reads the goal's state (its ledger, rules, tools) when no worker answers. */
export function unreadLine(noWorker: NoWorker, what: string): string {
  return `${noWorkerCause(noWorker)}: ${what} of goal ${noWorker.workflowId} are in its state, which only a worker can read (start one: keel worker)`;
}

/**
 * A command whose Update has no signal to fall back on (a rule, a review, a move) when no worker
 * answers: not sent when nothing polls; sent, and perhaps still taken, when a worker was too slow.
 */
export function unsentLine(noWorker: NoWorker, what: string): string {
  return noWorker.seen === 'no-poller'
    ? `${noWorkerCause(noWorker)}: nothing was sent: ${what} is made by goal ${noWorker.workflowId} itself, when a worker runs it (start one: keel worker)`
    : `${noWorkerCause(noWorker)}: ${what} was sent and not answered: goal ${noWorker.workflowId} may still make it when its worker answers`;
}
