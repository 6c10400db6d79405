import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { goalHandle } from '../../src/client/goal-client';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { hostIdOfIdentity } from '../../src/workflows/hosts/host-queues';
import { temporalAddress, tempDirectory, workflowBundle } from './temporal';
import { startWorkerProcess, type WorkerProcess } from './worker-process';
import { connectTemporal } from '../../src/client/temporal-connection';

/**
 * Three worker processes with different host ids and separate workspace roots act as three
 * machines: each host serves only the workspaces under its roots (KEEL_WORKSPACE_ROOTS), as a
 * machine serves only its own disk. Everything is real: one dev server, worker processes, the
 * loopback Messages endpoint. Shared by test/integration/multi-host*.test.ts: each file starts
 * its own cluster.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');
export const HOSTS = ['h-a', 'h-b', 'h-c'] as const;
export type HostId = (typeof HOSTS)[number];

const write = (file: string, content: string) => ({ name: 'write_file', input: { path: file, content } });

const multiHostScenarios: ScenarioInput[] = [
  {
    name: 'spread',
    match: 'SPREAD-GOAL',
    turns: [
      { toolCalls: [write('out.txt', 'spread')] },
      { toolCalls: [{ name: 'read_file', input: { path: 'out.txt' } }] },
      { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
      { text: 'spread done' },
    ],
  },
  {
    name: 'away',
    match: 'AWAY-GOAL',
    turns: [
      { toolCalls: [write('first.txt', 'one')] },
      // Time for the test to stop this goal's host between the two calls.
      { delayMs: 3000, toolCalls: [write('second.txt', 'two')] },
      { text: 'away done' },
    ],
  },
  {
    name: 'lost-writes',
    match: 'LOST-WRITES-GOAL',
    turns: [
      { toolCalls: [write('first.txt', 'one')] },
      // Time for the test to stop this goal's host between the two calls.
      { delayMs: 3000, toolCalls: [write('second.txt', 'two')] },
      { text: 'lost writes done' },
    ],
  },
  {
    name: 'carry',
    match: 'CARRY-GOAL',
    turns: [
      { toolCalls: [write('first.txt', 'one')] },
      // Waits for approval (approvalPolicy ask): the test moves the goal meanwhile.
      { toolCalls: [write('second.txt', 'two')] },
      { text: 'carry done' },
    ],
    // A fork told to hold changes nothing: its files stay as they were restored.
    branches: [{ when: 'TRY-HOLD', fromTurn: 1, turns: [{ text: 'holding' }, { text: 'holding' }] }],
  },
  {
    name: 'approved-move',
    match: 'APPROVED-MOVE-GOAL',
    turns: [
      // Irreversible (the goal allows the network): it waits for a human, and the test
      // kills the goal's host meanwhile.
      { toolCalls: [{ name: 'run_command', input: { command: 'echo once >> effects.txt' } }] },
      { text: 'approved move done' },
    ],
  },
  {
    name: 'moving',
    match: 'MOVING-GOAL',
    turns: [
      { toolCalls: [{ name: 'read_file', input: { path: 'README.md' } }] },
      // Waits for approval (--approval-policy ask): the test stops the host meanwhile.
      { toolCalls: [write('moved.txt', 'after the move')] },
      { text: 'moving done' },
    ],
  },
];

export function goalInput(goal: string, workspace: string, extra: Partial<GoalInput> = {}): GoalInput {
  return {
    goal,
    workspace,
    // A host that takes no call within 2 s counts as away; a killed worker is noticed in 2 s.
    timing: { hostTimeoutMs: 2000, heartbeatTimeoutMs: 2000 },
    ...extra,
  };
}

export interface MultiHostCluster {
  readonly address: string;
  readonly client: Client;
  readonly scripted: ScriptedMessagesServer;
  readonly root: string;
  readonly taskQueue: string;
  /** The running hosts' workers: a test that kills one deletes it here. */
  readonly workers: Map<HostId, WorkerProcess>;
  startHost(hostId: HostId): Promise<void>;
  workspaceOn(hostId: HostId, name: string): string;
  /** The host of every worker that started one of the goal's tool calls (the probes at binding ask every host). */
  hostsThatRanActivities(workflowId: string): Promise<{ hosts: Set<string>; queues: Set<string> }>;
  /** The CLI, against this cluster's server and task queue. */
  keel(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

/** Starts the scripted model and the three hosts' workers, each with its workspace roots. */
export async function startMultiHostCluster(): Promise<MultiHostCluster> {
  const address = await temporalAddress();
  const client = new Client({
    connection: await connectTemporal({ address }),
    dataConverter: dataConverterFromEnv(),
  });
  const root = tempDirectory('keel-multi-host-');
  const taskQueue = `keel-multi-host-${process.pid}-${Date.now()}`;
  const workers = new Map<HostId, WorkerProcess>();
  // A path under "moving" may be on h-a or h-c (both may hold it), as when disks are alike.
  const roots: Record<HostId, string[]> = {
    'h-a': [path.join(root, 'a'), path.join(root, 'moving')],
    'h-b': [path.join(root, 'b')],
    'h-c': [path.join(root, 'c'), path.join(root, 'moving')],
  };
  for (const directories of Object.values(roots))
    for (const directory of directories) mkdirSync(directory, { recursive: true });
  const bundlePath = path.join(root, 'workflow-bundle.js');
  writeFileSync(bundlePath, (await workflowBundle()).code);
  const scripted = await startScriptedMessagesServer({ scenarios: multiHostScenarios });

  async function startHost(hostId: HostId): Promise<void> {
    workers.set(
      hostId,
      await startWorkerProcess({
        address,
        taskQueue,
        modelBaseUrl: scripted.url,
        env: {
          KEEL_HOST_ID: hostId,
          KEEL_WORKSPACE_ROOTS: roots[hostId].join(':'),
          KEEL_WORKFLOW_BUNDLE: bundlePath,
        },
      }),
    );
  }

  function workspaceOn(hostId: HostId, name: string): string {
    const directory = path.join(root, hostId.slice(2), name);
    mkdirSync(directory, { recursive: true });
    return directory;
  }

  async function hostsThatRanActivities(
    workflowId: string,
  ): Promise<{ hosts: Set<string>; queues: Set<string> }> {
    const history = await goalHandle(client, workflowId).fetchHistory();
    const scheduled = new Map<string, string>();
    const hosts = new Set<string>();
    const queues = new Set<string>();
    for (const event of history.events ?? []) {
      const attributes = event.activityTaskScheduledEventAttributes;
      if (attributes?.activityType?.name === 'executeTool')
        scheduled.set(String(event.eventId), attributes.taskQueue?.name ?? '');
      const started = event.activityTaskStartedEventAttributes;
      if (started) {
        const queue = scheduled.get(String(started.scheduledEventId));
        if (queue === undefined) continue;
        queues.add(queue);
        hosts.add(hostIdOfIdentity(started.identity ?? '') ?? `not a keel host: ${started.identity ?? ''}`);
      }
    }
    return { hosts, queues };
  }

  function keel(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [KEEL, ...args, '--address', address, '--task-queue', taskQueue],
        { env: process.env, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  }

  async function close(): Promise<void> {
    await Promise.all([...workers.values()].map((worker) => worker.stop()));
    await scripted.close();
    await client.connection.close();
  }

  await Promise.all(HOSTS.map((hostId) => startHost(hostId)));
  return {
    address,
    client,
    scripted,
    root,
    taskQueue,
    workers,
    startHost,
    workspaceOn,
    hostsThatRanActivities,
    keel,
    close,
  };
}
