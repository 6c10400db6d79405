import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createHostActivities } from '../../src/activities/hosts';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { hostTaskQueue } from '../../src/workflows/hosts/host-queues';
import {
  createHarness,
  eventually,
  historyText,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';

/**
 * Issue 41: a host that has the workspace but answers late must not fail the goal. A host whose
 * probe answers only after the probe's start-to-close timeout is asked again and the goal binds to
 * it; a workspace that every host answered it does not have fails at once.
 */

const SLOW_HOST = 'slow-probe-host';
/** Longer than the probe's start-to-close (the goal's heartbeat timeout below). */
const FIRST_ANSWER_DELAY_MS = 3000;
const timing = { heartbeatTimeoutMs: 2000, hostTimeoutMs: 2000 };

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [{ name: 'quick', match: 'SLOW-PROBE-GOAL', turns: [{ text: 'Nothing to do: done.' }] }],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

/**
 * A worker of one more host, on that host's own queue, whose probe answers its first `lateCalls`
 * calls late: the keel host activities, with the probe delayed. It records each call's attempt.
 */
async function slowHostWorker(
  attempts: number[],
  lateCalls: number,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: await temporalAddress() });
  const activities = createHostActivities({ hostId: SLOW_HOST, workspaceRoots: [] });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: hostTaskQueue(harness.taskQueue, SLOW_HOST),
    activities: {
      ...activities,
      async probeWorkspace(input: Parameters<typeof activities.probeWorkspace>[0]) {
        attempts.push(Context.current().info.attempt);
        if (attempts.length <= lateCalls) await sleep(FIRST_ANSWER_DELAY_MS);
        return activities.probeWorkspace(input);
      },
    },
  });
  return { worker, connection };
}

test(
  'a host whose probe answers late is asked again, and the goal binds to it and completes',
  { timeout: 90_000 },
  async () => {
    const workspace = path.join(tempDirectory('keel-slow-probe-'), 'app');
    mkdirSync(workspace);
    const attempts: number[] = [];
    const slow = await slowHostWorker(attempts, 1);
    try {
      await harness.withWorker(() =>
        slow.worker.runUntil(async () => {
          const handle = await harness.client.workflow.start(goalWorkflow, {
            taskQueue: harness.taskQueue,
            workflowId: `slow-probe-${Date.now()}`,
            args: [{ goal: 'SLOW-PROBE-GOAL: nothing', workspace, host: SLOW_HOST, timing }],
          });
          const result = await handle.result();
          assert.equal(result.status, 'completed');
          assert.equal((await handle.query(goalStatusQuery)).host?.id, SLOW_HOST);
          const bound = (await handle.query(ledgerQuery)).find((event) => event.kind === 'host.bound');
          assert.equal(bound?.data.host, SLOW_HOST);
        }),
      );
    } finally {
      await slow.connection.close();
    }
    assert.equal(attempts[0], 1);
    assert.ok(
      attempts.length >= 2,
      `the late first answer was not the last word: attempts ${attempts.join(', ')}`,
    );
  },
);

test(
  'a host silent through every retry of a question is waited for, visibly, and bound once it answers',
  { timeout: 90_000 },
  async () => {
    const workspace = path.join(tempDirectory('keel-slow-probe-'), 'app');
    mkdirSync(workspace);
    const attempts: number[] = [];
    // The probe retries a question 3 times: all three are late, so the goal itself asks again.
    const slow = await slowHostWorker(attempts, 3);
    try {
      await harness.withWorker(() =>
        slow.worker.runUntil(async () => {
          const handle = await harness.client.workflow.start(goalWorkflow, {
            taskQueue: harness.taskQueue,
            workflowId: `slow-probe-wait-${Date.now()}`,
            args: [{ goal: 'SLOW-PROBE-GOAL: nothing', workspace, host: SLOW_HOST, timing }],
          });
          await eventually(async () => (await handle.query(goalStatusQuery)).phase === 'host-unavailable');
          const result = await handle.result();
          assert.equal(result.status, 'completed');
          const bound = (await handle.query(ledgerQuery)).find((event) => event.kind === 'host.bound');
          assert.equal(bound?.data.host, SLOW_HOST);
          assert.deepEqual((bound?.data.waited as { hosts: string[] } | undefined)?.hosts, [SLOW_HOST]);
          assert.match(bound?.summary ?? '', /after waiting since .* for slow-probe-host to answer$/);
          const history = historyText(await handle.fetchHistory());
          assert.ok(history.includes('probe-retried'), 'the patch marker of the new behaviour');
        }),
      );
    } finally {
      await slow.connection.close();
    }
    assert.deepEqual(attempts.slice(0, 4), [1, 2, 3, 1], 'three retries, then a new question');
  },
);

test(
  'a workspace every host answered it does not have fails the goal at once with WorkspaceNotFound',
  { timeout: 60_000 },
  async () => {
    const nowhere = path.join(tempDirectory('keel-slow-probe-'), 'never-made');
    await harness.withWorker(async () => {
      const started = Date.now();
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId: `slow-probe-nowhere-${Date.now()}`,
        args: [{ goal: 'SLOW-PROBE-GOAL: nothing', workspace: nowhere, timing }],
      });
      const failure = await handle.result().catch((error: unknown) => error);
      assert.ok(
        failure instanceof WorkflowFailedError && failure.cause instanceof ApplicationFailure,
        String(failure),
      );
      assert.equal(failure.cause.type, 'WorkspaceNotFound');
      assert.match(failure.cause.message, /exists on no host \(asked: \S+ \(missing\)\)$/);
      assert.ok(Date.now() - started < 10_000, `failed after ${Date.now() - started} ms, not at once`);
      // Nothing was waited for: no host.bound, and the goal never showed a wait.
      const history = await handle.fetchHistory();
      const timers = (history.events ?? []).filter((event) => event.timerStartedEventAttributes);
      assert.equal(timers.length, 0);
    });
  },
);
