import type { temporal } from '@temporalio/proto';
import { KEEL_HOST_SEARCH_ATTRIBUTE } from '../dev-server/search-attributes';

/** Both the client's Connection and the worker's NativeConnection have one. */
export interface VisibilityConnection {
  workflowService: Pick<temporal.api.workflowservice.v1.WorkflowService, 'listWorkflowExecutions'>;
}

/** Goals the host watcher or `keel hosts` reads at once (1,000 parked goals: one page). */
const PAGE_SIZE = 1000;

/**
 * The running goals of a shared task queue bound to each host, counted from the search attribute
 * KeelHost (written when a goal binds and when it is rebound), so a host a goal needs is known
 * even when no worker of it has ever beaten.
 */
export async function runningGoalsByHost(options: {
  connection: VisibilityConnection;
  namespace: string;
  taskQueue: string;
}): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const goal of await runningGoals({ ...options, host: undefined }))
    if (goal.host !== undefined) counts[goal.host] = (counts[goal.host] ?? 0) + 1;
  return counts;
}

/** The ids of the running goals bound to `host` (what the host watcher signals). */
export async function goalsBoundTo(options: {
  connection: VisibilityConnection;
  namespace: string;
  taskQueue: string;
  host: string;
}): Promise<string[]> {
  return (await runningGoals(options)).map((goal) => goal.workflowId);
}

async function runningGoals(options: {
  connection: VisibilityConnection;
  namespace: string;
  taskQueue: string;
  host: string | undefined;
}): Promise<Array<{ workflowId: string; host?: string }>> {
  const { connection, namespace, taskQueue, host } = options;
  const query = [
    `WorkflowType = 'goalWorkflow'`,
    `ExecutionStatus = 'Running'`,
    `TaskQueue = ${quoted(taskQueue)}`,
    host === undefined
      ? `${KEEL_HOST_SEARCH_ATTRIBUTE} IS NOT NULL`
      : `${KEEL_HOST_SEARCH_ATTRIBUTE} = ${quoted(host)}`,
  ].join(' AND ');
  const goals: Array<{ workflowId: string; host?: string }> = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const response = await connection.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize: PAGE_SIZE,
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    });
    for (const execution of response.executions ?? []) {
      const workflowId = execution.execution?.workflowId;
      if (!workflowId) continue;
      const bound = keywordOf(execution.searchAttributes?.indexedFields?.[KEEL_HOST_SEARCH_ATTRIBUTE]);
      goals.push({ workflowId, ...(bound === undefined ? {} : { host: bound }) });
    }
    nextPageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
  } while (nextPageToken !== undefined);
  return goals;
}

/** A search attribute's value is a plain JSON payload (never encrypted: the server indexes it). */
function keywordOf(payload: temporal.api.common.v1.IPayload | null | undefined): string | undefined {
  if (!payload?.data) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(payload.data).toString('utf8'));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A string literal of Temporal's list filter. */
function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
