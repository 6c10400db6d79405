import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { goalHandle, goalResult, startGoal } from '../../src/client/goal-client';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import { hostTaskQueue, parseWorkerIdentity } from '../../src/workflows/hosts/host-queues';
import { stopOwnServer, temporalAddress, tempDirectory, workflowBundle } from '../support/temporal';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';
import { connectTemporal } from '../../src/client/temporal-connection';

/**
 * Scaling out (issue 41): a second `keel worker` of a host id already served on this machine is
 * told what to do at once and never polls; workers that may share a queue (a replica, another host
 * id) take goals from each other and none fails. Worker processes are real OS processes, started
 * as `keel worker` starts them; heartbeats every 10 s as by default, so the first worker's beat
 * cannot be what tells the second one.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');
const HEARTBEAT_MS = '10000';
let address: string;
let client: Client;
let scripted: ScriptedMessagesServer;
let bundlePath: string;
let base: string;
const taskQueue = `keel-second-worker-${process.pid}-${Date.now()}`;
const running = new Set<WorkerProcess>();

before(async () => {
  address = await temporalAddress();
  client = new Client({
    connection: await connectTemporal({ address }),
    dataConverter: dataConverterFromEnv(),
  });
  base = tempDirectory('keel-second-worker-');
  bundlePath = path.join(base, 'workflow-bundle.js');
  writeFileSync(bundlePath, (await workflowBundle()).code);
  scripted = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'short',
        match: 'SHORT-GOAL',
        turns: [
          { toolCalls: [{ name: 'write_file', input: { path: 'out.txt', content: 'written' } }] },
          { text: 'short done' },
        ],
      },
    ],
  });
});

after(async () => {
  await Promise.all([...running].map((worker) => worker.stop()));
  await scripted.close();
  await client.connection.close();
  await stopOwnServer();
});

function disk(name: string): string {
  const directory = path.join(base, name);
  mkdirSync(directory, { recursive: true });
  return directory;
}

async function worker(hostId: string, root: string, extra: Record<string, string> = {}) {
  const started = await startWorkerProcess({
    address,
    taskQueue,
    modelBaseUrl: scripted.url,
    env: {
      KEEL_HOST_ID: hostId,
      KEEL_WORKSPACE_ROOTS: root,
      KEEL_HEARTBEAT_MS: HEARTBEAT_MS,
      KEEL_WORKFLOW_BUNDLE: bundlePath,
      ...extra,
    },
  });
  running.add(started);
  return started;
}

/** `keel worker --host-id … --workspace-root …` as a user types it, until it exits (or 60 s). */
function keelWorker(
  args: string[],
): Promise<{ code: number | null; output: string; pid: number; ms: number }> {
  const startedAt = Date.now();
  const child = spawn(process.execPath, [KEEL, 'worker', ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: address,
      KEEL_TASK_QUEUE: taskQueue,
      ANTHROPIC_BASE_URL: scripted.url,
      ANTHROPIC_API_KEY: 'test-key-of-a-second-worker',
      KEEL_HEARTBEAT_MS: HEARTBEAT_MS,
      KEEL_WORKFLOW_BUNDLE: bundlePath,
      KEEL_REFLECTION_DIR: tempDirectory('keel-reflections-'),
      KEEL_MODEL_REQUESTS: tempDirectory('keel-model-requests-'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, pid: child.pid ?? -1, ms: Date.now() - startedAt });
    }),
  );
}

const { TaskQueueType, TaskQueueKind } = temporal.api.enums.v1;

/** The pids of the keel workers the server has seen polling the shared queue or the host's. */
async function pollingPids(hostId: string): Promise<number[]> {
  const pids = new Set<number>();
  for (const name of [taskQueue, hostTaskQueue(taskQueue, hostId)])
    for (const taskQueueType of [
      TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    ]) {
      const response = await client.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType,
      });
      for (const poller of response.pollers ?? []) {
        const pid = parseWorkerIdentity(poller.identity ?? '')?.pid;
        if (pid !== undefined) pids.add(pid);
      }
    }
  return [...pids].sort();
}

test(
  'a second keel worker of a host id this machine already serves says what to do at once, exits 1, and never polls',
  { timeout: 120_000 },
  async () => {
    const root = disk('h-one');
    const first = await worker('h-one', root);
    // At once, while the first worker's first beat may still be on its way.
    const second = await keelWorker(['--host-id', 'h-one', '--workspace-root', root]);
    assert.equal(second.code, 1, second.output);
    const lines = second.output.trim().split('\n');
    assert.match(
      lines[lines.length - 1] ?? '',
      new RegExp(
        `^keel: host id h-one is held by a live worker on this machine, \\S+ \\(pid ${first.pid}, instance \\S+, (last beat \\d+ s ago|polling since \\d+ s ago, no beat yet)\\): give this worker its own id \\(--host-id / KEEL_HOST_ID\\), or start it with --replica \\(KEEL_HOST_REPLICA=1\\) and the same --workspace-root as that worker to share its host$`,
      ),
      second.output,
    );
    assert.doesNotMatch(second.output, /polling task queue|waiting \d+ s/, 'it neither polled nor waited');
    // The start itself (tsx, connecting) takes seconds on a busy machine; waiting for the first
    // worker's beat to age would add 12 more, and polling first would add as many again.
    assert.ok(second.ms < 20_000, `exited after ${second.ms} ms`);
    const pids = await pollingPids('h-one');
    assert.ok(pids.includes(first.pid), `the first worker polls: ${pids.join(' ')}`);
    assert.ok(!pids.includes(second.pid), `the second worker polled: ${pids.join(' ')}`);
    await first.stop();
    running.delete(first);
  },
);

test(
  'two workers on one queue share six goals: a replica of the same disk and a worker of another host id; none fails',
  { timeout: 180_000 },
  async () => {
    const root = disk('h-shared');
    const other = disk('h-other');
    const first = await worker('h-shared', root);
    const replica = await worker('h-shared', root, { KEEL_HOST_REPLICA: '1' });
    assert.match(replica.output(), /replica beside instance \S+ on the same disk/);
    const third = await worker('h-other', other);
    const workers = [first, replica, third];
    // Four goals on the shared disk, two on the other host's: six goals, three processes.
    const workspaces = [1, 2, 3, 4].map((n) => disk(`h-shared/ws-${n}`));
    workspaces.push(disk('h-other/ws-5'), disk('h-other/ws-6'));
    const ids = workspaces.map((_, n) => `second-worker-${Date.now()}-${n}`);
    await Promise.all(
      workspaces.map((workspace, n) =>
        startGoal(client, { input: { goal: 'SHORT-GOAL', workspace }, taskQueue, workflowId: ids[n] ?? '' }),
      ),
    );
    const results = await Promise.all(ids.map((id) => goalResult(goalHandle(client, id))));
    assert.deepEqual(
      results.map((result) => result.status),
      ids.map(() => 'completed'),
      results.map((result) => result.reason ?? '').join('\n'),
    );
    // Who ran what, by the identity the server recorded on every task it handed out.
    const tasksByPid = new Map<number, number>();
    for (const id of ids) {
      const history = await goalHandle(client, id).fetchHistory();
      for (const event of history.events ?? []) {
        const identity =
          event.workflowTaskStartedEventAttributes?.identity ??
          event.activityTaskStartedEventAttributes?.identity;
        const pid = parseWorkerIdentity(identity ?? '')?.pid;
        if (pid !== undefined) tasksByPid.set(pid, (tasksByPid.get(pid) ?? 0) + 1);
      }
    }
    for (const started of workers)
      assert.ok(
        (tasksByPid.get(started.pid) ?? 0) > 0,
        `pid ${started.pid} ran no task: ${[...tasksByPid].join(' ')}`,
      );
    for (const started of workers) {
      await started.stop();
      running.delete(started);
    }
  },
);
