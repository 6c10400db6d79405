import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import { WORKFLOWS_PATH } from '../../src/worker';
import { workflowBundlerOptions } from '../../src/worker/bundle-options';
import { startLoopbackModel, type LoopbackModel } from './loopback-model';
import { quietLogger } from '../../test/support/quiet-logger';
import { connectTemporal } from '../../src/client/temporal-connection';

/** What every part of the benchmark shares: one dev server, one loopback model, one client. */
export interface BenchEnvironment {
  readonly server: DevServer;
  readonly model: LoopbackModel;
  readonly client: Client;
  readonly keelBundle: WorkflowBundleWithSourceMap;
  /** A fresh directory under this run's scratch folder. */
  directory(prefix: string): string;
  close(): Promise<void>;
}

let runtimeInstalled = false;

export async function startBenchEnvironment(options: { address?: string } = {}): Promise<BenchEnvironment> {
  if (!runtimeInstalled) {
    // Workers log every state change at INFO; the benchmark only wants to hear about problems.
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  const scratch = mkdtempSync(path.join(tmpdir(), 'keel-bench-'));
  // The workers' registry of claimed workspaces (hosts without roots) goes with the scratch folder.
  const stateDirectoryBefore = process.env.KEEL_STATE_DIRECTORY;
  process.env.KEEL_STATE_DIRECTORY = path.join(scratch, 'state');
  const server = options.address
    ? { address: options.address, uiUrl: undefined, pid: -1, stop: () => Promise.resolve() }
    : await startDevServer({ ephemeral: true });
  const model = await startLoopbackModel();
  const connection = await connectTemporal({
    address: server.address,
    // A run past 4 MiB is a normal finding here, not an error fetching it.
    channelArgs: { 'grpc.max_receive_message_length': 512 * 1024 * 1024 },
  });
  const client = new Client({ connection, dataConverter: dataConverterFromEnv() });
  const keelBundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    ...workflowBundlerOptions, // as a compiled worker runs it: ES2022, not the SDK's es2017
    failureConverterPath: dataConverterFromEnv().failureConverterPath,
    payloadConverterPath: dataConverterFromEnv().payloadConverterPath,
    logger: quietLogger,
  });
  let counter = 0;
  return {
    server,
    model,
    client,
    keelBundle,
    directory: (prefix) => {
      counter += 1;
      const directory = path.join(scratch, `${prefix}-${counter}`);
      mkdirSync(directory, { recursive: true });
      return directory;
    },
    async close() {
      await connection.close();
      await model.close();
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
      if (stateDirectoryBefore === undefined) delete process.env.KEEL_STATE_DIRECTORY;
      else process.env.KEEL_STATE_DIRECTORY = stateDirectoryBefore;
    },
  };
}

export { quietLogger };
