import Anthropic from '@anthropic-ai/sdk';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import os from 'node:os';
import path from 'node:path';
import { createActivities } from './activities';
import { hostSettings, type HostSettings } from './config/host-settings';
import { HostActivityWorker, keelHostOf, runWithHostWorker, type KeelHost } from './worker/host-worker';
import { watchHostsWhileRunning } from './worker/host-watcher';
import { hostTaskQueue, workerIdentity } from './workflows/hosts/host-queues';
import {
  createModelQueueWorker,
  modelQueueLine,
  modelRequestsPerMinute,
  runAlongside,
} from './worker/model-queue-worker';
import { ledgerSinksFromEnv, type LedgerSink } from './activities/ledger-sinks';
import { describeSandbox } from './activities/tools/sandbox/sandbox-status';
import { createReflectionStore } from './activities/reflection-store/create-reflection-store';
import { reflectionStoreSettings } from './config/reflection-store-settings';
import type { ReflectionStore } from './activities/reflection-store/reflection-store';
import {
  describeModelRequestStore,
  modelRequestStoreFromEnv,
  type ModelRequestStore,
} from './activities/model/request-store/create-model-request-store';
import type * as McpModule from './activities/mcp';
import type { McpServers, McpServersConfig } from './activities/mcp';
import { loadKeelConfig, validateKeelConfig } from './config/keel-config';
import { builtinTools } from './activities/tools/builtin';
import type { AnyToolDefinition, ToolLogger } from './activities/tools/define-tool';
import { registeredFromDefinition } from './activities/tools/registered-tool';
import { ToolRegistry } from './activities/tools/tool-registry';
import type { ToolCatalogue } from './workflows/tools/tool-catalogue';
import { workerToolsLine } from './client/tool-lines';
import { workerDefaultsFromEnv } from './activities/worker-defaults';
import type { Budget } from './workflows/principles/budget';
import { ruleSpecSchema, type RuleSpecInput } from './workflows/approvals/approval-rule';
import { approvalPolicyFromEnv, readApprovalPolicyFile } from './activities/approval-policy-file';
import { dataConverterFromEnv } from './codec/data-converter';
import { connectionSettings, type ConnectionSettings } from './client/connection-settings';
import { workerConnection, WorkerOptionsError, type WorkerConnectionOptions } from './worker/connection';
import { ensureKeelSearchAttributes } from './dev-server/search-attributes';
import type { KeelTracing } from './tracing';
import { processTracing } from './tracing/process-tracing';
import { workflowBundlerOptions } from './worker/bundle-options';
import { ensureWorkerHeartbeats, WORKER_INSTANCE_ID } from './worker/runtime';
import { maxCachedWorkflows } from './config/workflow-cache';
import { claimHost, recheckClaimWhenRunning, type HostClaimOptions } from './worker/host-claim/host-claim';
import type * as ScenarioModule from './scripted-model/scenario';
import type * as ScriptedServerModule from './scripted-model/scripted-messages-server';
import type { ScriptedMessagesServer } from './scripted-model/scripted-messages-server';

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
function approvalRulesOption(rules: readonly RuleSpecInput[]) {
  const parsed = ruleSpecSchema.array().safeParse(rules);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`approvalRules.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
}

export const WORKFLOWS_PATH = require.resolve('./workflows');

/**
 * A keel worker: the returned Worker polls the shared task queue (goal workflows, model calls),
 * and runs beside it a worker of this host's own queue (workspace tools, backups, the journal);
 * run() and runUntil() run and stop both. `keelHostOf(worker)` tells its host id and queue.
 */
export async function createKeelWorker(options: KeelWorkerOptions = {}): Promise<Worker> {
  const env = process.env;
  const host = hostSettings(options, env); // a bad id, root or number stops the worker here
  const requestsPerMinute = modelRequestsPerMinute(options.modelRequestsPerMinute, env);
  const cachedWorkflows = maxCachedWorkflows(options.maxCachedWorkflows, env);
  const anthropic = options.anthropic ?? anthropicFromEnvironment(env);
  // Before the first connection: the process's runtime, which beats for every worker, is made with it.
  const heartbeatIntervalMs = ensureWorkerHeartbeats(env);
  // Refuses a connection from another copy of Temporal before it is used (worker/temporal-copies.ts).
  const target = await workerConnection(options, env);
  try {
    const worker = await createWorkerOn(target, {
      ...options,
      anthropic,
      host,
      heartbeatIntervalMs,
      cachedWorkflows,
      requestsPerMinute,
    });
    // Outermost: the connection closes after the worker and everything else closed with it.
    if (target.owned) closeWhenStopped(worker, () => target.connection.close());
    return worker;
  } catch (error) {
    if (target.owned) await target.connection.close();
    throw error;
  }
}

async function createWorkerOn(
  target: { connection: NativeConnection; namespace: string; taskQueue: string },
  options: KeelWorkerOptions & {
    anthropic: Anthropic;
    host: HostSettings;
    heartbeatIntervalMs: number;
    cachedWorkflows: number;
    requestsPerMinute: number | undefined;
  },
): Promise<Worker> {
  const env = process.env;
  const { host } = options;
  const { connection, namespace, taskQueue } = target;
  await registerSearchAttributes({ connection, namespace });
  // Before anything polls (or starts): a second machine with a live host's id stops here.
  const claimOptions: HostClaimOptions = {
    connection,
    namespace,
    taskQueue,
    hostId: host.hostId,
    instanceId: WORKER_INSTANCE_ID,
    replica: host.replica,
    workspaceRoots: host.workspaceRoots,
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    warn: (line) => workerLog.warn(line),
    info: (line) => workerLog.info(line),
  };
  const claim = await claimHost(claimOptions);
  const ledgerSinks = options.ledgerSinks ?? ledgerSinksFromEnv(env);
  const defaults = workerDefaultsFromEnv(env, ledgerSinks.length > 0);
  const reflectionCadence = options.reflectionCadence ?? defaults.reflectionCadence;
  const budget = options.budget ?? defaults.budget;
  const approvalRules =
    options.approvalRules === undefined ? defaults.approvalRules : approvalRulesOption(options.approvalRules);
  const toolRegistry = createToolRegistry(options);
  const mcp = await connectConfiguredMcpServers(options.mcpServers, env);
  try {
    toolRegistry.add(mcp?.tools ?? []);
  } catch (error) {
    await mcp?.close();
    throw error;
  }
  mcp?.onToolsChanged((change) => {
    try {
      toolRegistry.replaceSource(change.source, change.tools);
    } catch (error) {
      // Goals keep the tools they recorded; new goals keep getting the last good list.
      console.warn(
        `keel worker: ${change.source} re-listed tools that could not be registered: ${String(error)}`,
      );
    }
  });
  const tracing = options.tracing ?? processTracing(env);
  // Unset: beside each workspace, on its host. Set: a store the user configured (shared or not).
  const journalDirectory = options.journalDirectory ?? configuredDirectory(env.KEEL_JOURNAL_DIR);
  const backupDirectory = options.backupDirectory ?? configuredDirectory(env.KEEL_BACKUP_DIR);
  const modelRequestStore =
    options.modelRequestStore === false
      ? undefined
      : (options.modelRequestStore ?? modelRequestStoreFromEnv(env));
  // One set of activities for both queues: the workflow decides which queue each call goes to.
  const activities = createActivities({
    anthropic: options.anthropic,
    ...(modelRequestStore === undefined ? {} : { modelRequestStore }),
    toolRegistry,
    hostId: host.hostId,
    instanceId: WORKER_INSTANCE_ID,
    workspaceRoots: host.workspaceRoots,
    hostListing: { connection, namespace, taskQueue },
    ...(journalDirectory !== undefined ? { journalDirectory } : {}),
    ...(backupDirectory !== undefined ? { backupDirectory } : {}),
    reflectionStore:
      options.reflectionStore ??
      createReflectionStore(reflectionStoreSettings({ cwd: process.cwd(), env }).config),
    ledgerSinks,
    ...(reflectionCadence !== undefined ? { reflectionCadence } : {}),
    ...(budget !== undefined ? { budget } : {}),
    ...(approvalRules !== undefined ? { approvalRules } : {}),
    sharedModelQueue: options.requestsPerMinute !== undefined,
  });
  const common = {
    ...(tracing ? { plugins: [...tracing.plugins] } : {}),
    connection,
    namespace,
    dataConverter: dataConverterFromEnv(env),
    identity: workerIdentity({
      hostId: host.hostId,
      pid: process.pid,
      machine: os.hostname(),
      instanceId: WORKER_INSTANCE_ID,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      ...(claim.diskId === undefined ? {} : { diskId: claim.diskId }),
    }),
    activities,
    maxConcurrentActivityTaskExecutions: host.maxConcurrentActivities,
    // A streaming model call beats every second with the answer so far (stream-progress.ts);
    // Temporal would otherwise pass on only one beat in 80% of the heartbeat timeout, and the
    // Web UI and `keel watch` would show the answer forming in 24-second jumps.
    maxHeartbeatThrottleInterval: '2s',
  } satisfies Partial<WorkerOptions>;
  const queue = hostTaskQueue(taskQueue, host.hostId);
  let hostWorker: Worker | undefined;
  let modelWorker: Worker | undefined;
  try {
    // Activities only: no workflows, so no bundle, and it is ready in milliseconds.
    hostWorker = await HostActivityWorker.create({ ...common, taskQueue: queue });
    const { requestsPerMinute } = options;
    modelWorker = await createModelQueueWorker({ ...common, sharedTaskQueue: taskQueue, requestsPerMinute });
    const worker = await Worker.create({
      ...common,
      taskQueue,
      maxCachedWorkflows: options.cachedWorkflows,
      // The SDK refuses more concurrent workflow tasks than cached goals (with a warning).
      maxConcurrentWorkflowTaskExecutions: Math.min(host.maxConcurrentWorkflows, options.cachedWorkflows),
      ...(options.workflowBundle
        ? { workflowBundle: options.workflowBundle }
        : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: workflowBundlerOptions }),
    });
    runWithHostWorker(worker, {
      ...host,
      hostTaskQueue: queue,
      hostWorker,
      instanceId: WORKER_INSTANCE_ID,
      ...(claim.diskId === undefined ? {} : { diskId: claim.diskId }),
      replicaOf: claim.joined,
    });
    runAlongside(worker, modelWorker);
    recheckClaimWhenRunning(worker, { ...claimOptions, ...claim });
    watchHostsWhileRunning(worker, {
      namespace,
      taskQueue,
      instanceId: WORKER_INSTANCE_ID,
      intervalMs: options.heartbeatIntervalMs,
      log: workerLog,
    });
    registries.set(worker, toolRegistry);
    if (mcp !== undefined) closeWhenStopped(worker, () => mcp.close());
    if (modelRequestStore !== undefined) closeWhenStopped(worker, () => modelRequestStore.close());
    return worker;
  } catch (error) {
    if (hostWorker !== undefined) await discardWorker(hostWorker);
    if (modelWorker !== undefined) await discardWorker(modelWorker);
    await mcp?.close();
    await modelRequestStore?.close();
    throw error;
  }
}

export { keelHostOf, type KeelHost };

const registries = new WeakMap<Worker, ToolRegistry>();

/**
 * The tools a worker createKeelWorker made offers now (undefined for any other worker): what
 * `keel tools` reads through Temporal, for the start log and embedders. MCP servers that re-list
 * their tools change it.
 */
export function keelToolsOf(worker: Worker): ToolCatalogue | undefined {
  const selection = registries.get(worker)?.catalogue();
  return selection?.ok ? selection.catalogue : undefined;
}

/** A directory the environment names, or undefined (an empty variable names none). */
function configuredDirectory(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * A created worker holds its connection until it has run: one that will not be used is run and
 * stopped at once, so the caller can still close the connection.
 */
async function discardWorker(worker: Worker): Promise<void> {
  const running = worker.run();
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running.catch(() => undefined);
}

/**
 * Goals upsert keel's search attributes; on a server without them (a plain `temporal server
 * start-dev`) every goal would hang on BadSearchAttributes. So the worker registers the missing
 * ones before it polls, and stops with one line when it cannot.
 */
async function registerSearchAttributes(options: { connection: NativeConnection; namespace: string }) {
  const check = await ensureKeelSearchAttributes({
    connection: options.connection,
    namespace: options.namespace,
  });
  if (check.outcome === 'registered')
    workerLog.info(
      `registered search attributes ${check.names.join(', ')} in namespace ${options.namespace}`,
    );
  if (check.outcome === 'unknown')
    workerLog.warn(
      `cannot check keel's search attributes in namespace ${options.namespace} (${check.reason}); goals hang if they are missing`,
    );
}

/** The servers of the options, or of the config file; undefined when there are none. */
async function connectConfiguredMcpServers(
  given: KeelWorkerOptions['mcpServers'],
  env: NodeJS.ProcessEnv,
): Promise<McpServers | undefined> {
  if (given === false) return undefined;
  const config =
    given === undefined
      ? loadKeelConfig({ cwd: process.cwd(), env }).config
      : validateKeelConfig({ mcpServers: given }, 'createKeelWorker mcpServers');
  const servers = config.mcpServers;
  if (servers === undefined || Object.keys(servers).length === 0) return undefined;
  // Loaded only here: the MCP SDK is a fifth of what a worker loads at start, and most workers
  // have no servers. require, not import(): the launcher's source path (tsx/cjs) cannot resolve one.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { connectMcpServers } = require('./activities/mcp') as typeof McpModule;
  return connectMcpServers({ servers, env, log: workerLog });
}

const workerLog: ToolLogger = {
  info: (message) => console.log(`keel worker: ${message}`),
  warn: (message) => console.warn(`keel worker: ${message}`),
  error: (message) => console.error(`keel worker: ${message}`),
};

/**
 * MCP servers started for a worker stop with it. Worker has no stop hook, so run() (which
 * runUntil also goes through) is wrapped: when it returns or throws, the servers are closed.
 */
function closeWhenStopped(worker: Worker, close: () => Promise<void>): void {
  const run = worker.run.bind(worker);
  worker.run = async () => {
    try {
      return await run();
    } finally {
      await close();
    }
  };
}

/**
 * The worker's tools: the built-ins and the user's own. Every problem (a duplicate name, a name
 * the model API refuses, a schema that does not convert) is one error naming the tool, at start.
 */
export function createToolRegistry(options: Pick<KeelWorkerOptions, 'tools' | 'builtinTools'>): ToolRegistry {
  const builtins = options.builtinTools === false ? [] : builtinTools;
  return new ToolRegistry([
    ...builtins.map((tool) => registeredFromDefinition(tool, 'builtin')),
    ...(options.tools ?? []).map((tool) => registeredFromDefinition(tool, 'worker')),
  ]);
}

/**
 * The Anthropic client from the worker's environment only. The SDK's own retries are off
 * (maxRetries 0): Temporal's retry policy is the single place that retries a model call.
 */
export function anthropicFromEnvironment(env: NodeJS.ProcessEnv = process.env): Anthropic {
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey) {
    throw new Error(
      'ANTHROPIC_API_KEY is not set: set it in the worker environment, or run a scripted model with --scripted FILE',
    );
  }
  return new Anthropic({ apiKey, baseURL: env.ANTHROPIC_BASE_URL || undefined, maxRetries: 0 });
}

/**
 * Everything createKeelWorker takes (tools, builtinTools, mcpServers, stores, connection options,
 * ...), plus what only a worker process needs. The connection options win over `settings`.
 */
export interface RunWorkerOptions extends KeelWorkerOptions {
  /** `keel worker`'s --address, --namespace and --task-queue. */
  settings?: Partial<ConnectionSettings>;
  /** Replay this scenario from a loopback Messages endpoint instead of calling a real model. */
  scriptedScenarioFile?: string;
  /** The team's approval rules file (`keel worker --approval-rules`); KEEL_APPROVAL_RULES otherwise. */
  approvalRulesFile?: string;
  log?: (line: string) => void;
}

/** Runs a worker until SIGINT/SIGTERM. */
export async function runWorker(options: RunWorkerOptions = {}): Promise<void> {
  const { settings: flags, scriptedScenarioFile, approvalRulesFile, log: given, ...workerOptions } = options;
  const log = given ?? ((line: string) => console.log(line));
  for (const [one, other] of [
    ['anthropic', 'scriptedScenarioFile'],
    ['approvalRules', 'approvalRulesFile'],
  ] as const)
    if (options[one] !== undefined && options[other] !== undefined)
      throw new WorkerOptionsError(`runWorker: give either ${one} or ${other}, not both`);
  const settings = connectionSettings({
    ...flags,
    ...definedOf({ address: options.address, namespace: options.namespace, taskQueue: options.taskQueue }),
  });
  const host = hostSettings(options); // before connecting: a bad setting is one line, at once
  const approvalRules =
    options.approvalRules ??
    (approvalRulesFile === undefined
      ? approvalPolicyFromEnv(process.env)
      : readApprovalPolicyFile(approvalRulesFile));
  let scripted: ScriptedMessagesServer | undefined;
  let anthropic: Anthropic;
  if (scriptedScenarioFile) {
    // Only a scripted worker needs these (and the YAML parser behind them): loaded here.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { loadScenarioFile } = require('./scripted-model/scenario') as typeof ScenarioModule;
    const { startScriptedMessagesServer } =
      require('./scripted-model/scripted-messages-server') as typeof ScriptedServerModule;
    /* eslint-enable @typescript-eslint/no-require-imports */
    const scenario = loadScenarioFile(scriptedScenarioFile);
    scripted = await startScriptedMessagesServer({ scenarios: [scenario] });
    anthropic = new Anthropic({
      apiKey: 'scripted-model-needs-no-key',
      baseURL: scripted.url,
      maxRetries: 0,
    });
    log(
      `keel worker: SCRIPTED model — replaying scenario "${scenario.name}" from ${scripted.url} (no real LLM)`,
    );
  } else {
    anthropic = options.anthropic ?? anthropicFromEnvironment();
    log(`keel worker: model endpoint ${anthropic.baseURL}`);
  }
  try {
    // A connection keel makes here closes when the worker stops; one given stays the caller's.
    const worker = await createKeelWorker({
      ...workerOptions,
      ...(options.connection === undefined ? { address: settings.address } : {}),
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      anthropic,
      ...host,
      ...(approvalRules === undefined ? {} : { approvalRules }),
      // A bundle built ahead (bundleWorkflowCode) spares every start the seconds of bundling.
      // Absolute: the SDK re-encodes the bundle's inline source map for a path that is not.
      ...(options.workflowBundle === undefined && process.env.KEEL_WORKFLOW_BUNDLE
        ? { workflowBundle: { codePath: path.resolve(process.env.KEEL_WORKFLOW_BUNDLE) } }
        : {}),
    });
    const roots = host.workspaceRoots.length > 0 ? host.workspaceRoots.join(', ') : 'any path';
    log(
      `keel worker: host ${host.hostId} — polling "${hostTaskQueue(settings.taskQueue, host.hostId)}" for workspace tools (workspace roots: ${roots})`,
    );
    log(`keel worker: ${describeClaim(keelHostOf(worker))}`);
    log(
      `keel worker: ${modelQueueLine(settings.taskQueue, modelRequestsPerMinute(options.modelRequestsPerMinute))}`,
    );
    log(`keel worker: ${workerToolsLine(keelToolsOf(worker) ?? [])}`);
    log(
      `keel worker: keeps up to ${maxCachedWorkflows(workerOptions.maxCachedWorkflows, process.env)} goals in memory (KEEL_MAX_CACHED_WORKFLOWS); others are rebuilt from their history when their next decision arrives`,
    );
    log(describeSandbox());
    if (approvalRules !== undefined)
      log(
        `keel worker: ${approvalRules.length} approval rules for every goal it starts (docs/approvals-and-security.md, Approval rules)`,
      );
    log(`keel worker: model requests kept in ${describeModelRequestStore(process.env)}`);
    log(
      `keel worker: reflections in ${reflectionStoreSettings({ cwd: process.cwd(), env: process.env }).description}`,
    );
    const server = options.connection === undefined ? settings.address : 'the given connection';
    log(
      `keel worker: polling task queue "${settings.taskQueue}" on ${server} (namespace ${settings.namespace})`,
    );
    await worker.run(); // the worker's own shutdown hooks stop it on SIGINT/SIGTERM
  } finally {
    await scripted?.close();
  }
}

/** Which process of the host this is, on which disk, and whose replica (docs/several-machines.md, Host identity). */
function describeClaim(host: KeelHost | undefined): string {
  if (host === undefined) return 'host claim unknown';
  const disk = host.diskId === undefined ? 'no workspace root, so no disk marker' : `disk ${host.diskId}`;
  const replica =
    host.replicaOf.length === 0
      ? ''
      : `, replica beside instance ${host.replicaOf.join(', ')} on the same disk`;
  return `host ${host.hostId} claimed by instance ${host.instanceId} (${disk}${replica})`;
}

/** The entries that are set (so they do not overwrite a flag with undefined). */
function definedOf<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

if (require.main === module) {
  runWorker({ scriptedScenarioFile: process.env.KEEL_SCRIPTED_SCENARIO || undefined }).catch(
    (error: unknown) => {
      console.error(`keel worker: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
