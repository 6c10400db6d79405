import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import type { JournalRecord } from '../../src/activities/tools/irreversible-journal';
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
      {
        name: 'never-began',
        match: 'GOAL-NEVER-BEGAN',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo once >> effects.txt' } }] },
          { text: 'Ran it once.' },
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
      // With network allowed every run_command is irreversible: approved, journaled, at most once.
      args: [
        {
          goal: 'GOAL-CRASH: survive',
          workspace,
          sandbox: { network: true },
          timing: { heartbeatTimeoutMs: 2000 },
        },
      ],
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
    // The interrupted one was reported as unknown, never retried, and the ledger says it began.
    assert.equal(result.counters.unknownOutcomes, 1);
    const unknown = (await handle.query(ledgerQuery)).filter(
      (event) => event.kind === 'tool.outcome_unknown',
    );
    assert.equal(unknown.length, 1);
    assert.equal(unknown[0]?.data.callId, lateCallId);
    assert.equal(unknown[0]?.data.began, true);
    assert.match(String(unknown[0]?.data.startedAt), /^\d{4}-\d\d-\d\dT/);
    const markers = readdirSync(harness.journalDirectory).filter((name) => name.endsWith('.json'));
    const cutOff = markers
      .map(
        (name) =>
          JSON.parse(readFileSync(path.join(harness.journalDirectory, name), 'utf8')) as JournalRecord,
      )
      .filter((record) => record.reportedUnknownAt !== undefined);
    assert.deepEqual(
      cutOff.map((record) => [record.summary.includes('sleep'), record.finishedAt]),
      [[true, undefined]],
      'the journal records the cut-off call as begun, unfinished and reported unknown',
    );
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
    await worker.stop();
    worker = undefined;
  },
);

test(
  'an irreversible call whose worker died before it began is run by the next worker, once',
  { timeout: 180_000 },
  async () => {
    const address = await temporalAddress();
    // The journal's id file is a FIFO: the first attempt blocks reading it, after Temporal handed
    // it the call and before the journal could record that the call began. That is the window
    // a kill -9 must find to leave a call that never began.
    const journalDirectory = path.join(tempDirectory('keel-journal-'), 'journal');
    mkdirSync(journalDirectory);
    execFileSync('mkfifo', [path.join(journalDirectory, 'journal-id')]);
    const startWorker = () =>
      startWorkerProcess({
        address,
        taskQueue: harness.taskQueue,
        modelBaseUrl: harness.scripted.url,
        journalDirectory,
      });
    const workspace = tempDirectory('keel-never-began-');
    worker = await startWorker();
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `never-began-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-NEVER-BEGAN: append once',
          workspace,
          sandbox: { network: true },
          timing: { heartbeatTimeoutMs: 2000 },
        },
      ],
    });
    const callId = await eventually(
      async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
    );
    await handle.signal(approveSignal, { callId, approver: 'test' });
    // The attempt has started on the worker (and is stuck before the call began).
    await eventually(async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      return pending.some(
        (activity) => activity.activityType?.name === 'executeTool' && activity.lastStartedTime,
      );
    });
    await worker.kill9();
    rmSync(path.join(journalDirectory, 'journal-id')); // the next worker's journal is an ordinary one
    worker = await startWorker();

    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(readFileSync(path.join(workspace, 'effects.txt'), 'utf8'), 'once\n');
    assert.equal(result.counters.unknownOutcomes, 0);
    const ledger = await handle.query(ledgerQuery);
    assert.equal(ledger.filter((event) => event.kind === 'tool.outcome_unknown').length, 0);
    // It was a retry: Temporal ran a second attempt of the same activity.
    const history = await handle.fetchHistory();
    const attempts = (history.events ?? [])
      .filter((event) => event.activityTaskStartedEventAttributes)
      .map((event) => event.activityTaskStartedEventAttributes?.attempt);
    assert.ok(attempts.includes(2), `attempts seen: ${JSON.stringify(attempts)}`);
  },
);
