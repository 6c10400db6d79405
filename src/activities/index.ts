import type Anthropic from '@anthropic-ai/sdk';
import { createHostActivities, type HostListing } from './hosts';
import type { LedgerSink } from './ledger-sinks';
import { createLedgerSinkActivities } from './ledger-sinks';
import { createModelActivities } from './model/model-activity';
import type { GoalsAtWork } from './model/goals-at-work';
import type { ModelRequestStore } from './model/request-store/model-request-store';
import { createReflectionActivities } from './reflection/reflection-activities';
import type { ReflectionStore } from './reflection-store/reflection-store';
import { createBackupActivities } from './rollback/workspace-backups';
import { createChildCopyActivities } from './delegation/child-copies';
import { createForkActivities } from './lineage/fork-activities';
import { createForkPlanActivities } from './lineage/plan-fork-activity';
import { createToolActivities } from './tools/tool-activities';
import type { ToolRegistry } from './tools/tool-registry';
import type { Budget } from '../workflows/principles/budget';
import type { RuleSpec } from '../workflows/approvals/approval-rule';
import { createWorkerDefaultsActivities } from './worker-defaults';
import { createNotificationActivities } from './notifications/notification-activities';
import { notificationDefaults, type NotifierSettings } from './notifications/notifier-settings';

export interface ActivityDependencies {
  /** The Anthropic client, built by the worker from its environment. */
  anthropic: Anthropic;
  /** The worker's prebuilt workflow bundle file, which forks and rewinds by Update replay with. */
  workflowBundleFile?: (log: (line: string) => void) => Promise<string | undefined>;
  /** Where goals' last model requests are kept for the next turn to extend; none: sent whole. */
  modelRequestStore?: ModelRequestStore;
  /** Every tool this worker runs: the built-ins, the user's own and MCP servers' tools. */
  toolRegistry: ToolRegistry;
  /** This worker's host (issue 9): stamped by the activities that answer for a host. */
  hostId: string;
  /** This worker process among its host's (WORKER_INSTANCE_ID): stamped on every tool outcome. */
  instanceId?: string;
  /** Absolute paths this host serves workspaces under; empty: any path. */
  workspaceRoots: readonly string[];
  /** Where listHosts asks which hosts poll the shared queue; without it listHosts fails. */
  hostListing?: HostListing;
  /**
   * A configured shared store for the at-most-once journal of irreversible calls; when omitted,
   * each workspace's journal is kept beside it (workspaceStateDirectory).
   */
  journalDirectory?: string;
  /** A configured shared store for workspace backups; when omitted, beside each workspace. */
  backupDirectory?: string;
  reflectionStore: ReflectionStore;
  ledgerSinks: readonly LedgerSink[];
  reflectionCadence?: number;
  /** The default budget of goals this worker starts (KEEL_BUDGET_*). */
  budget?: Budget;
  /** The approval rules of goals this worker starts (KEEL_APPROVAL_RULES). */
  approvalRules?: RuleSpec[];
  /** The fleet holds a model request limit: goals send model calls to the model queue. */
  sharedModelQueue?: boolean;
  /** The worker's bound on goals making model calls at once; none: every goal at once. */
  goalsAtWork?: GoalsAtWork;
  /** The channels that tell approvers a call waits (KEEL_NOTIFY_*); none: goals send no notices. */
  notifications?: NotifierSettings;
}

/** Every activity keel registers, with its dependencies injected. */
export function createActivities(dependencies: ActivityDependencies) {
  return {
    ...createModelActivities({
      client: dependencies.anthropic,
      ...(dependencies.modelRequestStore === undefined
        ? {}
        : { requestStore: dependencies.modelRequestStore }),
      ...(dependencies.goalsAtWork === undefined ? {} : { goalsAtWork: dependencies.goalsAtWork }),
    }),
    ...createToolActivities({
      registry: dependencies.toolRegistry,
      hostId: dependencies.hostId,
      ...(dependencies.instanceId === undefined ? {} : { instanceId: dependencies.instanceId }),
      ...(dependencies.journalDirectory === undefined
        ? {}
        : { journalDirectory: dependencies.journalDirectory }),
    }),
    ...createReflectionActivities({ store: dependencies.reflectionStore }),
    ...createLedgerSinkActivities({ sinks: dependencies.ledgerSinks }),
    ...createBackupActivities(
      dependencies.backupDirectory !== undefined ? { backupDirectory: dependencies.backupDirectory } : {},
    ),
    ...createChildCopyActivities(),
    ...createForkActivities({ workspaceRoots: dependencies.workspaceRoots }),
    ...createForkPlanActivities({ workflowBundle: dependencies.workflowBundleFile }),
    ...createHostActivities({
      hostId: dependencies.hostId,
      workspaceRoots: dependencies.workspaceRoots,
      ...(dependencies.hostListing ? { listing: dependencies.hostListing } : {}),
    }),
    // Registered on every worker: a goal that learned of channels elsewhere is told none are here.
    ...createNotificationActivities({ settings: dependencies.notifications }),
    ...createWorkerDefaultsActivities({
      ...(dependencies.reflectionCadence !== undefined
        ? { reflectionCadence: dependencies.reflectionCadence }
        : {}),
      ledgerSinks: dependencies.ledgerSinks.length > 0,
      ...(dependencies.budget !== undefined ? { budget: dependencies.budget } : {}),
      ...(dependencies.approvalRules !== undefined ? { approvalRules: dependencies.approvalRules } : {}),
      ...(dependencies.sharedModelQueue ? { sharedModelQueue: true } : {}),
      ...withNotifications(notificationDefaults(dependencies.notifications)),
    }),
  };
}

export type KeelActivities = ReturnType<typeof createActivities>;

/** Only a worker with channels says so: goals of other workers record the defaults they always did. */
function withNotifications(notifications: ReturnType<typeof notificationDefaults>) {
  return notifications === undefined ? {} : { notifications };
}
