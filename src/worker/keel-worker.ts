/**
 * createKeelWorker: a keel worker on one connection, made of three workers (the shared queue's
 * goal workflows, the model queue, this host's own queue) with their activities, host claim and
 * tools, stopped together.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import os from 'node:os';
import { createActivities } from '../activities';
import { hostSettings, type HostSettings } from '../config/host-settings';
import { HostActivityWorker, runWithHostWorker } from './host-worker';
import { watchHostsWhileRunning } from './host-watcher';
import { hostTaskQueue, workerIdentity } from '../workflows/hosts/host-queues';
import { createModelQueueWorker, modelRequestsPerMinute, runAlongside } from './model-queue-worker';
import { ledgerSinksFromEnv } from '../activities/ledger-sinks';
import { createReflectionStore } from '../activities/reflection-store/create-reflection-store';
import { reflectionStoreSettings } from '../config/reflection-store-settings';
import { modelRequestStoreFromEnv } from '../activities/model/request-store/create-model-request-store';
import { workerDefaultsFromEnv } from '../activities/worker-defaults';
import { notifierSettingsFromEnv } from '../activities/notifications/notifier-settings';
import { dataConverterFromEnv } from '../codec/data-converter';
import { workerConnection } from './connection';
import { processTracing } from '../tracing/process-tracing';
import { workflowBundlerOptions } from './bundle-options';
import { ensureWorkerHeartbeats, WORKER_INSTANCE_ID } from './runtime';
import { maxCachedWorkflows } from '../config/workflow-cache';
import { goalsAtWork } from '../config/goals-at-work';
import { GoalsAtWork } from '../activities/model/goals-at-work';
import { claimHost, recheckClaimWhenRunning, type HostClaimOptions } from './host-claim/host-claim';
import { approvalRulesOption, configuredDirectory, type KeelWorkerOptions } from './keel-worker-options';
import { anthropicFromEnvironment } from './model-client';
import { registerSearchAttributes } from './search-attributes';
import { closeWhenStopped, discardWorker } from './stop-with-worker';
import { workerLog } from './worker-log';
import type * as BundleFile from './bundle-file';
import { assembleWorkerTools, rememberToolsOf } from './worker-tools';

/** keel's goal workflows, which a worker bundles unless it is given a bundle built ahead. */
export const WORKFLOWS_PATH = require.resolve('../workflows');

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
  const places = goalsAtWork(options.goalsAtWork, env); // a bad value stops the worker here
  const anthropic = options.anthropic ?? anthropicFromEnvironment(env);
  // A bad KEEL_NOTIFY_* value stops the worker before it connects, in one line that repeats no secret.
  const notifications = options.notifications ?? notifierSettingsFromEnv(env) ?? false;
  // Before the first connection: the process's runtime, which beats for every worker, is made with it.
  const heartbeatIntervalMs = ensureWorkerHeartbeats(env);
  // Refuses a connection from another copy of Temporal before it is used (worker/temporal-copies.ts).
  const target = await workerConnection(options, env);
  try {
    const worker = await createWorkerOn(target, {
      ...options,
      anthropic,
      notifications,
      host,
      heartbeatIntervalMs,
      cachedWorkflows,
      requestsPerMinute,
      places,
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
    places: number | undefined;
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
  const notifications = options.notifications === false ? undefined : options.notifications;
  const defaults = workerDefaultsFromEnv(env, ledgerSinks.length > 0);
  const reflectionCadence = options.reflectionCadence ?? defaults.reflectionCadence;
  const budget = options.budget ?? defaults.budget;
  const approvalRules =
    options.approvalRules === undefined ? defaults.approvalRules : approvalRulesOption(options.approvalRules);
  const { toolRegistry, mcp } = await assembleWorkerTools(options, env);
  const tracing = options.tracing ?? processTracing(env);
  // Unset: beside each workspace, on its host. Set: a store the user configured (shared or not).
  const journalDirectory = options.journalDirectory ?? configuredDirectory(env.KEEL_JOURNAL_DIR);
  const backupDirectory = options.backupDirectory ?? configuredDirectory(env.KEEL_BACKUP_DIR);
  const modelRequestStore =
    options.modelRequestStore === false
      ? undefined
      : (options.modelRequestStore ?? modelRequestStoreFromEnv(env));
  // Places and waiting room are what the cache holds (goals-at-work.ts).
  const goalsAtWork =
    options.places === undefined
      ? undefined
      : new GoalsAtWork(options.places, Math.max(0, options.cachedWorkflows - options.places));
  // One set of activities for both queues: the workflow decides which queue each call goes to.
  const activities = createActivities({
    anthropic: options.anthropic,
    // Loaded when a goal forks or rewinds by Update: a start has no need of it.
    workflowBundleFile: (log) =>
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      (require('./bundle-file') as typeof BundleFile).prebuiltWorkflowBundle({ env, log }),
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
    ...(notifications === undefined ? {} : { notifications }),
    ...(reflectionCadence !== undefined ? { reflectionCadence } : {}),
    ...(budget !== undefined ? { budget } : {}),
    ...(approvalRules !== undefined ? { approvalRules } : {}),
    sharedModelQueue: options.requestsPerMinute !== undefined,
    ...(goalsAtWork === undefined ? {} : { goalsAtWork }),
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
    // The queues model calls run on get a slot for every goal at work and every call that may wait
    // for a place, beside their own: a goal at work never waits for a slot its waiters hold.
    const modelSlots = {
      maxConcurrentActivityTaskExecutions:
        host.maxConcurrentActivities + (goalsAtWork ? goalsAtWork.places + goalsAtWork.waitingRoom : 0),
    };
    modelWorker = await createModelQueueWorker({
      ...common,
      ...modelSlots,
      sharedTaskQueue: taskQueue,
      requestsPerMinute,
    });
    const worker = await Worker.create({
      ...common,
      ...modelSlots,
      taskQueue,
      maxCachedWorkflows: options.cachedWorkflows,
      // The SDK refuses more concurrent workflow tasks than cached goals (with a warning).
      maxConcurrentWorkflowTaskExecutions: Math.min(host.maxConcurrentWorkflows, options.cachedWorkflows),
      ...(options.workflowBundle
        ? { workflowBundle: options.workflowBundle }
        : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: workflowBundlerOptions }),
    });
    // A full cache means more goals than it keeps: waiting would cost them a rebuild (goals-at-work.ts).
    if (goalsAtWork !== undefined)
      goalsAtWork.crowded = () => worker.getStatus().numCachedWorkflows >= options.cachedWorkflows;
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
    rememberToolsOf(worker, toolRegistry);
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
