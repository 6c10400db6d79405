import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { GoalStatusView } from '../workflows/goal/messages';
import { goalHandle, goalStatus } from './goal-client';
import { askWorker, workersMayAnswer, type WorkerAnswer } from './worker-answer';
import { isChildOf } from './pending-tree';

/**
 * Every running goal and what it says is waiting, as `keel pending` and the inbox list them: the
 * goals come from the server's visibility listing, each one's status from its worker (a query),
 * a few at a time, so a list of goals without workers stays quick.
 */

/** Running keel goals, newest first, with the task queue and search attributes the listing carries. */
export async function runningGoals(
  client: Client,
  workflowId?: string,
  options: { withChildren?: boolean } = {},
): Promise<WorkflowExecutionInfo[]> {
  const goals: WorkflowExecutionInfo[] = [];
  const query = `WorkflowType = 'goalWorkflow' AND ExecutionStatus = 'Running'`;
  // Filtered here rather than in the query: an id is never spliced into the query's text.
  for await (const execution of client.workflow.list({ query }))
    if (
      workflowId === undefined ||
      execution.workflowId === workflowId ||
      (options.withChildren === true && isChildOf(execution.workflowId, workflowId))
    )
      goals.push(execution);
  return goals;
}

/** Goals asked at once: each waits NO_WORKER_WAIT_MS at most, so a list of dead ones stays quick. */
const PENDING_QUERY_CONCURRENCY = 8;

export interface GoalStatusAnswer {
  goal: WorkflowExecutionInfo;
  /** Undefined when asking failed (`error` says why): the goal ended meanwhile, its code fails. */
  answer?: WorkerAnswer<GoalStatusView>;
  error?: string;
}

/**
 * Each goal's status, a few at a time. Whether a worker may answer is judged once per task queue:
 * a goal on a queue nobody polls is not asked at all.
 */
export async function statusOfEach(
  client: Client,
  goals: readonly WorkflowExecutionInfo[],
): Promise<GoalStatusAnswer[]> {
  const present = new Map<string, Promise<boolean>>();
  const workersPresent = (taskQueue: string) => {
    let known = present.get(taskQueue);
    if (known === undefined) {
      known = workersMayAnswer({
        connection: client.connection,
        namespace: client.options.namespace,
        taskQueue,
      });
      present.set(taskQueue, known);
    }
    return known;
  };
  const results: GoalStatusAnswer[] = [];
  for (let start = 0; start < goals.length; start += PENDING_QUERY_CONCURRENCY) {
    const batch = goals.slice(start, start + PENDING_QUERY_CONCURRENCY);
    const answers = await Promise.all(
      batch.map(async (goal): Promise<GoalStatusAnswer> => {
        try {
          const answer = await askWorker({
            client,
            workflowId: goal.workflowId,
            taskQueue: goal.taskQueue,
            workersPresent: await workersPresent(goal.taskQueue),
            ask: () => goalStatus(goalHandle(client, goal.workflowId)),
          });
          return { goal, answer };
        } catch (error) {
          // One goal that cannot answer (it ended meanwhile, its code fails) does not hide the others.
          const message = error instanceof Error ? error.message : String(error);
          return { goal, error: message.split('\n')[0] ?? message };
        }
      }),
    );
    results.push(...answers);
  }
  return results;
}
