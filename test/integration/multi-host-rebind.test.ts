import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decideApproval, goalHandle, goalResult, goalStatus, startGoal } from '../../src/client/goal-client';
import { ledgerQuery, rebindHostUpdate } from '../../src/workflows/goal/messages';
import { listCheckpoints } from '../../src/activities/checkpoints/checkpoint-store';
import { workspaceStateDirectory } from '../../src/activities/hosts/workspace-state-directory';
import { eventually, stopOwnServer } from '../support/temporal';
import { goalInput, startMultiHostCluster, type MultiHostCluster } from '../support/multi-host-cluster';

/**
 * Goals moved to another host (keel rebind): cloned from git, carried, or taken over from shared or copied storage.
 * Three worker processes act as three machines (test/support/multi-host-cluster.ts).
 */

let cluster: MultiHostCluster;

before(async () => {
  cluster = await startMultiHostCluster();
});

/** A test that stops h-a brings it back, also when it fails, so the next tests find it. */
afterEach(async () => {
  if (!cluster.workers.has('h-a')) await cluster.startHost('h-a');
});

after(async () => {
  await cluster.close();
  await stopOwnServer();
});

test(
  'a goal with a git source moves to another host when its own is gone, and is cloned there',
  { timeout: 240_000 },
  async () => {
    const origin = path.join(cluster.root, 'origin');
    mkdirSync(origin);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: origin, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(origin, 'README.md'), 'from git\n');
    git('add', '.');
    git('-c', 'user.name=keel', '-c', 'user.email=keel@example.invalid', 'commit', '-q', '-m', 'start');
    const workspace = path.join(cluster.root, 'moving', 'app');
    const workflowId = `mh-moving-${Date.now()}`;
    const run = await cluster.keel([
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
      async () => (await goalStatus(goalHandle(cluster.client, workflowId))).pendingApprovals[0],
    );
    assert.equal(pending.toolName, 'write_file');

    const early = await cluster.keel(['rebind', workflowId, '--host', 'h-c']);
    assert.notEqual(early.code, 0);
    assert.equal(
      early.stderr.trim(),
      'keel: refused: host h-a is available: a goal moves only while its host is unavailable',
    );

    await cluster.workers.get('h-a')?.kill9();
    cluster.workers.delete('h-a');
    await decideApproval(goalHandle(cluster.client, workflowId), {
      callId: pending.callId,
      approved: true,
      approver: 'test',
      via: 'update',
    });
    await eventually(
      async () => (await goalStatus(goalHandle(cluster.client, workflowId))).phase === 'host-unavailable',
      60_000,
    );
    // h-a's disk went with it: h-c has to recreate the workspace from the repository.
    rmSync(workspace, { recursive: true, force: true });
    const moved = await cluster.keel(['rebind', workflowId, '--host', 'h-c', '--by', 'ops']);
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(moved.stdout.trim(), `moved ${workflowId} to host h-c (workspace cloned there)`);

    const result = await goalResult(goalHandle(cluster.client, workflowId));
    assert.equal(result.status, 'completed', result.reason);
    const view = await goalStatus(goalHandle(cluster.client, workflowId));
    assert.ok(existsSync(path.join(workspace, 'moved.txt')), JSON.stringify(view));
    assert.equal(readFileSync(path.join(workspace, 'moved.txt'), 'utf8'), 'after the move');
    assert.equal(view.host?.id, 'h-c');
    assert.deepEqual(view.counters.toolCallsByHost, { 'h-a': 1, 'h-c': 1 });
    const rebound = (await goalHandle(cluster.client, workflowId).query(ledgerQuery)).find(
      (event) => event.kind === 'host.rebound',
    );
    assert.deepEqual(rebound?.data, { from: 'h-a', host: 'h-c', via: 'cloned', by: 'ops' });
  },
);

test(
  'a goal with a git source moved after its host died is told, records and reports the writes it lost',
  { timeout: 240_000 },
  async () => {
    const origin = path.join(cluster.root, 'origin-lost');
    mkdirSync(origin);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: origin, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(origin, 'README.md'), 'from git\n');
    git('add', '.');
    git('-c', 'user.name=keel', '-c', 'user.email=keel@example.invalid', 'commit', '-q', '-m', 'start');
    const workspace = path.join(cluster.root, 'moving', `lost-${Date.now()}`);
    const workflowId = `mh-lost-writes-${Date.now()}`;
    const source = { git: `file://${origin}`, ref: 'main' };
    await startGoal(cluster.client, {
      input: goalInput('LOST-WRITES-GOAL', workspace, { host: 'h-a', workspaceSource: source }),
      taskQueue: cluster.taskQueue,
      workflowId,
    });
    const handle = goalHandle(cluster.client, workflowId);
    await eventually(async () => (await goalStatus(handle)).counters.toolCallsByHost['h-a'] === 1);
    assert.equal(readFileSync(path.join(workspace, 'first.txt'), 'utf8'), 'one');
    await cluster.workers.get('h-a')?.kill9();
    cluster.workers.delete('h-a');
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
    const told = cluster.scripted.requests.some(
      (request) =>
        request.scenario === 'lost-writes' &&
        JSON.stringify(request.body.messages).includes(
          `The workspace was recreated on host h-c from file://${origin}@main: these writes of yours are missing: first.txt.`,
        ),
    );
    assert.ok(told, 'the model read which of its writes are missing');
    // keel status prints it.
    const status = await cluster.keel(['status', workflowId]);
    assert.match(status.stdout, /^lost writes: workspace recreated on host h-c .*\(first\.txt\)$/m);
  },
);

test(
  'an irreversible call approved after its host died, and never started, runs once on the host the goal moved to',
  { timeout: 240_000 },
  async () => {
    // Both h-a and h-c hold "moving" (shared storage): the workspace, and the journal beside it.
    const workspace = path.join(cluster.root, 'moving', `approved-${Date.now()}`);
    mkdirSync(workspace, { recursive: true });
    const workflowId = `mh-approved-move-${Date.now()}`;
    await startGoal(cluster.client, {
      input: goalInput('APPROVED-MOVE-GOAL', workspace, { host: 'h-a', sandbox: { network: true } }),
      taskQueue: cluster.taskQueue,
      workflowId,
    });
    const handle = goalHandle(cluster.client, workflowId);
    const pending = await eventually(async () => (await goalStatus(handle)).pendingApprovals[0]);
    await cluster.workers.get('h-a')?.kill9();
    cluster.workers.delete('h-a');
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
    assert.deepEqual([...(await cluster.hostsThatRanActivities(workflowId)).hosts], ['h-c']);
    // The journal the two hosts share recorded the one run, finished.
    const journal = path.join(cluster.root, 'moving', '.keel-state', path.basename(workspace), 'journal');
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
    const workspace = cluster.workspaceOn('h-a', name);
    const workflowId = `mh-roots-${Date.now()}`;
    await startGoal(cluster.client, {
      input: goalInput('AWAY-GOAL', workspace),
      taskQueue: cluster.taskQueue,
      workflowId,
    });
    const handle = goalHandle(cluster.client, workflowId);
    await eventually(async () => (await goalStatus(handle)).counters.toolCallsByHost['h-a'] === 1);
    await cluster.workers.get('h-a')?.kill9();
    cluster.workers.delete('h-a');
    await eventually(async () => (await goalStatus(handle)).phase === 'host-unavailable', 60_000);
    // The operator brings the workspace over to h-b's disk (a restored copy, a synced volume).
    const onB = path.join(cluster.root, 'b', name);
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
    const workspace = cluster.workspaceOn('h-a', name);
    writeFileSync(path.join(workspace, 'README.md'), 'before the goal\n');
    const workflowId = `mh-carry-${Date.now()}`;
    await startGoal(cluster.client, {
      input: goalInput('CARRY-GOAL', workspace, { approvalPolicy: 'ask' }),
      taskQueue: cluster.taskQueue,
      workflowId,
    });
    const handle = goalHandle(cluster.client, workflowId);
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
    const tooLarge = await cluster.keel(['rebind', workflowId, '--host', 'h-b', '--carry']);
    assert.notEqual(tooLarge.code, 0);
    assert.equal(tooLarge.stderr.trim().split('\n').length, 1, tooLarge.stderr);
    assert.match(
      tooLarge.stderr,
      /^keel: refused: the workspace could not be carried to host h-b: host h-a: the workspace \S+ packs to 5\.0 MB or more, above the 4\.0 MB a move can carry/,
    );
    assert.equal((await goalStatus(handle)).host?.id, 'h-a');
    rmSync(path.join(workspace, 'big.bin'));
    // h-a is alive: a carrying rebind moves the goal with its files (a plain one is refused, above).
    const moved = await cluster.keel(['rebind', workflowId, '--host', 'h-b', '--by', 'ops', '--carry']);
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(moved.stdout.trim(), `moved ${workflowId} to host h-b (workspace carried there)`);
    await approveNext('second.txt');

    const result = await goalResult(handle);
    assert.equal(result.status, 'completed', result.reason);
    const onB = path.join(cluster.root, 'b', name);
    assert.equal(readFileSync(path.join(onB, 'README.md'), 'utf8'), 'before the goal\n');
    assert.equal(readFileSync(path.join(onB, 'first.txt'), 'utf8'), 'one');
    assert.equal(readFileSync(path.join(onB, 'second.txt'), 'utf8'), 'two');
    assert.equal(existsSync(path.join(workspace, 'second.txt')), false, 'the old copy is left as it was');
    assert.deepEqual(result.counters.toolCallsByHost, { 'h-a': 1, 'h-b': 1 });
    assert.equal(result.workspaceLoss, undefined, 'nothing lost');
    const rebound = (await handle.query(ledgerQuery)).find((event) => event.kind === 'host.rebound');
    assert.equal((rebound?.data as { via?: string }).via, 'carried');
    const carried = (rebound?.data as { carried?: { files: number; checkpoints?: { carried: boolean } } })
      .carried;
    assert.equal(carried?.files, 2);
    // Its turn checkpoints came with it (issue 48): a fork after the move finds h-a's turns on h-b.
    assert.equal(carried?.checkpoints?.carried, true);
    const keptOnB = await listCheckpoints({
      store: workspaceStateDirectory(onB, 'checkpoints'),
      goalId: workflowId,
    });
    assert.ok(keptOnB.length >= 2 && keptOnB[0]?.turn === 1, JSON.stringify(keptOnB));
    // A fork at turn 1, before the move, takes its files from them on h-b, beside the goal's workspace there.
    const forkId = `${workflowId}-fork-1`;
    const forked = await cluster.keel(['fork', workflowId, '--at', '1', '--say', 'TRY-HOLD', '--id', forkId]);
    assert.equal(forked.code, 0, forked.stderr);
    const fork = goalHandle(cluster.client, forkId);
    assert.equal((await goalResult(fork)).status, 'completed');
    assert.deepEqual((await fork.describe()).searchAttributes.KeelHost, ['h-b']);
    const forkFolder = /workspace (\S+)/.exec(forked.stdout)?.[1] ?? '';
    assert.equal(path.dirname(forkFolder), path.join(cluster.root, 'b'), forked.stdout);
    assert.deepEqual(
      readdirSync(forkFolder),
      ['README.md'],
      'the files of turn 1: first.txt not yet written',
    );
    assert.equal((rebound?.data as { workspace?: string }).workspace, onB);
  },
);
