import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection, WorkflowFailedError, ApplicationFailure } from '@temporalio/client';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { decideApproval, goalHandle, goalResult, goalStatus, startGoal } from '../../src/client/goal-client';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import { ledgerQuery, rebindHostUpdate } from '../../src/workflows/goal/messages';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { hostIdOfIdentity, hostTaskQueue } from '../../src/workflows/hosts/host-queues';
import {
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  workflowBundle,
} from '../support/temporal';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

/**
 * Three worker processes with different host ids and separate workspace roots act as three
 * machines: each host serves only the workspaces under its roots (KEEL_WORKSPACE_ROOTS), as a
 * machine serves only its own disk. Everything is real: one dev server, worker processes, the
 * loopback Messages endpoint.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');
const HOSTS = ['h-a', 'h-b', 'h-c'] as const;
type HostId = (typeof HOSTS)[number];

let address: string;
let client: Client;
let scripted: ScriptedMessagesServer;
let root: string;
let bundlePath: string;
const taskQueue = `keel-multi-host-${process.pid}-${Date.now()}`;
const workers = new Map<HostId, WorkerProcess>();
const roots: Record<HostId, string[]> = { 'h-a': [], 'h-b': [], 'h-c': [] };

const write = (file: string, content: string) => ({ name: 'write_file', input: { path: file, content } });

before(async () => {
  address = await temporalAddress();
  client = new Client({
    connection: await Connection.connect({ address }),
    dataConverter: dataConverterFromEnv(),
  });
  root = tempDirectory('keel-multi-host-');
  // A path under "moving" may be on h-a or h-c (both may hold it), as when disks are alike.
  roots['h-a'] = [path.join(root, 'a'), path.join(root, 'moving')];
  roots['h-b'] = [path.join(root, 'b')];
  roots['h-c'] = [path.join(root, 'c'), path.join(root, 'moving')];
  for (const directories of Object.values(roots))
    for (const directory of directories) mkdirSync(directory, { recursive: true });
  bundlePath = path.join(root, 'workflow-bundle.js');
  writeFileSync(bundlePath, (await workflowBundle()).code);
  scripted = await startScriptedMessagesServer({
    scenarios: [
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
    ],
  });
  await Promise.all(HOSTS.map((hostId) => startHost(hostId)));
});

/** A test that stops h-a brings it back, also when it fails, so the next tests find it. */
afterEach(async () => {
  if (!workers.has('h-a')) await startHost('h-a');
});

after(async () => {
  await Promise.all([...workers.values()].map((worker) => worker.stop()));
  await scripted.close();
  await client.connection.close();
  await stopOwnServer();
});

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

function goalInput(goal: string, workspace: string, extra: Partial<GoalInput> = {}): GoalInput {
  return {
    goal,
    workspace,
    // A host that takes no call within 2 s counts as away; a killed worker is noticed in 2 s.
    timing: { hostTimeoutMs: 2000, heartbeatTimeoutMs: 2000 },
    ...extra,
  };
}

function workspaceOn(hostId: HostId, name: string): string {
  const directory = path.join(root, hostId.slice(2), name);
  mkdirSync(directory, { recursive: true });
  return directory;
}

/** The host of every worker that started one of the goal's tool calls (the probes at binding ask every host). */
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

test(
  '30 goals spread over three hosts all complete, every tool call on the host that holds its workspace',
  { timeout: 240_000 },
  async () => {
    const goals = Array.from({ length: 30 }, (_, index) => {
      const hostId = HOSTS[index % 3] as HostId;
      return {
        hostId,
        workspace: workspaceOn(hostId, `goal-${index}`),
        workflowId: `mh-spread-${Date.now()}-${index}`,
      };
    });
    await Promise.all(
      goals.map((goal) =>
        startGoal(client, {
          input: goalInput('SPREAD-GOAL', goal.workspace),
          taskQueue,
          workflowId: goal.workflowId,
        }),
      ),
    );
    for (const goal of goals) {
      const result = await goalResult(goalHandle(client, goal.workflowId));
      assert.equal(result.status, 'completed', `${goal.workflowId}: ${result.reason}`);
      const view = await goalStatus(goalHandle(client, goal.workflowId));
      assert.equal(view.host?.id, goal.hostId, `${goal.workflowId} bound to the host of its workspace`);
      assert.equal(view.host?.via, 'probe');
      assert.equal(view.counters.toolCalls, 3);
      assert.deepEqual(
        view.counters.toolCallsByHost,
        { [goal.hostId]: 3 },
        `${goal.workflowId}: every result names its host`,
      );
      assert.equal(readFileSync(path.join(goal.workspace, 'out.txt'), 'utf8'), 'spread');
      // Temporal's own record agrees: every workspace activity was started by a worker of that host.
      const ran = await hostsThatRanActivities(goal.workflowId);
      assert.deepEqual(
        [...ran.hosts],
        [goal.hostId],
        `${goal.workflowId} ran activities on ${[...ran.hosts].join(', ')}`,
      );
      assert.deepEqual([...ran.queues], [hostTaskQueue(taskQueue, goal.hostId)]);
    }
  },
);

test(
  'a host whose worker is killed shows its goals as waiting for it while the others finish; they resume when it is back',
  { timeout: 240_000 },
  async () => {
    const goals = (['h-a', 'h-b', 'h-b', 'h-c'] as const).map((hostId, index) => ({
      hostId,
      workspace: workspaceOn(hostId, `away-${index}`),
      workflowId: `mh-away-${Date.now()}-${index}`,
    }));
    await Promise.all(
      goals.map((goal) =>
        startGoal(client, {
          input: goalInput('AWAY-GOAL', goal.workspace),
          taskQueue,
          workflowId: goal.workflowId,
        }),
      ),
    );
    // Every goal has made its first call before h-b goes away.
    for (const goal of goals)
      await eventually(
        async () => (await goalStatus(goalHandle(client, goal.workflowId))).counters.toolCalls >= 1,
      );
    await workers.get('h-b')?.kill9();
    workers.delete('h-b');

    const onB = goals.filter((goal) => goal.hostId === 'h-b');
    const elsewhere = goals.filter((goal) => goal.hostId !== 'h-b');
    for (const goal of onB) {
      const view = await eventually(async () => {
        const status = await goalStatus(goalHandle(client, goal.workflowId));
        return status.phase === 'host-unavailable' ? status : undefined;
      }, 60_000);
      assert.equal(view.host?.id, 'h-b');
      assert.ok(view.host?.unavailableSince, 'since when');
      assert.equal(view.host?.actions?.length, 3, 'wait, cancel, rebind');
      assert.equal(existsSync(path.join(goal.workspace, 'second.txt')), false, 'no call ran elsewhere');
    }
    for (const goal of elsewhere) {
      assert.equal((await goalResult(goalHandle(client, goal.workflowId))).status, 'completed');
    }
    // The status line a human reads.
    const status = await keel(['status', onB[0]?.workflowId ?? '']);
    assert.match(status.stdout, /workspace host h-b unavailable since .*; you can:/);
    assert.match(status.stdout, /rebind: keel rebind/);

    await startHost('h-b');
    for (const goal of onB) {
      const result = await goalResult(goalHandle(client, goal.workflowId));
      assert.equal(result.status, 'completed', `${goal.workflowId}: ${result.reason}`);
      assert.equal(readFileSync(path.join(goal.workspace, 'second.txt'), 'utf8'), 'two');
      const view = await goalStatus(goalHandle(client, goal.workflowId));
      assert.deepEqual(view.counters.toolCallsByHost, { 'h-b': 2 });
      const kinds = (await goalHandle(client, goal.workflowId).query(ledgerQuery)).map((event) => event.kind);
      assert.ok(
        kinds.indexOf('host.unavailable') >= 0 &&
          kinds.indexOf('host.available') > kinds.indexOf('host.unavailable'),
        kinds.join(' '),
      );
      assert.deepEqual([...(await hostsThatRanActivities(goal.workflowId)).hosts], ['h-b']);
    }
  },
);

test(
  'a goal with a git source moves to another host when its own is gone, and is cloned there',
  { timeout: 240_000 },
  async () => {
    const origin = path.join(root, 'origin');
    mkdirSync(origin);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: origin, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(origin, 'README.md'), 'from git\n');
    git('add', '.');
    git('-c', 'user.name=keel', '-c', 'user.email=keel@example.invalid', 'commit', '-q', '-m', 'start');
    const workspace = path.join(root, 'moving', 'app');
    const workflowId = `mh-moving-${Date.now()}`;
    const run = await keel([
      'run',
      'MOVING-GOAL',
      '--workspace',
      workspace,
      '--git',
      `file://${origin}`,
      '--approval-policy',
      'ask',
      '--host-timeout',
      '2s',
      '--id',
      workflowId,
    ]);
    assert.equal(run.code, 0, run.stderr);
    // Nobody had it: it was cloned on the first host whose roots take it.
    assert.match(run.stdout, /^host: h-a \(the workspace was cloned there\)$/m);
    assert.equal(readFileSync(path.join(workspace, 'README.md'), 'utf8'), 'from git\n');
    const pending = await eventually(
      async () => (await goalStatus(goalHandle(client, workflowId))).pendingApprovals[0],
    );
    assert.equal(pending.toolName, 'write_file');

    const early = await keel(['rebind', workflowId, '--host', 'h-c']);
    assert.notEqual(early.code, 0);
    assert.equal(
      early.stderr.trim(),
      'keel: refused: host h-a is available: a goal moves only while its host is unavailable',
    );

    await workers.get('h-a')?.kill9();
    workers.delete('h-a');
    await decideApproval(goalHandle(client, workflowId), {
      callId: pending.callId,
      approved: true,
      approver: 'test',
      via: 'update',
    });
    await eventually(
      async () => (await goalStatus(goalHandle(client, workflowId))).phase === 'host-unavailable',
      60_000,
    );
    // h-a's disk went with it: h-c has to recreate the workspace from the repository.
    rmSync(workspace, { recursive: true, force: true });
    const moved = await keel(['rebind', workflowId, '--host', 'h-c', '--by', 'ops']);
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(moved.stdout.trim(), `moved ${workflowId} to host h-c (workspace cloned there)`);

    const result = await goalResult(goalHandle(client, workflowId));
    assert.equal(result.status, 'completed', result.reason);
    const view = await goalStatus(goalHandle(client, workflowId));
    assert.ok(existsSync(path.join(workspace, 'moved.txt')), JSON.stringify(view));
    assert.equal(readFileSync(path.join(workspace, 'moved.txt'), 'utf8'), 'after the move');
    assert.equal(view.host?.id, 'h-c');
    assert.deepEqual(view.counters.toolCallsByHost, { 'h-a': 1, 'h-c': 1 });
    const rebound = (await goalHandle(client, workflowId).query(ledgerQuery)).find(
      (event) => event.kind === 'host.rebound',
    );
    assert.deepEqual(rebound?.data, { from: 'h-a', host: 'h-c', via: 'cloned', by: 'ops' });
  },
);

test(
  'a goal with a git source moved after its host died is told, records and reports the writes it lost',
  { timeout: 240_000 },
  async () => {
    const origin = path.join(root, 'origin-lost');
    mkdirSync(origin);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: origin, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(origin, 'README.md'), 'from git\n');
    git('add', '.');
    git('-c', 'user.name=keel', '-c', 'user.email=keel@example.invalid', 'commit', '-q', '-m', 'start');
    const workspace = path.join(root, 'moving', `lost-${Date.now()}`);
    const workflowId = `mh-lost-writes-${Date.now()}`;
    const source = { git: `file://${origin}`, ref: 'main' };
    await startGoal(client, {
      input: goalInput('LOST-WRITES-GOAL', workspace, { host: 'h-a', workspaceSource: source }),
      taskQueue,
      workflowId,
    });
    const handle = goalHandle(client, workflowId);
    await eventually(async () => (await goalStatus(handle)).counters.toolCallsByHost['h-a'] === 1);
    assert.equal(readFileSync(path.join(workspace, 'first.txt'), 'utf8'), 'one');
    await workers.get('h-a')?.kill9();
    workers.delete('h-a');
    await eventually(async () => (await goalStatus(handle)).phase === 'host-unavailable', 60_000);
    // h-a's disk went with it: h-c recreates the workspace from git, without first.txt.
    rmSync(workspace, { recursive: true, force: true });
    const receipt = await handle.executeUpdate(rebindHostUpdate, { args: [{ host: 'h-c', by: 'ops' }] });
    assert.equal(receipt.via, 'cloned');

    const result = await goalResult(handle);
    assert.equal(result.status, 'completed', result.reason);
    assert.equal(existsSync(path.join(workspace, 'first.txt')), false, 'the write is lost');
    assert.equal(readFileSync(path.join(workspace, 'second.txt'), 'utf8'), 'two');
    // The result carries the loss, and its reason says it.
    assert.deepEqual(
      result.workspaceLoss?.map((loss) => [loss.host, loss.source, loss.lost]),
      [['h-c', `file://${origin}@main`, ['first.txt']]],
    );
    assert.match(
      result.reason ?? '',
      /^final answer given; workspace recreated on host h-c from file:\/\/\S+@main at .*: 1 write of the goal lost \(first\.txt\)$/,
    );
    // The ledger records it.
    const recreated = (await handle.query(ledgerQuery)).filter(
      (event) => event.kind === 'host.workspace_recreated',
    );
    assert.equal(recreated.length, 1);
    assert.deepEqual(recreated[0]?.data, {
      host: 'h-c',
      source: `file://${origin}@main`,
      lost: ['first.txt'],
      omitted: 0,
      unreported: [],
    });
    // The model was told in its next turn.
    const told = scripted.requests.some(
      (request) =>
        request.scenario === 'lost-writes' &&
        JSON.stringify(request.body.messages).includes(
          `The workspace was recreated on host h-c from file://${origin}@main: these writes of yours are missing: first.txt.`,
        ),
    );
    assert.ok(told, 'the model read which of its writes are missing');
    // keel status prints it.
    const status = await keel(['status', workflowId]);
    assert.match(status.stdout, /^lost writes: workspace recreated on host h-c .*\(first\.txt\)$/m);
  },
);

test(
  'an irreversible call approved after its host died, and never started, runs once on the host the goal moved to',
  { timeout: 240_000 },
  async () => {
    // Both h-a and h-c hold "moving" (shared storage): the workspace, and the journal beside it.
    const workspace = path.join(root, 'moving', `approved-${Date.now()}`);
    mkdirSync(workspace, { recursive: true });
    const workflowId = `mh-approved-move-${Date.now()}`;
    await startGoal(client, {
      input: goalInput('APPROVED-MOVE-GOAL', workspace, { host: 'h-a', sandbox: { network: true } }),
      taskQueue,
      workflowId,
    });
    const handle = goalHandle(client, workflowId);
    const pending = await eventually(async () => (await goalStatus(handle)).pendingApprovals[0]);
    await workers.get('h-a')?.kill9();
    workers.delete('h-a');
    await decideApproval(handle, { callId: pending.callId, approved: true, approver: 'test', via: 'update' });
    // The approved call waits in h-a's queue, where no worker takes it: it never starts there.
    await eventually(async () => (await goalStatus(handle)).phase === 'host-unavailable', 60_000);
    const receipt = await handle.executeUpdate(rebindHostUpdate, { args: [{ host: 'h-c', by: 'ops' }] });
    assert.equal(receipt.host, 'h-c');

    const result = await goalResult(handle);
    assert.equal(result.status, 'completed', result.reason);
    assert.equal(readFileSync(path.join(workspace, 'effects.txt'), 'utf8'), 'once\n', 'it ran, once');
    assert.equal(result.counters.unknownOutcomes, 0);
    assert.deepEqual(result.counters.toolCallsByHost, { 'h-c': 1 });
    const ledger = await handle.query(ledgerQuery);
    assert.deepEqual(
      ledger.filter((event) => event.kind === 'tool.outcome_unknown'),
      [],
      'not reported as an unknown outcome',
    );
    assert.deepEqual([...(await hostsThatRanActivities(workflowId)).hosts], ['h-c']);
    // The journal the two hosts share recorded the one run, finished.
    const journal = path.join(root, 'moving', '.keel-state', path.basename(workspace), 'journal');
    const markers = readdirSync(journal).filter((name) => name.endsWith('.json'));
    assert.equal(markers.length, 1);
    assert.match(readFileSync(path.join(journal, markers[0] ?? ''), 'utf8'), /"finishedAt"/);
  },
);

test(
  'a goal moves between hosts with different workspace roots to the same path under the new root, and keeps its writes',
  { timeout: 240_000 },
  async () => {
    // h-a serves <root>/a, h-b serves <root>/b: the workspace is "roots-<n>" under either.
    const name = `roots-${Date.now()}`;
    const workspace = workspaceOn('h-a', name);
    const workflowId = `mh-roots-${Date.now()}`;
    await startGoal(client, { input: goalInput('AWAY-GOAL', workspace), taskQueue, workflowId });
    const handle = goalHandle(client, workflowId);
    await eventually(async () => (await goalStatus(handle)).counters.toolCallsByHost['h-a'] === 1);
    await workers.get('h-a')?.kill9();
    workers.delete('h-a');
    await eventually(async () => (await goalStatus(handle)).phase === 'host-unavailable', 60_000);
    // The operator brings the workspace over to h-b's disk (a restored copy, a synced volume).
    const onB = path.join(root, 'b', name);
    cpSync(workspace, onB, { recursive: true });
    const receipt = await handle.executeUpdate(rebindHostUpdate, { args: [{ host: 'h-b', by: 'ops' }] });
    assert.deepEqual(receipt, { host: 'h-b', via: 'rebound' });

    const result = await goalResult(handle);
    assert.equal(result.status, 'completed', result.reason);
    // Its first write came along; the second was made on h-b, at h-b's path.
    assert.equal(readFileSync(path.join(onB, 'first.txt'), 'utf8'), 'one');
    assert.equal(readFileSync(path.join(onB, 'second.txt'), 'utf8'), 'two');
    assert.equal(existsSync(path.join(workspace, 'second.txt')), false, 'nothing written on the old path');
    assert.deepEqual(result.counters.toolCallsByHost, { 'h-a': 1, 'h-b': 1 });
    assert.equal((await goalStatus(handle)).host?.workspace, onB);
    const rebound = (await handle.query(ledgerQuery)).find((event) => event.kind === 'host.rebound');
    assert.deepEqual(rebound?.data, { from: 'h-a', host: 'h-b', via: 'rebound', by: 'ops', workspace: onB });
  },
);

test(
  "a goal moved while its host is alive carries its workspace to the new host, under that host's root",
  { timeout: 240_000 },
  async () => {
    const name = `carry-${Date.now()}`;
    const workspace = workspaceOn('h-a', name);
    writeFileSync(path.join(workspace, 'README.md'), 'before the goal\n');
    const workflowId = `mh-carry-${Date.now()}`;
    await startGoal(client, {
      input: goalInput('CARRY-GOAL', workspace, { approvalPolicy: 'ask' }),
      taskQueue,
      workflowId,
    });
    const handle = goalHandle(client, workflowId);
    const approveNext = async (file: string) => {
      const pending = await eventually(async () =>
        (await goalStatus(handle)).pendingApprovals.find((approval) => approval.summary.includes(file)),
      );
      await decideApproval(handle, {
        callId: pending.callId,
        approved: true,
        approver: 'test',
        via: 'update',
      });
    };
    await approveNext('first.txt');
    await eventually(async () =>
      (await goalStatus(handle)).pendingApprovals.some((a) => a.summary.includes('second.txt')),
    );

    // Too large to pass through the goal's history: refused in one line, and the goal stays.
    writeFileSync(path.join(workspace, 'big.bin'), randomBytes(5 * 1024 * 1024));
    const tooLarge = await keel(['rebind', workflowId, '--host', 'h-b', '--carry']);
    assert.notEqual(tooLarge.code, 0);
    assert.equal(tooLarge.stderr.trim().split('\n').length, 1, tooLarge.stderr);
    assert.match(
      tooLarge.stderr,
      /^keel: refused: the workspace could not be carried to host h-b: host h-a: the workspace \S+ packs to 5\.0 MB or more, above the 4\.0 MB a move can carry/,
    );
    assert.equal((await goalStatus(handle)).host?.id, 'h-a');
    rmSync(path.join(workspace, 'big.bin'));
    // h-a is alive: a carrying rebind moves the goal with its files (a plain one is refused, above).
    const moved = await keel(['rebind', workflowId, '--host', 'h-b', '--by', 'ops', '--carry']);
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(moved.stdout.trim(), `moved ${workflowId} to host h-b (workspace carried there)`);
    await approveNext('second.txt');

    const result = await goalResult(handle);
    assert.equal(result.status, 'completed', result.reason);
    const onB = path.join(root, 'b', name);
    assert.equal(readFileSync(path.join(onB, 'README.md'), 'utf8'), 'before the goal\n');
    assert.equal(readFileSync(path.join(onB, 'first.txt'), 'utf8'), 'one');
    assert.equal(readFileSync(path.join(onB, 'second.txt'), 'utf8'), 'two');
    assert.equal(existsSync(path.join(workspace, 'second.txt')), false, 'the old copy is left as it was');
    assert.deepEqual(result.counters.toolCallsByHost, { 'h-a': 1, 'h-b': 1 });
    assert.equal(result.workspaceLoss, undefined, 'nothing lost');
    const rebound = (await handle.query(ledgerQuery)).find((event) => event.kind === 'host.rebound');
    assert.equal((rebound?.data as { via?: string }).via, 'carried');
    assert.deepEqual((rebound?.data as { carried?: { files: number } }).carried?.files, 2);
    assert.equal((rebound?.data as { workspace?: string }).workspace, onB);
  },
);

test(
  'bad input at the start: an unknown host and a workspace no host has are one clear line each',
  { timeout: 120_000 },
  async () => {
    const unknown = await keel(['run', 'SPREAD-GOAL', '--workspace', path.join(root, 'a'), '--host', 'h-zz']);
    assert.notEqual(unknown.code, 0, unknown.stdout);
    assert.equal(unknown.stderr.trim().split('\n').length, 1, unknown.stderr);
    assert.match(unknown.stderr, /^keel: .*unknown host "?h-zz/);

    const elsewhere = await keel([
      'run',
      'SPREAD-GOAL',
      '--workspace',
      workspaceOn('h-b', 'only-on-b'),
      '--host',
      'h-a',
    ]);
    assert.notEqual(elsewhere.code, 0, elsewhere.stdout);
    assert.match(
      elsewhere.stderr.trim(),
      /^keel: goal \S+ cannot run: host "h-a" does not have the workspace \S+only-on-b \(outside the host's workspace roots\)$/,
    );

    // Started without the CLI (the Temporal CLI, your code): the workflow fails with a typed reason.
    const workflowId = `mh-nowhere-${Date.now()}`;
    await startGoal(client, { input: goalInput('SPREAD-GOAL', '/nowhere/at/all'), taskQueue, workflowId });
    const failure = await goalHandle(client, workflowId)
      .result()
      .catch((error: unknown) => error);
    assert.ok(
      failure instanceof WorkflowFailedError && failure.cause instanceof ApplicationFailure,
      String(failure),
    );
    assert.equal(failure.cause.type, 'WorkspaceNotFound');
    assert.match(
      failure.cause.message,
      /^workspace \/nowhere\/at\/all exists on no host \(asked: h-a \(outside the host's workspace roots\), h-b \(outside/,
    );
  },
);
