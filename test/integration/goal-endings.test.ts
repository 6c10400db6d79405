import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { goalResult, goalStatus, resultOfFailure } from '../../src/client/goal-client';
import { FailureType } from '../../src/workflows/common/failure-types';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { KeelSearchAttributes } from '../../src/workflows/goal/views/search-attribute-values';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
  workflowIdsMatching,
} from '../support/temporal';

/**
 * Every way a goal ends leaves one story everywhere: the status query, the search attributes, the
 * Web UI's current details, the ledger, Temporal's own execution status and the keel CLI.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function keel(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [KEEL, ...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

let harness: Harness;
let address: string;

before(async () => {
  address = await temporalAddress();
  harness = await createHarness({
    scenarios: [
      {
        name: 'bad-request',
        match: 'GOAL-BAD-REQUEST',
        turns: [
          { failures: [{ status: 400, message: 'this request will never work' }], text: 'unreachable' },
        ],
      },
      { name: 'quick', match: 'GOAL-QUICK', turns: [{ text: 'quickly done' }] },
      { name: 'rejected', match: 'GOAL-REJECTED', turns: [{ text: 'here is my output' }] },
      {
        name: 'terminated',
        match: 'GOAL-TERMINATED',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo never > never.txt' } }] },
          { text: 'unreachable' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function idsMatching(query: string): Promise<string[]> {
  return workflowIdsMatching(harness.client, query);
}

test('a model that answers 400 for good leaves a final status everywhere, and a failed workflow', async () => {
  const workflowId = `bad-request-${Date.now()}`;
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: 'GOAL-BAD-REQUEST: anything', workspace: tempDirectory() }],
    });
    const error = await handle.result().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof WorkflowFailedError);
    assert.ok(error.cause instanceof ApplicationFailure);
    assert.equal(error.cause.type, FailureType.ModelBadRequest, 'the model error keeps its name');
    assert.equal(error.cause.nonRetryable, true);
    const carried = resultOfFailure(error);
    assert.equal(carried?.status, 'failed');
    assert.match(carried?.reason ?? '', /this request will never work/);
    assert.equal((await goalResult(handle)).status, 'failed');

    const view = await handle.query(goalStatusQuery);
    assert.deepEqual([view.status, view.phase], ['failed', 'done']);
    assert.match(view.endReason ?? '', /model call failed/);
    assert.equal(view.result?.status, 'failed');
    const attributes = (await handle.describe()).typedSearchAttributes;
    assert.equal(attributes.get(KeelSearchAttributes.status), 'failed');
    assert.equal(attributes.get(KeelSearchAttributes.phase), 'done');
    const ledger = await handle.query(ledgerQuery, {});
    const failed = ledger.find((event) => event.kind === 'goal.failed');
    assert.match(failed?.summary ?? '', /goal failed: model call failed/);
    const metadata = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    assert.match(metadata.currentDetails, /^### Goal failed · done/);
    assert.match(metadata.currentDetails, /; ended .* UTC, after \d+s/);

    // Temporal's own status agrees: listed with the failed workflows, not the completed ones.
    await eventually(async () => {
      const ids = await idsMatching(`ExecutionStatus = 'Failed' AND KeelStatus = 'failed'`);
      return ids.includes(workflowId) || undefined;
    });

    // keel watch on it prints the result in plain lines and exits 1, no stack trace.
    const watched = await keel([
      '--address',
      address,
      '--task-queue',
      harness.taskQueue,
      'watch',
      workflowId,
    ]);
    assert.equal(watched.code, 1);
    assert.match(watched.stdout, /goal failed: model call failed/);
    assert.doesNotMatch(`${watched.stdout}${watched.stderr}`, /\n\s+at /, 'no stack trace');
  });
});

test('approving a call of a goal that has ended says it has ended, not that it does not exist', async () => {
  const workflowId = `quick-${Date.now()}`;
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: 'GOAL-QUICK: answer', workspace: tempDirectory() }],
    });
    assert.equal((await handle.result()).status, 'completed');
  });
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  const approved = await keel([...common, 'approve', workflowId, 'toolu_any']);
  assert.notEqual(approved.code, 0);
  assert.equal(
    approved.stderr.trim(),
    `keel: goal ${workflowId} has ended (completed): it takes no decisions now`,
  );
  const missing = await keel([...common, 'approve', `no-such-goal-${Date.now()}`, 'toolu_any']);
  assert.match(missing.stderr, /^keel: no goal with id no-such-goal-/);
});

test('a human review: requested in the ledger, listed by keel pending, rejected with keel review', async () => {
  const workflowId = `rejected-${Date.now()}`;
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-REJECTED: write something',
          workspace: tempDirectory(),
          reflection: { enabled: true, review: 'human' },
        },
      ],
    });
    await eventually(async () => (await goalStatus(handle)).awaitingReview || undefined);
    const requested = (await handle.query(ledgerQuery, {})).find(
      (event) => event.kind === 'review.requested',
    );
    assert.ok(requested, 'the wait for a review is in the ledger');
    const metadata = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    assert.match(metadata.currentDetails, /Waiting for a human review/);
    assert.match(metadata.currentDetails, new RegExp(`keel review ${workflowId} --accept`));

    const pending = await keel([...common, 'pending']);
    assert.match(pending.stdout, new RegExp(`^${workflowId}\\s+review\\s+awaiting a human review`, 'm'));
    const reviewed = await keel([
      ...common,
      'review',
      workflowId,
      '--reject',
      '--reviewer',
      'rita',
      '--notes',
      'too short',
    ]);
    assert.equal(reviewed.code, 0, reviewed.stderr);
    assert.match(reviewed.stdout, /rejected: the output of/);

    const result = await goalResult(handle);
    assert.equal(result.status, 'rejected');
    assert.equal(result.reason, 'the output was rejected by rita: too short');
    const error = await handle.result().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure);
    assert.equal(error.cause.type, FailureType.GoalRejected);
    const decided = (await handle.query(ledgerQuery, {})).find((event) => event.kind === 'review.completed');
    assert.equal(decided?.data.by, 'rita');
    assert.equal(decided?.data.accepted, false);

    const status = await keel([...common, 'status', workflowId]);
    assert.match(
      status.stdout,
      new RegExp(`^${workflowId}: rejected \\(done\\) — the output was rejected by rita`, 'm'),
    );
    const again = await keel([...common, 'review', workflowId, '--accept']);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /has ended \(failed\)/);
  });
});

test('a goal terminated outside keel is reported as terminated, with nothing pending', async () => {
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `terminated-${Date.now()}`,
      // With network allowed every run_command is irreversible: it waits for a human.
      args: [
        {
          goal: 'GOAL-TERMINATED: wait for approval',
          workspace: tempDirectory(),
          sandbox: { network: true },
        },
      ],
    });
    await eventually(async () => (await goalStatus(handle)).pendingApprovals.length === 1 || undefined);
    await handle.terminate('stopped from outside');
    // The query replays history and would still say "running (awaiting-approval)".
    const view = await goalStatus(handle);
    assert.deepEqual([view.status, view.phase, view.pendingApprovals.length], ['terminated', 'done', 0]);
    assert.match(view.endReason ?? '', /terminated by Temporal, outside keel/);
  });
});
