import type { Client } from '@temporalio/client';
import { NO_WORKER_WAIT_MS, unreadLine, unsentLine } from '../client/no-worker';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';
import { askWorker, goalHandle } from './lazy-modules';

/**
 * Asks a goal through its worker (a query or an Update), for a few seconds at most and not at
 * all when nothing polls its task queue (worker-answer.ts); without an answer, one line in the
 * shared words (no-worker.ts) and exit 3. For the commands that have no answer of their own to
 * give instead: keel ledger, rules, review, rebind, tools <goal>.
 */
export async function askGoal<T>(
  client: Client,
  workflowId: string,
  ask: () => Promise<T>,
  unanswered: { reads: string } | { changes: string },
  /** How long a worker that polls is waited for; undefined: as long as the call takes. */
  waitMs: number | undefined = NO_WORKER_WAIT_MS,
): Promise<T> {
  const { taskQueue, status } = await goalHandle(client, workflowId).describe();
  // An ended goal takes no change, worker or not: said as keel says it for decisions (main.ts).
  if ('changes' in unanswered && status.name !== 'RUNNING')
    throw new CliError(
      `goal ${workflowId} has ended (${status.name.toLowerCase().replace(/_/g, ' ')}): it takes no decisions now`,
    );
  const answer = await askWorker({ client, workflowId, taskQueue, ask, waitMs });
  if (answer.answered) return answer.value;
  const line =
    'reads' in unanswered
      ? unreadLine(answer.noWorker, unanswered.reads)
      : unsentLine(answer.noWorker, unanswered.changes);
  throw new CliError(line, ExitCode.NoWorker);
}
