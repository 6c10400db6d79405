import * as wf from '@temporalio/workflow';
import type { KeelActivities } from '../../activities';
import { FailureType } from '../common/failure-types';
import type { ToolCatalogue } from '../tools/tool-catalogue';

/**
 * A worker's tools live only in its process (its code, its MCP servers), so `keel tools` asks a
 * worker through Temporal: this short workflow runs on the task queue and reads the catalogue
 * with describeTools, the very activity a goal reads its tools with at start. A local activity:
 * the worker that runs the workflow task answers, in one task, with nothing else scheduled.
 */
const lookups = wf.proxyLocalActivities<Pick<KeelActivities, 'describeTools'>>({
  startToCloseTimeout: '10s',
  // A pattern that matches nothing fails at once; anything else has the caller's deadline.
  retry: { initialInterval: '500ms', maximumAttempts: 3, nonRetryableErrorTypes: [FailureType.UnknownTools] },
});

export interface WorkerToolsInput {
  /** Only the tools these names or globs match (as a goal's `tools`); every tool when absent. */
  patterns?: string[];
}

export async function workerToolsWorkflow(input: WorkerToolsInput = {}): Promise<ToolCatalogue> {
  return lookups.describeTools(input.patterns === undefined ? {} : { patterns: input.patterns });
}
