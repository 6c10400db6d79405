import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/goal-workflow';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

let harness: Harness;
let worker: WorkerProcess | undefined;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'crash',
        match: 'GOAL-CRASH',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo once >> side-effects.txt' } }] },
          { delayMs: 4000, toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          { toolCalls: [{ name: 'run_command', input: { command: 'sleep 4; echo late >> late.txt' } }] },
          { text: 'Finished despite two crashes.' },
        ],
      },
    ],
  });
});

after(async () => {
  await worker?.stop();
  await harness.close();
  await stopOwnServer();
});

test(
  'kill -9 of the worker mid-activity and mid-approval loses nothing and repeats nothing',
  { timeout: 240_000 },
  async () => {
    const address = await temporalAddress();
    const startWorker = () =>
      startWorkerProcess({
        address,
        taskQueue: harness.taskQueue,
        modelBaseUrl: harness.scripted.url,
        journalDirectory: harness.journalDirectory,
      });
    const workspace = tempDirectory('keel-crash-');
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `crash-${Date.now()}`,
      // a short heartbeat timeout lets the server notice the dead worker in seconds
      args: [{ goal: 'GOAL-CRASH: survive', workspace, timing: { heartbeatTimeoutMs: 2000 } }],
    });
    const requestsFor = (turnIndex: number) =>
      harness.scripted.requests.filter((request) => request.turnIndex === turnIndex).length;
    const pendingCallId = () =>
      eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId);

    // 1. Crash while the goal waits for a human.
    worker = await startWorker();
    const firstCallId = await pendingCallId();
    await worker.kill9();
    worker = await startWorker();
    await handle.signal(approveSignal, { callId: firstCallId, approver: 'test' });

    // 2. Crash while the model activity of turn 2 is in flight.
    await eventually(() => Promise.resolve(requestsFor(1) >= 1));
    await worker.kill9();
    worker = await startWorker();

    // 3. Crash while an irreversible command runs: its outcome is unknown and it is not re-run.
    const lateCallId = await eventually(async () => {
      const view = await handle.query(goalStatusQuery);
      return view.pendingApprovals.find((approval) => approval.summary.includes('sleep'))?.callId;
    });
    await handle.signal(approveSignal, { callId: lateCallId, approver: 'test' });
    await eventually(async () => (await handle.query(goalStatusQuery)).counters.toolCalls === 3);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the command is now running
    await worker.kill9();
    worker = await startWorker();

    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'Finished despite two crashes.');

    // The irreversible call that was approved ran exactly once.
    assert.equal(readFileSync(path.join(workspace, 'side-effects.txt'), 'utf8'), 'once\n');
    // The interrupted one was reported as unknown, never retried.
    assert.equal(result.counters.unknownOutcomes, 1);
    const lastRequest = harness.scripted.requests.find((request) => request.turnIndex === 3);
    assert.match(
      JSON.stringify(lastRequest?.body.messages?.at(-1)),
      /outcome of this irreversible call .* is unknown/,
    );
    await new Promise((resolve) => setTimeout(resolve, 4000)); // let an orphaned `sleep` finish
    const late = readFileSync(path.join(workspace, 'late.txt'), { encoding: 'utf8', flag: 'a+' });
    assert.ok(late === '' || late === 'late\n', `ran at most once, got ${JSON.stringify(late)}`);

    // Completed model turns were never requested again; only the one cut off by the crash was.
    assert.equal(requestsFor(0), 1);
    assert.ok(requestsFor(1) >= 2, 'the interrupted turn was asked again');
    assert.equal(requestsFor(2), 1);
    assert.equal(requestsFor(3), 1);
  },
);
