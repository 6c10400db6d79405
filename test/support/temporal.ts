import Anthropic from '@anthropic-ai/sdk';
import type { RuleSpecInput } from '../../src/workflows/approvals/approval-rule';
import { Client } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  type Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { tempDirectory } from './temp-directory';
import { createFileModelRequestStore } from '../../src/activities/model/request-store/file-model-request-store';
import type { ModelRequestStore } from '../../src/activities/model/request-store/model-request-store';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { createKeelWorker, WORKFLOWS_PATH } from '../../src/worker';
import { workflowBundlerOptions } from '../../src/worker/bundle-options';
import type { McpServersConfig } from '../../src/activities/mcp';
import type { AnyToolDefinition } from '../../src/activities/tools/define-tool';
import type { LedgerSink } from '../../src/activities/ledger-sinks';
import type { NotifierSettings } from '../../src/activities/notifications/notifier-settings';
import { createFileReflectionStore } from '../../src/activities/reflection-store/file-reflection-store';
import type { ReflectionStore } from '../../src/activities/reflection-store/reflection-store';
import { quietLogger } from './quiet-logger';
import { connectTemporal } from '../../src/client/temporal-connection';

// Workers log every state change at INFO; tests only want to hear about problems.
Runtime.install({ logger: new DefaultLogger('WARN') });

/**
 * Integration tests share one real dev server: the test runner starts it and passes
 * TEMPORAL_ADDRESS; a file run on its own starts a private one.
 */
let ownServer: Promise<DevServer> | undefined;
export async function temporalAddress(): Promise<string> {
  if (process.env.TEMPORAL_ADDRESS) return process.env.TEMPORAL_ADDRESS;
  ownServer ??= startDevServer({ ephemeral: true });
  return (await ownServer).address;
}

export async function stopOwnServer(): Promise<void> {
  if (ownServer) await (await ownServer).stop();
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/**
 * Bundling the workflow code takes seconds; do it once per test file. With the worker's own
 * bundler options (the preloaded modules, the compile target), so tests run the code production
 * runs.
 */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    ...workflowBundlerOptions,
    // the worker's own failure converter (encrypting when the test set KEEL_ENCRYPTION_KEYS)
    failureConverterPath: dataConverterFromEnv().failureConverterPath,
    payloadConverterPath: dataConverterFromEnv().payloadConverterPath,
    logger: quietLogger,
  });
  return bundle;
}

export { tempDirectory };

// Hosts without workspace roots keep their registry of running goals' workspaces here, not in
// /tmp for good; worker processes a test starts inherit it, so replicas still share one registry.
process.env.KEEL_STATE_DIRECTORY ??= tempDirectory('keel-state-');

export interface Harness {
  client: Client;
  scripted: ScriptedMessagesServer;
  taskQueue: string;
  journalDirectory: string;
  /** Where this harness's workers keep reflections (a file store), unless one was passed. */
  reflectionDirectory: string;
  /** Runs a worker for the duration of fn (which may read the worker's status). */
  withWorker<T>(fn: (worker: Worker) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

let queueCounter = 0;

/** A client, a scripted Messages endpoint and a task queue of its own for one test. */
export async function createHarness(options: {
  scenarios: ScenarioInput[];
  /** A server of the test's own (e.g. one with the Web UI); the shared, headless one otherwise. */
  address?: string;
  reflectionStore?: ReflectionStore;
  /** The workers' model request store; a file store in a temporary folder otherwise. */
  modelRequestStore?: ModelRequestStore | false;
  ledgerSinks?: LedgerSink[];
  /** The worker's approval notification channels (its KEEL_NOTIFY_*); none otherwise. */
  notifications?: NotifierSettings;
  /** The worker's default checkpoint cadence (its KEEL_REFLECTION_CADENCE). */
  reflectionCadence?: number;
  /** MCP servers for the worker; none otherwise (a keel.config.yaml in the cwd is not read). */
  mcpServers?: McpServersConfig;
  /** The worker's approval policy (its KEEL_APPROVAL_RULES file). */
  approvalRules?: RuleSpecInput[];
  /** The worker's own tools (defineTool), beside the built-ins. */
  tools?: readonly AnyToolDefinition[];
  /** Goals the worker keeps in its workflow cache; keel's default from memory otherwise. */
  maxCachedWorkflows?: number;
  /** The scripted endpoint's context window (its model's own otherwise). */
  contextWindowTokens?: number;
  /** The fleet's model request limit (KEEL_MODEL_REQUESTS_PER_MINUTE); none otherwise. */
  modelRequestsPerMinute?: number;
  /** Goals at work at once on the worker (KEEL_GOALS_AT_WORK); keel's default otherwise. */
  goalsAtWork?: number | false;
}): Promise<Harness> {
  const address = options.address ?? (await temporalAddress());
  const connection = await connectTemporal({ address });
  const client = new Client({ connection, dataConverter: dataConverterFromEnv() }); // as the worker's
  const scripted = await startScriptedMessagesServer({
    scenarios: options.scenarios,
    ...(options.contextWindowTokens ? { contextWindowTokens: options.contextWindowTokens } : {}),
  });
  const taskQueue = `keel-test-${process.pid}-${++queueCounter}-${Date.now()}`;
  const journalDirectory = tempDirectory('keel-journal-');
  const reflectionDirectory = tempDirectory('keel-reflections-');
  return {
    client,
    scripted,
    taskQueue,
    journalDirectory,
    reflectionDirectory,
    async withWorker(fn) {
      const workerConnection = await NativeConnection.connect({ address });
      const worker: Worker = await createKeelWorker({
        connection: workerConnection,
        namespace: 'default',
        taskQueue,
        anthropic: new Anthropic({
          apiKey: 'test-key-never-in-history',
          baseURL: scripted.url,
          maxRetries: 0,
        }),
        journalDirectory,
        backupDirectory: tempDirectory('keel-backups-'),
        modelRequestStore:
          options.modelRequestStore ??
          createFileModelRequestStore({ directory: tempDirectory('keel-model-requests-') }),
        reflectionStore:
          options.reflectionStore ?? createFileReflectionStore({ directory: reflectionDirectory }),
        ledgerSinks: options.ledgerSinks ?? [],
        notifications: options.notifications ?? false,
        ...(options.reflectionCadence !== undefined ? { reflectionCadence: options.reflectionCadence } : {}),
        workflowBundle: await workflowBundle(),
        mcpServers: options.mcpServers ?? false,
        ...(options.approvalRules === undefined ? {} : { approvalRules: options.approvalRules }),
        ...(options.tools === undefined ? {} : { tools: options.tools }),
        ...(options.maxCachedWorkflows === undefined
          ? {}
          : { maxCachedWorkflows: options.maxCachedWorkflows }),
        modelRequestsPerMinute: options.modelRequestsPerMinute ?? false,
        ...(options.goalsAtWork === undefined ? {} : { goalsAtWork: options.goalsAtWork }),
      });
      try {
        return await worker.runUntil(() => fn(worker));
      } finally {
        await workerConnection.close();
      }
    },
    async close() {
      await scripted.close();
      await connection.close();
    },
  };
}

/** Polls until the predicate holds (for waiting on a workflow's visible state). */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
  throw new Error(`condition not met within ${timeoutMs} ms${detail}`);
}

/** A history as text with every payload decoded, so assertions can search what was stored. */
export function historyText(history: unknown): string {
  // The history's own toJSON renders payload bytes as base64 strings under `data`.
  return JSON.stringify(history, (key, value: unknown) =>
    key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
  );
}

/** The ids of the workflows a visibility query lists. */
export async function workflowIdsMatching(client: Client, query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
  return ids;
}
