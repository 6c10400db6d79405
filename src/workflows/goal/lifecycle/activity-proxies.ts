import * as wf from '@temporalio/workflow';
import type { KeelActivities } from '../../../activities';
import { FailureType, NON_RETRYABLE_MODEL_FAILURES } from '../../common/failure-types';
import type { GoalConfig } from './input';
import { modelActivityOptions } from '../model-turn/retry-policy';
import { NotificationFailureType } from '../../approvals/notifications';

/**
 * Calls of fixed-tier read-only tools (read_file, list_dir, search, read-only MCP tools) with no
 * timeout of their own above this run as local activities bounded by it (see localReads);
 * per-call tiers (run_command) and slower tools stay ordinary activities.
 */
export const LOCAL_READ_MAX_TIMEOUT_MS = 60_000;

/**
 * Activity proxies with explicit timeouts and retry policies. Irreversible tools get their own
 * proxy whose retries the tool's journal guards: a call that never began is run again, one that
 * began and was cut off fails with OutcomeUnknown, which is never retried.
 */
export function proxiesFor(config: GoalConfig) {
  const { modelTimeoutMs, toolTimeoutMs, heartbeatTimeoutMs, hostTimeoutMs } = config.timing;
  const toolProxies = new Map<string, ToolProxies>();
  const hostProxies = new Map<string, HostProxies>();
  return {
    /** Model calls wait out transient API trouble for the goal's patience (goal/model-turn/retry-policy.ts). */
    model: wf.proxyActivities<Pick<KeelActivities, 'callModel' | 'callStructured'>>(
      modelActivityOptions(config),
    ),
    /**
     * The closing report (goal/model-turn/closing-report.ts): the same model call, retried briefly. It is a
     * courtesy at the end of a stopped goal, so a model that keeps failing must not hold the
     * ending up for long.
     */
    closingReport: wf.proxyActivities<Pick<KeelActivities, 'callModel'>>({
      startToCloseTimeout: modelTimeoutMs,
      heartbeatTimeout: heartbeatTimeoutMs,
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '5s',
        maximumAttempts: 3,
        nonRetryableErrorTypes: [...NON_RETRYABLE_MODEL_FAILURES],
      },
    }),
    /**
     * Tool calls, with a tool's own timeout when it has one, on the goal's host queue when it is
     * bound to one (one set of proxies per timeout and queue). A host-bound call that no worker of
     * the host takes within hostTimeoutMs fails with a schedule-to-start timeout, which is never
     * retried: it never ran, and the goal waits for the host instead (goal/host/binding.ts).
     */
    toolsWithTimeout(timeoutMs: number | undefined, hostQueue?: string): ToolProxies {
      const startToCloseTimeout = timeoutMs ?? toolTimeoutMs;
      const key = `${hostQueue ?? ''}|${startToCloseTimeout}`;
      let proxies = toolProxies.get(key);
      if (proxies === undefined) {
        proxies = toolProxiesFor({
          startToCloseTimeout,
          heartbeatTimeout: heartbeatTimeoutMs,
          ...(hostQueue === undefined ? {} : { taskQueue: hostQueue, scheduleToStartTimeout: hostTimeoutMs }),
        });
        toolProxies.set(key, proxies);
      }
      return proxies;
    },
    /** Backups, restores and workspace questions on one host's queue. */
    onHost(hostQueue: string, scheduleToStartTimeout: number = hostTimeoutMs): HostProxies {
      const key = `${hostQueue}|${scheduleToStartTimeout}`;
      let proxies = hostProxies.get(key);
      if (proxies === undefined) {
        proxies = hostProxiesFor({ taskQueue: hostQueue, scheduleToStartTimeout }, heartbeatTimeoutMs);
        hostProxies.set(key, proxies);
      }
      return proxies;
    },
    /**
     * The start's lookups as local activities: the hosts polling the shared queue, the goal's
     * tools, the worker's defaults. Any worker of the shared queue answers each the same (an
     * activity would go to one of them too); as local activities they leave a marker each inside
     * the first workflow task instead of three events and a task of their own.
     */
    startLookups: wf.proxyLocalActivities<
      Pick<KeelActivities, 'listHosts' | 'describeTools' | 'workerDefaults'>
    >({
      startToCloseTimeout: '30s',
      // A goal that cannot finish its lookups fails at its start: a server too busy to list the
      // queue's pollers for a few seconds must not do that (issue 41), so minutes, not seconds.
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '30s',
        maximumAttempts: 10,
        nonRetryableErrorTypes: [FailureType.UnknownTools],
      },
    }),
    /**
     * Checks a turn's calls on the worker (input, per-call tier, label) before anything runs. A
     * local activity: short, and its recorded answer is what replay sees, so a tier decided by
     * user code on the worker can never change under a running goal.
     */
    preparation: wf.proxyLocalActivities<Pick<KeelActivities, 'prepareToolCalls'>>({
      startToCloseTimeout: '30s',
      retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumAttempts: 3 },
    }),
    support: wf.proxyActivities<
      Pick<
        KeelActivities,
        | 'loadTaskReflection'
        | 'storeTaskReflection'
        | 'backupWorkspace'
        | 'restoreWorkspace'
        | 'restoreForkWorkspace'
        | 'planGoalFork'
        | ChildCopyActivity
      >
    >({
      startToCloseTimeout: '5m',
      // The start loads its notes here, and a failure there fails the goal: a reflection store
      // restarting (a database failing over) is waited out for minutes (issue 41).
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '1m',
        maximumAttempts: 10,
        // A child's copy refused (too large, a folder that is none, bad input) is so for good;
        // so is a fork with no such turn or a workspace it may not use.
        nonRetryableErrorTypes: [
          'InvalidReflection',
          FailureType.WorkspaceUnpreparable,
          FailureType.WorkspaceMissing,
          FailureType.ForkRefused,
          'InvalidHostActivityInput',
        ],
      },
    }),
    // Listeners may be slow or down: publishing is retried patiently and never awaited by the loop.
    ledger: wf.proxyActivities<Pick<KeelActivities, 'publishLedgerEvents'>>({
      startToCloseTimeout: '1m',
      retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 20 },
    }),
    // Notices to approvers (goal/tool-calls/approval-notifications.ts), never awaited by the goal:
    // four attempts over about 7 s of backoff, then the ledger says the channel failed. A notice
    // retried for an hour would arrive when nobody needs it; a refusal is not retried at all.
    notifications: wf.proxyActivities<Pick<KeelActivities, 'deliverApprovalNotice'>>({
      startToCloseTimeout: '45s',
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '10s',
        maximumAttempts: 4,
        nonRetryableErrorTypes: [NotificationFailureType.Refused, NotificationFailureType.NotConfigured],
      },
    }),
  };
}

export type ActivityProxies = ReturnType<typeof proxiesFor>;

/**
 * Retry policies by tier: reversible calls are retried on worker trouble. Irreversible calls are
 * retried too, but only as far as the at-most-once journal allows (irreversible-journal.ts): an
 * attempt that finds the call begun throws OutcomeUnknown, non-retryable, so nothing that may have
 * taken effect runs twice. Their attempts are capped so a call that keeps losing its worker before
 * it begins is reported rather than retried without end.
 */
function toolProxiesFor(options: {
  startToCloseTimeout: number;
  heartbeatTimeout: number;
  taskQueue?: string;
  scheduleToStartTimeout?: number;
}) {
  const { taskQueue: _queue, scheduleToStartTimeout: _wait, ...local } = options;
  return {
    tools: wf.proxyActivities<Pick<KeelActivities, 'executeTool' | 'settleHeldChanges'>>({
      ...options,
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumAttempts: 3,
        nonRetryableErrorTypes: [FailureType.WorkspaceMissing],
      },
    }),
    /**
     * Quick read-only calls as local activities, the way Temporal's agent integrations keep
     * history small: the call runs inside the workflow task and leaves one marker event instead
     * of three activity events. Only reads: a repeated read harms nothing, and mutating or
     * irreversible calls keep their own activity (and the journal's at-most-once).
     */
    localReads: wf.proxyLocalActivities<Pick<KeelActivities, 'executeTool'>>({
      startToCloseTimeout: Math.min(local.startToCloseTimeout, LOCAL_READ_MAX_TIMEOUT_MS),
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumAttempts: 3,
        // WrongHost: this worker is not the goal's host; the call goes to the host's queue instead.
        nonRetryableErrorTypes: [FailureType.WorkspaceMissing, FailureType.WrongHost],
      },
    }),
    onceOnlyTools: wf.proxyActivities<Pick<KeelActivities, 'executeTool'>>({
      ...options,
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '10s',
        maximumAttempts: 10,
        nonRetryableErrorTypes: [FailureType.WorkspaceMissing, FailureType.OutcomeUnknown],
      },
    }),
  };
}
type ToolProxies = ReturnType<typeof toolProxiesFor>;

/** A delegated child's copy of the workspace (goal/tool-calls/child-copy.ts): made, merged, dropped. */
type ChildCopyActivity = 'copyWorkspaceForChild' | 'mergeChildCopy' | 'dropChildCopy';

/** A probe is a few stats: a worker that took one and has not answered in this long is in trouble. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Activities bound to a host's workspace. Preparing a workspace (a git clone) and backups are
 * retried on failure like any activity.
 */
function hostProxiesFor(
  options: { taskQueue: string; scheduleToStartTimeout: number },
  heartbeatTimeoutMs: number,
) {
  return {
    /**
     * The question "do you have the workspace?" (issue 41). A worker that took it and gave no
     * answer — a start-to-close timeout, a worker lost mid-probe, a failed stat — is asked again
     * with backoff: a late answer is not a "no", and taking it for one failed goals whose host
     * was merely busy. A goal's heartbeat timeout is how soon it notices a lost worker, so a
     * shorter one shortens the probe's too. A schedule-to-start timeout is never retried by
     * Temporal: no worker of the host took the question, which is how the caller tells a host
     * away from a slow one (goal/host/binding.ts, goal/host/questions.ts).
     */
    questions: wf.proxyActivities<Pick<KeelActivities, 'probeWorkspace'>>({
      ...options,
      startToCloseTimeout: Math.min(PROBE_TIMEOUT_MS, heartbeatTimeoutMs),
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '5s',
        maximumAttempts: 3,
        nonRetryableErrorTypes: ['InvalidHostActivityInput'],
      },
    }),
    /** Carrying a workspace on a move (workspace-carry.ts): short steps, retried on trouble. */
    carry: wf.proxyActivities<
      Pick<
        KeelActivities,
        'packWorkspace' | 'readPackChunk' | 'writePackChunk' | 'unpackWorkspace' | 'dropPack'
      >
    >({
      ...options,
      startToCloseTimeout: '5m',
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumAttempts: 5,
        nonRetryableErrorTypes: [FailureType.WorkspaceUnpreparable, 'InvalidHostActivityInput'],
      },
    }),
    workspace: wf.proxyActivities<
      Pick<
        KeelActivities,
        | 'prepareWorkspace'
        | 'backupWorkspace'
        | 'restoreWorkspace'
        | 'restoreForkWorkspace'
        | 'planGoalFork'
        | ChildCopyActivity
      >
    >({
      ...options,
      startToCloseTimeout: '10m',
      // A clone at the start fails the goal when it fails: a git server unreachable for a minute
      // is waited out. Safe to repeat: a clone leaves no half workspace, and one already there is
      // left as it is; git's own refusals are WorkspaceUnpreparable.
      retry: {
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '1m',
        maximumAttempts: 10,
        nonRetryableErrorTypes: [
          FailureType.WorkspaceUnpreparable,
          FailureType.WorkspaceMissing,
          FailureType.ForkRefused,
          'InvalidHostActivityInput',
        ],
      },
    }),
  };
}
export type HostProxies = ReturnType<typeof hostProxiesFor>;
