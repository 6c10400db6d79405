import { Client, type Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { freePort, startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import { WORKFLOWS_PATH } from '../../src/worker';
import { quietLogger } from '../../test/support/quiet-logger';
import { startWorkerProcess, type WorkerProcess } from '../../test/support/worker-process';
import { chaosScenario } from './chaos-goal';
import type { Disruption } from './chaos-schedule';
import { connectTemporal } from '../../src/client/temporal-connection';

/** What a chaos run disturbs: its own dev server, worker process and loopback model. */
export interface ChaosEnvironment {
  /** A temp folder of the run's own (workspaces, journal, SQLite file); removed by close(). */
  readonly root: string;
  readonly client: Client;
  readonly taskQueue: string;
  readonly scripted: ScriptedMessagesServer;
  /** kill -9 the worker, then start a new one. */
  killWorker(): Promise<void>;
  /** Stop the dev server and start it again on the same port and SQLite file. */
  restartServer(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts everything a chaos run needs, all real and its own: a dev server on a SQLite file, a
 * worker process (the workflow code bundled once, so each restart takes about a second) and a
 * loopback model scripted to make `calls` irreversible appends for every goal.
 */
export async function startChaosEnvironment(options: {
  calls: number;
  log: (line: string) => void;
}): Promise<ChaosEnvironment> {
  const root = mkdtempSync(path.join(tmpdir(), 'keel-chaos-'));
  let server: DevServer | undefined;
  let worker: WorkerProcess | undefined;
  let connection: Connection | undefined;
  const scripted = await startScriptedMessagesServer({ scenarios: [chaosScenario(options.calls)] });
  const close = async () => {
    await connection?.close();
    await worker?.stop();
    await server?.stop();
    await scripted.close();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    options.log('chaos: bundling the workflow code once, so each worker restart takes about a second');
    const { code } = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      failureConverterPath: dataConverterFromEnv().failureConverterPath,
      payloadConverterPath: dataConverterFromEnv().payloadConverterPath,
      logger: quietLogger,
    });
    const bundlePath = path.join(root, 'workflow-bundle.js');
    writeFileSync(bundlePath, code);
    const port = await freePort();
    const startServer = () => startDevServer({ dbFile: path.join(root, 'temporal.db'), port });
    server = await startServer();
    const address = server.address;
    connection = await connectTemporal({ address });
    const client = new Client({ connection, dataConverter: dataConverterFromEnv() });
    const taskQueue = `keel-chaos-${process.pid}-${Date.now()}`;
    const startWorker = () =>
      startWorkerProcess({
        address,
        taskQueue,
        modelBaseUrl: scripted.url,
        journalDirectory: path.join(root, 'journal'),
        env: { KEEL_WORKFLOW_BUNDLE: bundlePath },
      });
    worker = await startWorker();
    return {
      root,
      client,
      taskQueue,
      scripted,
      async killWorker() {
        await worker?.kill9();
        worker = await startWorker();
      },
      async restartServer() {
        await server?.stop();
        server = await startServer();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Disrupts `environment` as `schedule` says until `ended()`; returns how many of each landed. */
export async function disrupt(
  environment: ChaosEnvironment,
  schedule: readonly Disruption[],
  ended: () => boolean,
  log: (line: string) => void,
): Promise<{ killsDone: number; restartsDone: number }> {
  let killsDone = 0;
  let restartsDone = 0;
  for (const disruption of schedule) {
    await sleepUnless(disruption.afterMs, ended);
    if (ended()) break;
    if (disruption.kind === 'kill-worker') {
      await environment.killWorker();
      killsDone += 1;
    } else {
      await environment.restartServer();
      restartsDone += 1;
    }
    log(`chaos: ${killsDone} kills, ${restartsDone} restarts`);
  }
  return { killsDone, restartsDone };
}

/** An execution's status once it leaves RUNNING; errors (a restarting server) are waited out. */
export async function waitForEnd(
  handle: { describe(): Promise<{ status: { name: string } }> },
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') return status.name;
    } catch {
      // the server is restarting
    }
    await sleep(500);
  }
  return 'TIMED_OUT_WAITING';
}

export async function retrying<T>(probe: () => Promise<T>, attempts = 30): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await probe();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await sleep(1000);
    }
  }
}

async function sleepUnless(ms: number, ended: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!ended() && Date.now() < until) await sleep(Math.min(200, until - Date.now()));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function readOptional(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
