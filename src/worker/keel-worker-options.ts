/**
 * What createKeelWorker takes (KeelWorkerOptions), and the checks and readings of the options
 * that are not settings of their own module: approval rules given in code, configured directories.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { WorkerOptions } from '@temporalio/worker';
import type { LedgerSink } from '../activities/ledger-sinks';
import type { NotifierSettings } from '../activities/notifications/notifier-settings';
import type { ReflectionStore } from '../activities/reflection-store/reflection-store';
import type { ModelRequestStore } from '../activities/model/request-store/create-model-request-store';
import type { McpServersConfig } from '../activities/mcp';
import type { AnyToolDefinition } from '../activities/tools/define-tool';
import type { Budget } from '../workflows/principles/budget';
import { ruleSpecSchema, type RuleSpecInput } from '../workflows/approvals/approval-rule';
import type { KeelTracing } from '../tracing';
import type { WorkerConnectionOptions } from './connection';

/**
 * Where to connect (or a connection of your own), namespace and task queue: see
 * WorkerConnectionOptions; each falls back to the environment, then the local dev server's defaults.
 */
export interface KeelWorkerOptions extends WorkerConnectionOptions {
  /** The model client; from ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL) otherwise. */
  anthropic?: Anthropic;
  /** Your own tools (defineTool), offered to every goal beside the built-ins unless it picks. */
  tools?: readonly AnyToolDefinition[];
  /** Offer keel's six workspace tools (default true). */
  builtinTools?: boolean;
  /**
   * MCP servers whose tools goals may use (see docs/tools-and-mcp.md, MCP servers). When omitted, the
   * `mcpServers` of keel.config.yaml (in the working directory, or the file KEEL_CONFIG names);
   * `false` for none.
   */
  mcpServers?: McpServersConfig | false;
  /**
   * This host's id (issue 9: it names the host's own task queue and is in the worker's identity);
   * KEEL_HOST_ID otherwise, else the machine's hostname made into a host id.
   */
  hostId?: string;
  /** Absolute paths this host serves workspaces under; KEEL_WORKSPACE_ROOTS (colon-separated) otherwise; none: any path. */
  workspaceRoots?: readonly string[];
  /**
   * Join a host id that another live machine holds, as a replica of the same disk (proven by the
   * marker in the first workspace root; docs/several-machines.md, Host identity); KEEL_HOST_REPLICA=1
   * otherwise. Without it, a live holder of the id stops this worker at start (HostClaimError).
   */
  replica?: boolean;
  /** Activities each of the worker's three queues runs at once; KEEL_MAX_CONCURRENT_ACTIVITIES, else 20. */
  maxConcurrentActivities?: number;
  /** Model requests a minute for the whole fleet (worker/model-queue-worker.ts); KEEL_MODEL_REQUESTS_PER_MINUTE, else none. */
  modelRequestsPerMinute?: number | false;
  /**
   * Goals allowed to make model calls at once, the others waiting first come, first served
   * (src/config/goals-at-work.ts); KEEL_GOALS_AT_WORK, else none; `false` for none.
   */
  goalsAtWork?: number | false;
  /** Workflow tasks run at once; KEEL_MAX_CONCURRENT_WORKFLOWS, else 40 (at most the cache size). */
  maxConcurrentWorkflows?: number;
  /**
   * Goals kept in the workflow cache (see src/config/workflow-cache.ts): an evicted goal is
   * replayed from its history when its next decision arrives; KEEL_MAX_CACHED_WORKFLOWS, else
   * an eighth of the worker's memory at about 3 MiB a goal (at least 10).
   */
  maxCachedWorkflows?: number;
  /**
   * A shared store for the journal of irreversible calls and for backups, instead of keeping them
   * beside each workspace on its host; KEEL_JOURNAL_DIR / KEEL_BACKUP_DIR otherwise.
   */
  journalDirectory?: string;
  backupDirectory?: string;
  /**
   * Where goals' last model requests are kept so each turn's activity input names them instead of
   * carrying the transcript (see docs/how-a-goal-runs.md, Long goals); KEEL_MODEL_REQUESTS otherwise, `false`
   * for none.
   */
  modelRequestStore?: ModelRequestStore | false;
  /** Each of these falls back to the worker's environment (see docs/configuration.md). */
  reflectionStore?: ReflectionStore;
  ledgerSinks?: readonly LedgerSink[];
  /**
   * The channels that tell approvers a call waits (docs/approvals-and-security.md, Notifications);
   * KEEL_NOTIFY_* otherwise, `false` for none.
   */
  notifications?: NotifierSettings | false;
  reflectionCadence?: number;
  /** A default budget for goals that leave a dimension open; KEEL_BUDGET_* otherwise. */
  budget?: Budget;
  /**
   * The team's approval rules for every goal this worker starts (docs/approvals-and-security.md, Approval rules);
   * the file named by KEEL_APPROVAL_RULES otherwise.
   */
  approvalRules?: RuleSpecInput[];
  /** A prebuilt workflow bundle (tests build one and share it); built from source otherwise. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * OpenTelemetry (src/tracing): from the OTEL_* environment when omitted, `false` for none. A
   * prebuilt bundle must then be built with the tracing plugins (bundleWorkflowCode `plugins`).
   */
  tracing?: KeelTracing | false;
}

/** Rules given in code, checked like a policy file: a bad one stops the worker with one line. */
export function approvalRulesOption(rules: readonly RuleSpecInput[]) {
  const parsed = ruleSpecSchema.array().safeParse(rules);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`approvalRules.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
}

/** A directory the environment names, or undefined (an empty variable names none). */
export function configuredDirectory(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
