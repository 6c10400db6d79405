import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { goalHandle, goalResult, goalStatus, startGoal } from '../../src/client/goal-client';
import { listKeelWorkers, workerLiveness } from '../../src/client/worker-heartbeats';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import { hostTaskQueue } from '../../src/workflows/hosts/host-queues';
import {
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  workflowBundle,
} from '../support/temporal';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';
import { connectTemporal } from '../../src/client/temporal-connection';

/**
 * Worker processes act as machines (each its own WORKER_INSTANCE_ID); a machine's disk is a
 * workspace root of its own, a disk two machines share is one root both name. Heartbeats every
 * second, so a killed worker counts as gone after about three.
 */

const HEARTBEAT_MS = 1000;
let address: string;
let client: Client;
let scripted: ScriptedMessagesServer;
let bundlePath: string;
let base: string;
const taskQueue = `keel-host-claim-${process.pid}-${Date.now()}`;
const running = new Set<WorkerProcess>();

before(async () => {
  address = await temporalAddress();
  client = new Client({
    connection: await connectTemporal({ address }),
    dataConverter: dataConverterFromEnv(),
  });
  base = tempDirectory('keel-host-claim-');
  bundlePath = path.join(base, 'workflow-bundle.js');
  writeFileSync(bundlePath, (await workflowBundle()).code);
  scripted = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'claim',
        match: 'CLAIM-GOAL',
        turns: [
          { toolCalls: [{ name: 'write_file', input: { path: 'out.txt', content: 'written' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'out.txt' } }] },
          { text: 'claim done' },
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

async function machine(
  hostId: string,
  root: string,
  extra: Record<string, string> = {},
): Promise<WorkerProcess> {
  const worker = await startWorkerProcess({
    address,
    taskQueue,
    modelBaseUrl: scripted.url,
    env: {
      KEEL_HOST_ID: hostId,
      KEEL_WORKSPACE_ROOTS: root,
      KEEL_HEARTBEAT_MS: String(HEARTBEAT_MS),
      KEEL_WORKFLOW_BUNDLE: bundlePath,
      ...extra,
    },
  });
  running.add(worker);
  return worker;
}

/** The instance id a worker's start log names. */
function instanceOf(worker: WorkerProcess): string {
  const found = /claimed by instance (\S+) /.exec(worker.output());
  assert.ok(found?.[1], worker.output());
  return found[1];
}

/** The start of a worker that must be refused: its one line, and that it exited non-zero. */
async function refusedStart(start: Promise<WorkerProcess>): Promise<string> {
  const error = await start.then(
    (worker) => assert.fail(`the worker started:\n${worker.output()}`),
    (failure: unknown) => failure as Error,
  );
  assert.match(error.message, /worker exited with 1 during start-up/);
  const lines = error.message.split('\n').filter((line) => line.startsWith('keel worker: '));
  return lines[lines.length - 1] ?? error.message;
}

/** The live instances of a host, as Temporal's worker heartbeats say. */
async function liveInstances(hostId: string): Promise<string[]> {
  const beats = await listKeelWorkers({
    connection: client.connection,
    namespace: 'default',
    taskQueue: hostTaskQueue(taskQueue, hostId),
  });
  const live = beats.filter((beat) => workerLiveness(beat, Date.now(), HEARTBEAT_MS) === 'live');
  return [...new Set(live.map((beat) => beat.instanceId ?? '?'))].sort();
}

async function runGoal(workspace: string) {
  const workflowId = `host-claim-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
  await startGoal(client, { input: { goal: 'CLAIM-GOAL', workspace }, taskQueue, workflowId });
  const result = await goalResult(goalHandle(client, workflowId));
  assert.equal(result.status, 'completed', result.reason);
  return {
    view: await goalStatus(goalHandle(client, workflowId)),
    ledger: await goalHandle(client, workflowId).query(ledgerQuery),
  };
}

test(
  'one host id, two disks: the second machine is refused in one line; a replica of the same disk joins; a dead holder frees the id',
  { timeout: 90_000 },
  async () => {
    const diskA = disk('a');
    const diskB = disk('b');
    const first = await machine('h1', diskA);
    const firstInstance = instanceOf(first);
    // The first worker of the host marks its disk, and announces the disk it marked.
    const marker = JSON.parse(readFileSync(path.join(diskA, '.keel-host.json'), 'utf8')) as unknown;
    assert.deepEqual(marker, { hostId: 'h1', diskId: /\(disk (\S+)\)/.exec(first.output())?.[1] });
    await eventually(async () => ((await liveInstances('h1')).includes(firstInstance) ? true : undefined));

    const refusal = await refusedStart(machine('h1', diskB));
    assert.match(
      refusal,
      new RegExp(
        // Both processes run on this machine: the holder's pid answers here, so no wait (issue 41).
        `^keel worker: host id h1 is held by a live worker on this machine, \\S+ \\(pid ${first.pid}, instance ${firstInstance}, last beat \\d+ s ago\\): give this worker its own id \\(--host-id / KEEL_HOST_ID\\), or start it with --replica \\(KEEL_HOST_REPLICA=1\\) and the same --workspace-root`,
      ),
    );

    // The first keeps serving: a goal on its disk completes there, its calls naming the instance.
    const served = await runGoal(disk('a/ws-1'));
    assert.deepEqual(served.view.counters.toolCallsByInstance, { [firstInstance]: 2 });
    const instanceEvents = served.ledger.filter((event) => event.kind === 'tool.instance');
    assert.deepEqual(
      instanceEvents.map((event) => [event.data.host, event.data.instance]),
      [['h1', firstInstance]],
    );

    // A replica must see the same disk: on its own disk it is refused, on the shared one it joins.
    const [elsewhere, replica] = await Promise.all([
      refusedStart(machine('h1', diskB, { KEEL_HOST_REPLICA: '1' })),
      machine('h1', diskA, { KEEL_HOST_REPLICA: '1' }),
    ]);
    assert.match(
      elsewhere,
      /^keel worker: --replica: host id h1 is held by .* serving disk \S+, but this machine's workspace root .*\/b holds no marked disk/,
    );
    const replicaInstance = instanceOf(replica);
    assert.match(replica.output(), new RegExp(`replica beside instance ${firstInstance} on the same disk`));
    await eventually(async () => ((await liveInstances('h1')).length === 2 ? true : undefined));
    const shared = await runGoal(disk('a/ws-2'));
    const byInstance = shared.view.counters.toolCallsByInstance;
    for (const instance of Object.keys(byInstance))
      assert.ok([firstInstance, replicaInstance].includes(instance), instance);
    // Whichever replica ran each call, the ledger names every instance that did, once per change.
    const changes = shared.ledger
      .filter((event) => event.kind === 'tool.instance')
      .map((event) => String(event.data.instance));
    assert.deepEqual([...new Set(changes)].sort(), Object.keys(byInstance).sort());
    changes.forEach((instance, index) => assert.notEqual(instance, changes[index - 1]));
    assert.ok(changes.length <= 2, changes.join(' '));

    // The holder dies (kill -9: still listed as running, its beat ages) and the replica stops:
    // once the beat is old, a machine with another disk may take the id.
    await first.kill9();
    await replica.stop();
    await eventually(async () => ((await liveInstances('h1')).length === 0 ? true : undefined), 15_000);
    const successor = await machine('h1', diskB);
    assert.notEqual(instanceOf(successor), firstInstance);
    await successor.stop();
  },
);

test('a workspace root that does not exist is refused at start in one line', async () => {
  const missing = path.join(base, 'no-such-disk');
  const refusal = await refusedStart(machine('h-missing', missing));
  assert.equal(
    refusal,
    `keel worker: KEEL_WORKSPACE_ROOTS (colon-separated): workspace root "${missing}" does not exist`,
  );
});

test('two machines that start with one id at the same moment: exactly one keeps it, the other stops with the line', async (context) => {
  const starts = await Promise.allSettled([machine('h-race', disk('c')), machine('h-race', disk('d'))]);
  const started = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
  const refusedAtStart = starts.flatMap((start) =>
    start.status === 'rejected' ? [String((start.reason as Error).message)] : [],
  );
  // Both saw nobody (the usual case), or one was a little later and was refused at start.
  let loserOutput: string;
  let survivor: WorkerProcess | undefined;
  context.diagnostic(
    started.length === 2 ? 'both started: the check after start decided' : 'one refused at start',
  );
  if (started.length === 2) {
    const ended = await Promise.race([
      ...started.map((worker) => worker.exited().then((code) => ({ worker, code }))),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20_000)),
    ]);
    assert.ok(ended, 'neither stopped within 20 s although both hold h-race');
    assert.equal(ended.code, 1);
    loserOutput = ended.worker.output();
    survivor = started.find((worker) => worker !== ended.worker);
  } else {
    assert.equal(refusedAtStart.length, 1, refusedAtStart.join('\n'));
    loserOutput = refusedAtStart[0] ?? '';
    survivor = started[0];
  }
  assert.match(loserOutput, /keel worker: host id h-race is held by a live worker on .*instance/);
  assert.ok(survivor);
  // The survivor stays: still live after another interval and more.
  await new Promise((resolve) => setTimeout(resolve, 2 * HEARTBEAT_MS + 2000));
  assert.deepEqual(await liveInstances('h-race'), [instanceOf(survivor)]);
});
