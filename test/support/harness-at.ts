import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { startScriptedMessagesServer } from '../../src/scripted-model/scripted-messages-server';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { createKeelWorker } from '../../src/worker';
import { tempDirectory, workflowBundle, type Harness } from './temporal';

let queueCounter = 0;

/**
 * createHarness for a server of the test's own choosing (e.g. one started with the Web UI), where
 * createHarness always uses the shared, headless one.
 */
export async function createHarnessAt(options: {
  address: string;
  scenarios: ScenarioInput[];
}): Promise<Harness> {
  const { address } = options;
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const scripted = await startScriptedMessagesServer({ scenarios: options.scenarios });
  const taskQueue = `keel-test-at-${process.pid}-${++queueCounter}-${Date.now()}`;
  const journalDirectory = tempDirectory('keel-journal-');
  return {
    client,
    scripted,
    taskQueue,
    journalDirectory,
    async withWorker(fn) {
      const workerConnection = await NativeConnection.connect({ address });
      const worker = await createKeelWorker({
        connection: workerConnection,
        namespace: 'default',
        taskQueue,
        anthropic: new Anthropic({
          apiKey: 'test-key-never-in-history',
          baseURL: scripted.url,
          maxRetries: 0,
        }),
        journalDirectory,
        workflowBundle: await workflowBundle(),
      });
      try {
        return await worker.runUntil(fn);
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
