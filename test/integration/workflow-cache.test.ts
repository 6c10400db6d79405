import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import {
  PARKED_HANDOVER_DELAY_MS,
  PARKED_RUN_EVENTS_LIMIT,
} from '../../src/workflows/goal/lifecycle/history-limits';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery, type GoalStatusView } from '../../src/workflows/goal/messages';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Issue 26: a worker's memory must not grow with every goal nobody has answered yet. With a cache
 * of 2, five goals parked on an approval cannot all stay in memory; the ones pushed out are
 * rebuilt from their history when their approval arrives, and go on exactly as a cached one would.
 */
const CACHE = 2;
const PARKED = 5;
/** Writes before the long goal parks: about 7 events each, enough to pass the parked-run limit. */
const WRITES_BEFORE_PARKING = Math.ceil(PARKED_RUN_EVENTS_LIMIT / 6);

let harness: Harness;

before(async () => {
  harness = await createHarness({
    maxCachedWorkflows: CACHE,
    scenarios: [
      {
        name: 'parked',
        match: 'GOAL-PARKED',
        turns: [
          {
            toolCalls: [
              { name: 'write_file', input: { path: 'notes.md', content: 'before the approval\n' } },
            ],
          },
          { toolCalls: [{ name: 'run_command', input: { command: 'echo sent >> sent.txt' } }] },
          { text: 'parked goal finished' },
        ],
      },
      {
        name: 'parked after a long run',
        match: 'GOAL-LONG-PARKED',
        turns: [
          ...Array.from({ length: WRITES_BEFORE_PARKING }, (_, index) => ({
            toolCalls: [{ name: 'write_file', input: { path: `step-${index}.txt`, content: `${index}\n` } }],
          })),
          { toolCalls: [{ name: 'run_command', input: { command: 'echo sent >> sent.txt' } }] },
          { text: 'long parked goal finished' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

async function parkedOn(handle: WorkflowHandle<typeof goalWorkflow>): Promise<GoalStatusView> {
  return eventually(async () => {
    const view = await handle.query(goalStatusQuery);
    return view.pendingApprovals.length === 1 ? view : undefined;
  }, 60_000);
}

/** A goal that makes WRITES_BEFORE_PARKING writes, then waits for approval of one command. */
async function startLongParkedGoal(
  name: string,
): Promise<{ workspace: string; handle: WorkflowHandleWithFirstExecutionRunId<typeof goalWorkflow> }> {
  const workspace = tempDirectory(`keel-ws-${name}-`);
  const handle = await harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${name}-${Date.now()}`,
    // No reflection checkpoints: the scripted model would ignore them and be stopped as stuck.
    args: [
      {
        goal: 'GOAL-LONG-PARKED',
        workspace,
        sandbox: { network: true },
        principles: { cadence: { every: 0 } },
      },
    ],
  });
  return { workspace, handle };
}

test(
  'more goals parked than the cache holds: the worker keeps only the cache, and an evicted goal approved goes on exactly once',
  { timeout: 180_000 },
  async () => {
    await harness.withWorker(async (worker) => {
      const goals: { handle: WorkflowHandle<typeof goalWorkflow>; workspace: string }[] = [];
      for (let index = 0; index < PARKED; index++) {
        const workspace = tempDirectory('keel-ws-cache-');
        const handle = await harness.client.workflow.start(goalWorkflow, {
          taskQueue: harness.taskQueue,
          workflowId: `cache-${Date.now()}-${index}`,
          // With network allowed the command is irreversible: it waits for a human.
          args: [{ goal: `GOAL-PARKED number ${index}`, workspace, sandbox: { network: true } }],
        });
        await parkedOn(handle);
        goals.push({ handle, workspace });
      }
      // Five goals wait; the worker holds at most two of them.
      const cached = worker.getStatus().numCachedWorkflows;
      assert.ok(cached <= CACHE, `${cached} goals cached with a cache of ${CACHE}`);

      // The first goal parked is the least recently used: it was evicted. Approve it first.
      for (const { handle, workspace } of goals) {
        const view = await parkedOn(handle); // a query of an evicted goal replays it
        const call = view.pendingApprovals[0];
        assert.ok(call);
        await handle.signal(approveSignal, { callId: call.callId, approver: 'ann' });
        const result = await handle.result();
        assert.equal(result.status, 'completed', result.reason);
        assert.equal(result.counters.approvalsGranted, 1);
        assert.equal(result.counters.toolCalls, 2);
        // Exactly once: the approved command ran one time, and the write before it stands.
        assert.equal(readFileSync(path.join(workspace, 'sent.txt'), 'utf8'), 'sent\n');
        assert.equal(readFileSync(path.join(workspace, 'notes.md'), 'utf8'), 'before the approval\n');
        assert.ok(worker.getStatus().numCachedWorkflows <= CACHE);
      }
    });
  },
);

test(
  'a goal that parks in a long run hands the waiting turn to a short new run, so its replay after eviction is short; the approved call runs once there',
  { timeout: 180_000 },
  async () => {
    await harness.withWorker(async () => {
      const { workspace, handle } = await startLongParkedGoal('long-parked');
      const parked = await parkedOn(handle);
      assert.equal(parked.counters.toolCalls, WRITES_BEFORE_PARKING);
      // Parked in a new run whose history is the hand-over and the wait: a few events, not hundreds.
      const current = await eventually(async () => {
        const description = await handle.describe();
        return description.runId === handle.firstExecutionRunId ? undefined : description;
      }, 60_000);
      const events = (
        await harness.client.workflow.getHandle(handle.workflowId, current.runId).fetchHistory()
      ).events;
      assert.ok(events && events.length < 30, `the parked run has ${events?.length} events`);
      const view = await handle.query(goalStatusQuery);
      assert.equal(view.continuedAsNew, 1);
      // `keel pending` and the Web UI find it by its search attributes, which the new run carries.
      await eventually(async () => {
        const query = `WorkflowId = '${handle.workflowId}' AND KeelPendingApprovals > 0 AND ExecutionStatus = 'Running'`;
        return (await harness.client.workflow.count(query)).count === 1 ? true : undefined;
      }, 30_000);
      assert.equal(view.pendingApprovals[0]?.callId, parked.pendingApprovals[0]?.callId);

      const call = parked.pendingApprovals[0];
      assert.ok(call);
      await handle.signal(approveSignal, { callId: call.callId, approver: 'ann' });
      const result = await handle.result();
      assert.equal(result.status, 'completed', result.reason);
      assert.equal((await handle.query(goalStatusQuery)).continuedAsNew, 1, 'no further hand-over');
      assert.equal(result.counters.toolCalls, WRITES_BEFORE_PARKING + 1);
      assert.equal(readFileSync(path.join(workspace, 'sent.txt'), 'utf8'), 'sent\n');
      assert.equal(
        readFileSync(path.join(workspace, `step-${WRITES_BEFORE_PARKING - 1}.txt`), 'utf8'),
        `${WRITES_BEFORE_PARKING - 1}\n`,
      );
    });
  },
);

const QUICK_ANSWER_MS = 2_000;

test(
  `a goal answered within ${PARKED_HANDOVER_DELAY_MS / 1000} s of parking in a long run stays in its run: a quick answer costs no hand-over`,
  { timeout: 180_000 },
  async () => {
    await harness.withWorker(async () => {
      const { workspace, handle } = await startLongParkedGoal('quick-answer');
      const parked = await parkedOn(handle);
      const call = parked.pendingApprovals[0];
      assert.ok(call);
      // Answered two seconds after parking: well within the delay, long enough for a delay of
      // milliseconds (or none) to show as a hand-over.
      assert.ok(QUICK_ANSWER_MS * 4 <= PARKED_HANDOVER_DELAY_MS);
      await new Promise((resolve) => setTimeout(resolve, QUICK_ANSWER_MS));
      await handle.signal(approveSignal, { callId: call.callId, approver: 'ann' });
      const result = await handle.result();
      assert.equal(result.status, 'completed', result.reason);
      assert.equal((await handle.query(goalStatusQuery)).continuedAsNew, 0);
      assert.equal((await handle.describe()).runId, handle.firstExecutionRunId);
      assert.equal(readFileSync(path.join(workspace, 'sent.txt'), 'utf8'), 'sent\n');
    });
  },
);
