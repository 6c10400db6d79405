import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { createHostActivities } from '../../src/activities/hosts';
import { createMemoryReflectionStore } from '../../src/activities/reflection-store/memory-reflection-store';
import { hostsServing } from '../../src/client/hosts';
import { startGoal } from '../../src/client/goal-client';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { startScriptedMessagesServer } from '../../src/scripted-model/scripted-messages-server';
import { createKeelWorker, keelHostOf } from '../../src/worker';
import { WORKER_INSTANCE_ID } from '../../src/worker/runtime';
import { hostTaskQueue, workerIdentity } from '../../src/workflows/hosts/host-queues';
import {
  eventually,
  stopOwnServer,
  tempDirectory,
  temporalAddress,
  workflowBundle,
} from '../support/temporal';
import { connectTemporal } from '../../src/client/temporal-connection';

after(stopOwnServer);

const KEEL = path.resolve(__dirname, '../../bin/keel.js');

function keel(args: string[], address: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TEMPORAL_ADDRESS: address };
  return new Promise((resolve) => {
    execFile(process.execPath, [KEEL, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

test(
  'a keel worker polls the shared queue and its host queue as its host, runs goals, and stops both',
  { timeout: 180_000 },
  async () => {
    const address = await temporalAddress();
    const scripted = await startScriptedMessagesServer({
      scenarios: [{ name: 'done', turns: [{ text: 'Nothing to do.' }] }],
    });
    const connection = await NativeConnection.connect({ address });
    const clientConnection = await connectTemporal({ address });
    const client = new Client({ connection: clientConnection, dataConverter: dataConverterFromEnv() });
    const taskQueue = `keel-hosts-${process.pid}-${Date.now()}`;
    const queue = hostTaskQueue(taskQueue, 'h-test');
    try {
      const worker = await createKeelWorker({
        connection,
        namespace: 'default',
        taskQueue,
        anthropic: new Anthropic({ apiKey: 'test-key', baseURL: scripted.url, maxRetries: 0 }),
        hostId: 'h-test',
        maxConcurrentActivities: 3,
        journalDirectory: tempDirectory('keel-journal-'),
        backupDirectory: tempDirectory('keel-backups-'),
        modelRequestStore: false,
        reflectionStore: createMemoryReflectionStore(),
        ledgerSinks: [],
        workflowBundle: await workflowBundle(),
        mcpServers: false,
        tracing: false,
      });
      const host = keelHostOf(worker);
      assert.equal(host?.hostId, 'h-test');
      assert.equal(host?.hostTaskQueue, queue);
      assert.deepEqual(host?.workspaceRoots, []);

      const listing = { connection, namespace: 'default', taskQueue };
      const hostActivities = createHostActivities({ hostId: 'elsewhere', workspaceRoots: [], listing });
      await worker.runUntil(async () => {
        // The listHosts activity, called directly: the live hosts, by their worker heartbeats.
        assert.deepEqual(
          await eventually(async () => {
            const { hosts } = await hostActivities.listHosts({});
            return hosts.length > 0 ? hosts : undefined;
          }),
          ['h-test'],
        );
        // Its own queue is polled for activities, by a poller that names the host.
        const identity = workerIdentity({
          hostId: 'h-test',
          pid: process.pid,
          machine: os.hostname(),
          instanceId: WORKER_INSTANCE_ID,
          heartbeatIntervalMs: Runtime.instance().options.runtimeOptions.workerHeartbeatIntervalMillis ?? 0,
        });
        const hostPollers = await eventually(async () => {
          const response = await connection.workflowService.describeTaskQueue({
            namespace: 'default',
            taskQueue: { name: queue, kind: 1 },
            taskQueueType: 2, // activity
          });
          return response.pollers.length > 0 ? response.pollers : undefined;
        });
        assert.deepEqual(
          hostPollers.map((poller) => poller.identity),
          [identity],
        );
        // Its worker heartbeats say it is live; before its first beat (this process's runtime beats
        // every minute) keel hosts lists the pollers instead, saying why. Either way, one h-test.
        const listed = await eventually(async () => {
          const listing = await hostsServing({
            connection: clientConnection,
            namespace: 'default',
            taskQueue,
          });
          return listing.hosts.length > 0 ? listing : undefined;
        });
        assert.deepEqual(
          listed.hosts.map((served) => [served.hostId, served.hostTaskQueue]),
          [['h-test', queue]],
        );
        if (listed.source === 'heartbeats')
          assert.equal(listed.hosts[0]?.instances[0]?.instanceId, WORKER_INSTANCE_ID);

        // `keel hosts` lists it the same way, and says when no host serves a queue.
        const printed = await keel(['hosts', '--task-queue', taskQueue], address);
        assert.equal(printed.code, 0, printed.stderr);
        assert.match(
          printed.stdout,
          new RegExp(
            `^h-test  (live     last beat \\d+s ago  0 running goals  queue "${queue}"\n  instance ${WORKER_INSTANCE_ID}  ${process.pid}@.*|queue "${queue}")\n$`,
          ),
        );
        const json = await keel(['hosts', '--json', '--task-queue', taskQueue], address);
        assert.deepEqual(
          (JSON.parse(json.stdout) as Array<{ hostId: string }>).map((entry) => entry.hostId),
          ['h-test'],
        );
        assert.deepEqual(await keel(['hosts', '--task-queue', `${taskQueue}-nobody`], address), {
          code: 3,
          stdout: '',
          stderr: `keel: no worker polls task queue ${taskQueue}-nobody: start one (keel worker), or name its queue with --task-queue\n`,
        });

        // Goals still run on the shared queue.
        const workspace = tempDirectory('keel-ws-');
        writeFileSync(path.join(workspace, 'a.txt'), 'a');
        const handle = await startGoal(client, { taskQueue, input: { goal: 'nothing', workspace } });
        const result = await handle.result();
        assert.equal(result.status, 'completed');
      });
      assert.equal(host?.hostWorker.getState(), 'STOPPED', 'the host worker stops with the keel worker');
      assert.equal(worker.getState(), 'STOPPED');
    } finally {
      await connection.close(); // throws when a worker still holds it
      await clientConnection.close();
      await scripted.close();
    }
  },
);

test('listHosts on a worker made without a connection fails without retrying', async () => {
  const activities = createHostActivities({ hostId: 'h', workspaceRoots: [] });
  await assert.rejects(activities.listHosts({}), /no Temporal connection/);
});
