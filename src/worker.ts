import Anthropic from '@anthropic-ai/sdk';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import os from 'node:os';
import path from 'node:path';
import { createActivities } from './activities';
import { ledgerSinksFromEnv, type LedgerSink } from './activities/ledger-sinks';
import { describeSandbox } from './activities/tools/sandbox/sandbox-status';
import { createReflectionStore } from './activities/reflection-store/create-reflection-store';
import { reflectionStoreSettings } from './config/reflection-store-settings';
import type { ReflectionStore } from './activities/reflection-store/reflection-store';
import { connectMcpServers, type McpServers, type McpServersConfig } from './activities/mcp';
import { loadKeelConfig, validateKeelConfig } from './config/keel-config';
import { builtinTools } from './activities/tools/builtin';
import type { AnyToolDefinition, ToolLogger } from './activities/tools/define-tool';
import { registeredFromDefinition } from './activities/tools/registered-tool';
import { ToolRegistry } from './activities/tools/tool-registry';
import { workerDefaultsFromEnv } from './activities/worker-defaults';
import type { Budget } from './workflows/principles/budget';
import { dataConverterFromEnv } from './codec/data-converter';
import { connectionSettings, type ConnectionSettings } from './connection-settings';
import { ensureKeelSearchAttributes } from './dev-server/search-attributes';
import { processTracing, type KeelTracing } from './tracing';
import { loadScenarioFile } from './scripted-model/scenario';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from './scripted-model/scripted-messages-server';

export interface KeelWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  anthropic: Anthropic;
  /** Your own tools (defineTool), offered to every goal beside the built-ins unless it picks. */
  tools?: readonly AnyToolDefinition[];
  /** Offer keel's six workspace tools (default true). */
  builtinTools?: boolean;
  /**
   * MCP servers whose tools goals may use (see README, MCP servers). When omitted, the
   * `mcpServers` of keel.config.yaml (in the working directory, or the file KEEL_CONFIG names);
   * `false` for none.
   */
  mcpServers?: McpServersConfig | false;
  /** Each of these falls back to the worker's environment (see README, Configuration). */
  journalDirectory?: string;
  backupDirectory?: string;
  reflectionStore?: ReflectionStore;
  ledgerSinks?: readonly LedgerSink[];
  reflectionCadence?: number;
  /** A default budget for goals that leave a dimension open; KEEL_BUDGET_* otherwise. */
  budget?: Budget;
  /** A prebuilt workflow bundle (tests build one and share it); built from source otherwise. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * OpenTelemetry (src/tracing): from the OTEL_* environment when omitted, `false` for none. A
   * prebuilt bundle must then be built with the tracing plugins (bundleWorkflowCode `plugins`).
   */
  tracing?: KeelTracing | false;
}

export const WORKFLOWS_PATH = require.resolve('./workflows');

export async function createKeelWorker(options: KeelWorkerOptions): Promise<Worker> {
  const env = process.env;
  await registerSearchAttributes(options);
  const ledgerSinks = options.ledgerSinks ?? ledgerSinksFromEnv(env);
  const defaults = workerDefaultsFromEnv(env, ledgerSinks.length > 0);
  const reflectionCadence = options.reflectionCadence ?? defaults.reflectionCadence;
  const budget = options.budget ?? defaults.budget;
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
  const worker = await Worker.create({
    ...(tracing ? { plugins: [...tracing.plugins] } : {}),
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    dataConverter: dataConverterFromEnv(env),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities({
      anthropic: options.anthropic,
      toolRegistry,
      journalDirectory: options.journalDirectory ?? keelDirectory(env, 'KEEL_JOURNAL_DIR', 'journal'),
      backupDirectory: options.backupDirectory ?? keelDirectory(env, 'KEEL_BACKUP_DIR', 'backups'),
      reflectionStore:
        options.reflectionStore ??
        createReflectionStore(reflectionStoreSettings({ cwd: process.cwd(), env }).config),
      ledgerSinks,
      ...(reflectionCadence !== undefined ? { reflectionCadence } : {}),
      ...(budget !== undefined ? { budget } : {}),
    }),
  }).catch(async (error: unknown) => {
    await mcp?.close();
    throw error;
  });
  if (mcp !== undefined) closeWhenStopped(worker, () => mcp.close());
  return worker;
}

/**
 * Goals upsert keel's search attributes; on a server without them (a plain `temporal server
 * start-dev`) every goal would hang on BadSearchAttributes. So the worker registers the missing
 * ones before it polls, and stops with one line when it cannot.
 */
async function registerSearchAttributes(options: Pick<KeelWorkerOptions, 'connection' | 'namespace'>) {
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

/** ~/.keel/<name> unless the variable names another directory. */
export function keelDirectory(env: NodeJS.ProcessEnv, variable: string, name: string): string {
  return env[variable] ?? path.join(os.homedir(), '.keel', name);
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

export interface RunWorkerOptions {
  settings?: Partial<ConnectionSettings>;
  /** Replay this scenario from a loopback Messages endpoint instead of calling a real model. */
  scriptedScenarioFile?: string;
  /** Your own tools, offered beside the built-ins (see KeelWorkerOptions.tools). */
  tools?: readonly AnyToolDefinition[];
  log?: (line: string) => void;
}

/** Runs a worker until SIGINT/SIGTERM. */
export async function runWorker(options: RunWorkerOptions = {}): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line));
  const settings = connectionSettings(options.settings);
  let scripted: ScriptedMessagesServer | undefined;
  let anthropic: Anthropic;
  if (options.scriptedScenarioFile) {
    const scenario = loadScenarioFile(options.scriptedScenarioFile);
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
    anthropic = anthropicFromEnvironment();
    log(`keel worker: model endpoint ${anthropic.baseURL}`);
  }
  const connection = await NativeConnection.connect({ address: settings.address });
  try {
    const worker = await createKeelWorker({
      connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      anthropic,
      ...(options.tools ? { tools: options.tools } : {}),
      // A bundle built ahead (bundleWorkflowCode) spares every start the seconds of bundling.
      ...(process.env.KEEL_WORKFLOW_BUNDLE
        ? { workflowBundle: { codePath: process.env.KEEL_WORKFLOW_BUNDLE } }
        : {}),
    });
    log(describeSandbox());
    log(
      `keel worker: reflections in ${reflectionStoreSettings({ cwd: process.cwd(), env: process.env }).description}`,
    );
    log(
      `keel worker: polling task queue "${settings.taskQueue}" on ${settings.address} (namespace ${settings.namespace})`,
    );
    await worker.run(); // the worker's own shutdown hooks stop it on SIGINT/SIGTERM
  } finally {
    await connection.close();
    await scripted?.close();
  }
}

if (require.main === module) {
  runWorker({ scriptedScenarioFile: process.env.KEEL_SCRIPTED_SCENARIO || undefined }).catch(
    (error: unknown) => {
      console.error(`keel worker: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
