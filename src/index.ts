/**
 * keel as a library: run keel's goal workflow on your own worker, with your own tools.
 *
 *   import { createKeelWorker, defineTool } from 'keel';      // worker side
 *   import { connectClient, startGoal, approveSignal } from 'keel'; // client side
 *   workflowsPath: require.resolve('keel/workflows')          // your own worker's bundle
 *
 * See docs/getting-started.md and docs/tools-and-mcp.md.
 */

// Worker
export {
  anthropicFromEnvironment,
  createKeelWorker,
  createToolRegistry,
  keelHostOf,
  runWorker,
  WORKFLOWS_PATH,
  type KeelHost,
  type KeelWorkerOptions,
  type RunWorkerOptions,
} from './worker';
export { WorkerOptionsError, type WorkerConnectionOptions } from './worker/connection';
export { TemporalCopiesError } from './worker/temporal-copies';
export { HostClaimError } from './worker/host-claim/host-claim-error';
export { HostSettingsError } from './config/host-settings';

// Tools
export {
  defineTool,
  Reversibility,
  ToolDefinitionError,
  type AnyToolDefinition,
  type TierContext,
  type TierDecision,
  type ToolDefinition,
  type ToolDefinitionOptions,
  type ToolExecutionContext,
  type ToolFailure,
  type ToolLogger,
} from './activities/tools/define-tool';
export {
  escalation as toolEscalation,
  failure as toolFailure,
  success as toolSuccess,
} from './activities/tools/tool-outcomes';
export type { ToolOutcome } from './workflows/tools/tool-outcome';
export { hypothesisField } from './workflows/tools/hypothesis-field';
export {
  readWorkspaceFile,
  type WorkspaceFileRead,
} from './activities/tools/workspace-access/read-workspace-file';
export {
  builtinTools,
  editFileTool,
  listDirTool,
  readFileTool,
  runCommandTool,
  searchTool,
  writeFileTool,
} from './activities/tools/builtin';
export {
  describeSandbox,
  runSandboxedCommand,
  sandboxStatus,
  type SandboxedCommandOptions,
  type SandboxedCommandResult,
  type SandboxStatus,
} from './activities/tools/sandbox';
// The scrubbed environment run_command gives a command: pass it as runSandboxedCommand's `env`.
export { commandEnvironment } from './activities/tools/command-environment';

// Clients: start goals, read their status and result, decide approvals and reviews
export {
  connectClient,
  decideApproval,
  goalHandle,
  goalResult,
  goalStatus,
  listRunningGoals,
  newGoalId,
  resultOfFailure,
  sendUserMessage,
  startGoal,
  submitReview,
  type DecisionOptions,
  type GoalHandle,
} from './client/goal-client';
export { connectionSettings, type ConnectionSettings } from './client/connection-settings';
export { parseGoalInput, type GoalConfig, type GoalInput } from './workflows/goal/lifecycle/input';
export type { GoalResult } from './workflows/goal/lifecycle/result';

// Signals, queries and updates: one definition each, shared by the workflow and every client
export * from './workflows/goal/messages';
export type { LedgerEvent } from './workflows/common/ledger';
export { FailureType } from './workflows/common/failure-types';
