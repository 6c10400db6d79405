import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError, ApplicationFailure } from '@temporalio/client';
import { goalHandle, goalResult, goalStatus, startGoal } from '../../src/client/goal-client';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import { hostTaskQueue } from '../../src/workflows/hosts/host-queues';
import { eventually, stopOwnServer } from '../support/temporal';
import {
  goalInput,
  HOSTS,
  startMultiHostCluster,
  type HostId,
  type MultiHostCluster,
} from '../support/multi-host-cluster';

/**
 * Goals placed on the host that holds their workspace, waiting while it is away, and refused when no host has it.
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
  '30 goals spread over three hosts all complete, every tool call on the host that holds its workspace',
  { timeout: 240_000 },
  async () => {
    const goals = Array.from({ length: 30 }, (_, index) => {
      const hostId = HOSTS[index % 3] as HostId;
      return {
        hostId,
        workspace: cluster.workspaceOn(hostId, `goal-${index}`),
        workflowId: `mh-spread-${Date.now()}-${index}`,
      };
    });
    await Promise.all(
      goals.map((goal) =>
        startGoal(cluster.client, {
          input: goalInput('SPREAD-GOAL', goal.workspace),
          taskQueue: cluster.taskQueue,
          workflowId: goal.workflowId,
        }),
      ),
    );
    for (const goal of goals) {
      const result = await goalResult(goalHandle(cluster.client, goal.workflowId));
      assert.equal(result.status, 'completed', `${goal.workflowId}: ${result.reason}`);
      const view = await goalStatus(goalHandle(cluster.client, goal.workflowId));
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
      const ran = await cluster.hostsThatRanActivities(goal.workflowId);
      assert.deepEqual(
        [...ran.hosts],
        [goal.hostId],
        `${goal.workflowId} ran activities on ${[...ran.hosts].join(', ')}`,
      );
      assert.deepEqual([...ran.queues], [hostTaskQueue(cluster.taskQueue, goal.hostId)]);
    }
  },
);

test(
  'a host whose worker is killed shows its goals as waiting for it while the others finish; they resume when it is back',
  { timeout: 240_000 },
  async () => {
    const goals = (['h-a', 'h-b', 'h-b', 'h-c'] as const).map((hostId, index) => ({
      hostId,
      workspace: cluster.workspaceOn(hostId, `away-${index}`),
      workflowId: `mh-away-${Date.now()}-${index}`,
    }));
    await Promise.all(
      goals.map((goal) =>
        startGoal(cluster.client, {
          input: goalInput('AWAY-GOAL', goal.workspace),
          taskQueue: cluster.taskQueue,
          workflowId: goal.workflowId,
        }),
      ),
    );
    // Every goal has made its first call before h-b goes away.
    for (const goal of goals)
      await eventually(
        async () => (await goalStatus(goalHandle(cluster.client, goal.workflowId))).counters.toolCalls >= 1,
      );
    await cluster.workers.get('h-b')?.kill9();
    cluster.workers.delete('h-b');

    const onB = goals.filter((goal) => goal.hostId === 'h-b');
    const elsewhere = goals.filter((goal) => goal.hostId !== 'h-b');
    for (const goal of onB) {
      const view = await eventually(async () => {
        const status = await goalStatus(goalHandle(cluster.client, goal.workflowId));
        return status.phase === 'host-unavailable' ? status : undefined;
      }, 60_000);
      assert.equal(view.host?.id, 'h-b');
      assert.ok(view.host?.unavailableSince, 'since when');
      assert.equal(view.host?.actions?.length, 3, 'wait, cancel, rebind');
      assert.equal(existsSync(path.join(goal.workspace, 'second.txt')), false, 'no call ran elsewhere');
    }
    for (const goal of elsewhere) {
      assert.equal((await goalResult(goalHandle(cluster.client, goal.workflowId))).status, 'completed');
    }
    // The status line a human reads.
    const status = await cluster.keel(['status', onB[0]?.workflowId ?? '']);
    assert.match(status.stdout, /workspace host h-b unavailable since .*; you can:/);
    assert.match(status.stdout, /rebind: keel rebind/);

    await cluster.startHost('h-b');
    for (const goal of onB) {
      const result = await goalResult(goalHandle(cluster.client, goal.workflowId));
      assert.equal(result.status, 'completed', `${goal.workflowId}: ${result.reason}`);
      assert.equal(readFileSync(path.join(goal.workspace, 'second.txt'), 'utf8'), 'two');
      const view = await goalStatus(goalHandle(cluster.client, goal.workflowId));
      assert.deepEqual(view.counters.toolCallsByHost, { 'h-b': 2 });
      const kinds = (await goalHandle(cluster.client, goal.workflowId).query(ledgerQuery)).map(
        (event) => event.kind,
      );
      assert.ok(
        kinds.indexOf('host.unavailable') >= 0 &&
          kinds.indexOf('host.available') > kinds.indexOf('host.unavailable'),
        kinds.join(' '),
      );
      assert.deepEqual([...(await cluster.hostsThatRanActivities(goal.workflowId)).hosts], ['h-b']);
    }
  },
);

test(
  'bad input at the start: an unknown host and a workspace no host has are one clear line each',
  { timeout: 120_000 },
  async () => {
    const unknown = await cluster.keel([
      'run',
      'SPREAD-GOAL',
      '--workspace',
      path.join(cluster.root, 'a'),
      '--host',
      'h-zz',
    ]);
    assert.notEqual(unknown.code, 0, unknown.stdout);
    assert.equal(unknown.stderr.trim().split('\n').length, 1, unknown.stderr);
    assert.match(unknown.stderr, /^keel: .*unknown host "?h-zz/);

    const elsewhere = await cluster.keel([
      'run',
      'SPREAD-GOAL',
      '--workspace',
      cluster.workspaceOn('h-b', 'only-on-b'),
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
    await startGoal(cluster.client, {
      input: goalInput('SPREAD-GOAL', '/nowhere/at/all'),
      taskQueue: cluster.taskQueue,
      workflowId,
    });
    const failure = await goalHandle(cluster.client, workflowId)
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
