import Anthropic from '@anthropic-ai/sdk';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import os from 'node:os';
import path from 'node:path';
import { createActivities } from './activities';
import { ledgerSinksFromEnv, type LedgerSink } from './activities/ledger-sinks';
import {
  createReflectionStore,
  reflectionStoreConfigFromEnv,
} from './activities/reflection-store/create-reflection-store';
import type { ReflectionStore } from './activities/reflection-store/reflection-store';
import { workerDefaultsFromEnv } from './activities/worker-defaults';
import { dataConverterFromEnv } from './codec/data-converter';
import { connectionSettings, type ConnectionSettings } from './connection-settings';
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
  /** Each of these falls back to the worker's environment (see README, Configuration). */
  journalDirectory?: string;
  backupDirectory?: string;
  reflectionStore?: ReflectionStore;
  ledgerSinks?: readonly LedgerSink[];
  reflectionCadence?: number;
  /** A prebuilt workflow bundle (tests build one and share it); built from source otherwise. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export const WORKFLOWS_PATH = require.resolve('./workflows');

export async function createKeelWorker(options: KeelWorkerOptions): Promise<Worker> {
  const env = process.env;
  const ledgerSinks = options.ledgerSinks ?? ledgerSinksFromEnv(env);
  const defaults = workerDefaultsFromEnv(env, ledgerSinks.length > 0);
  const reflectionCadence = options.reflectionCadence ?? defaults.reflectionCadence;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    dataConverter: dataConverterFromEnv(env),
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities({
      anthropic: options.anthropic,
      journalDirectory: options.journalDirectory ?? keelDirectory(env, 'KEEL_JOURNAL_DIR', 'journal'),
      backupDirectory: options.backupDirectory ?? keelDirectory(env, 'KEEL_BACKUP_DIR', 'backups'),
      reflectionStore: options.reflectionStore ?? createReflectionStore(reflectionStoreConfigFromEnv(env)),
      ledgerSinks,
      ...(reflectionCadence !== undefined ? { reflectionCadence } : {}),
    }),
  });
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
    });
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
