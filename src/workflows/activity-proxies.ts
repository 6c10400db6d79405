import * as wf from '@temporalio/workflow';
import type { KeelActivities } from '../activities';
import { FailureType, NON_RETRYABLE_MODEL_FAILURES } from './failure-types';
import type { GoalConfig } from './goal-input';

/**
 * Activity proxies with explicit timeouts and retry policies. Irreversible tools get their own
 * proxy with maximumAttempts 1: a call whose outcome is unknown is reported, never re-run.
 */
export function proxiesFor(config: GoalConfig) {
  const { modelTimeoutMs, toolTimeoutMs, heartbeatTimeoutMs } = config.timing;
  const toolOptions = { startToCloseTimeout: toolTimeoutMs, heartbeatTimeout: heartbeatTimeoutMs };
  return {
    model: wf.proxyActivities<Pick<KeelActivities, 'callModel' | 'callStructured'>>({
      startToCloseTimeout: modelTimeoutMs,
      heartbeatTimeout: heartbeatTimeoutMs,
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '1m',
        maximumAttempts: 10,
        nonRetryableErrorTypes: [...NON_RETRYABLE_MODEL_FAILURES],
      },
    }),
    tools: wf.proxyActivities<Pick<KeelActivities, 'executeTool'>>({
      ...toolOptions,
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumAttempts: 3,
        nonRetryableErrorTypes: [FailureType.WorkspaceMissing],
      },
    }),
    onceOnlyTools: wf.proxyActivities<Pick<KeelActivities, 'executeTool'>>({
      ...toolOptions,
      retry: { maximumAttempts: 1 },
    }),
    support: wf.proxyActivities<
      Pick<
        KeelActivities,
        | 'workerDefaults'
        | 'loadTaskReflection'
        | 'storeTaskReflection'
        | 'backupWorkspace'
        | 'restoreWorkspace'
      >
    >({
      startToCloseTimeout: '5m',
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumAttempts: 5,
        nonRetryableErrorTypes: ['InvalidReflection'],
      },
    }),
    // Listeners may be slow or down: publishing is retried patiently and never awaited by the loop.
    ledger: wf.proxyActivities<Pick<KeelActivities, 'publishLedgerEvents'>>({
      startToCloseTimeout: '1m',
      retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 20 },
    }),
  };
}

export type ActivityProxies = ReturnType<typeof proxiesFor>;
