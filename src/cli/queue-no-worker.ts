/**
 * "No worker" for the commands about a task queue rather than one goal (`keel hosts`, `keel
 * tools`): the same words as every other command (no-worker.ts) and the same exit code, 3.
 */
import { noWorkerCause, type NoWorker } from '../client/no-worker';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';

/** Why no worker answered for a task queue: nothing polls it, or what polls did not answer in time. */
export type QueueNoWorker = Omit<NoWorker, 'workflowId'>;

/** The shared cause first, then what it means for this command. */
export function queueNoWorkerLine(noWorker: QueueNoWorker, what: string): string {
  // The cause names the queue, never a goal: the goal id noWorkerCause's input carries is unread.
  return `${noWorkerCause({ ...noWorker, workflowId: '' })}: ${what}`;
}

/** The line as the error a command throws: one line, exit ExitCode.NoWorker. */
export function queueNoWorkerError(noWorker: QueueNoWorker, what: string): CliError {
  return new CliError(queueNoWorkerLine(noWorker, what), ExitCode.NoWorker);
}
