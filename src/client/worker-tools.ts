import type { Client } from '@temporalio/client';
import { workerToolsWorkflow } from '../workflows/catalogue/worker-tools-workflow';
import type { ToolCatalogue } from '../workflows/tools/tool-catalogue';

/**
 * The tools a worker of `taskQueue` offers, read through Temporal (workerToolsWorkflow): a
 * worker's tools are known only to its process. The workflow's own execution timeout is the
 * deadline, so with no worker to answer it ends on the server by itself: nothing is left waiting,
 * whatever happens to the caller. Throws the SDK's WorkflowFailedError when it timed out or the
 * worker refused (a pattern that matches no tool).
 */
export async function workerTools(
  client: Client,
  options: { taskQueue: string; patterns?: string[]; timeoutMs: number },
): Promise<ToolCatalogue> {
  return client.workflow.execute(workerToolsWorkflow, {
    taskQueue: options.taskQueue,
    workflowId: `keel-tools-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
    args: [options.patterns === undefined ? {} : { patterns: options.patterns }],
    workflowExecutionTimeout: options.timeoutMs,
    staticSummary: 'keel tools: the tools a worker offers',
  });
}
