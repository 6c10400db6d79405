/**
 * What the evaluation drives: keel's worker-side tool entry points, or (in the harness's own test)
 * a deliberately weakened stand-in. Only the fields the verdicts read are required of an outcome.
 */
import { createToolActivities, type ExecuteToolInput } from '../../src/activities/tools/tool-activities';
import type { PreparedCall } from '../../src/workflows/tools/tool-catalogue';
import { createToolRegistry } from '../../src/worker';

/** executeTool's input as the workflow passes it once approvals reach the worker. */
export type EvaluatedExecuteInput = ExecuteToolInput & {
  /** Whether a human approved this call; the evaluation passes false except where a case says why. */
  approved?: boolean;
};

/** What the verdicts read of an outcome. `held`: changes kept for a human, not applied. */
export interface ObservedOutcome {
  readonly ok: boolean;
  readonly content: string;
  readonly candidates?: readonly string[];
  readonly facts?: { readonly exitCode?: number };
  readonly held?: unknown;
}

export interface ToolExecutor {
  prepareToolCalls(input: {
    calls: { callId: string; toolName: string; input: unknown }[];
    sandbox: { network: boolean };
  }): Promise<PreparedCall[]>;
  executeTool(input: EvaluatedExecuteInput): Promise<ObservedOutcome>;
}

/** keel's own activities with the built-in tools, as a worker creates them. */
export function createKeelToolExecutor(options: { journalDirectory: string }): ToolExecutor {
  const { prepareToolCalls, executeTool } = createToolActivities({
    registry: createToolRegistry({}),
    journalDirectory: options.journalDirectory,
  });
  return { prepareToolCalls, executeTool };
}
