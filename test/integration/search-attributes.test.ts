import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { GoalStatus } from '../../src/workflows/goal/lifecycle/state';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import { KeelSearchAttributes } from '../../src/workflows/goal/views/search-attribute-values';
import {
  createHarness,
  eventually,
  stopOwnServer,
  tempDirectory,
  workflowBundle,
  type Harness,
  workflowIdsMatching,
} from '../support/temporal';

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'visible',
        match: 'GOAL-VISIBLE',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo hi > hi.txt' } }] },
          { text: 'done' },
        ],
      },
      {
        // Reads run as local activities: their results come in a second activation of the task
        // that started them, which then asks the model again. The write is an ordinary activity.
        name: 'many-turns',
        match: 'GOAL-MANY-TURNS',
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: 'one.txt' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'two.txt' } }] },
          { toolCalls: [{ name: 'write_file', input: { path: 'three.txt', content: 'three' } }] },
          {
            toolCalls: [
              { name: 'read_file', input: { path: 'one.txt' } },
              { name: 'read_file', input: { path: 'three.txt' } },
            ],
          },
          { text: 'read and wrote' },
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

test('search attributes track the goal, so a visibility query lists every goal waiting for a human', async () => {
  await harness.withWorker(async () => {
    const workflowId = `visible-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      // With network allowed every run_command is irreversible: it waits for a human.
      args: [{ goal: 'GOAL-VISIBLE: write hi.txt', workspace: tempDirectory(), sandbox: { network: true } }],
    });
    const waiting = await eventually(async () => {
      const ids = await idsMatching(`KeelPendingApprovals > 0 AND KeelPhase = 'awaiting-approval'`);
      return ids.includes(workflowId) ? ids : undefined;
    });
    assert.ok(waiting.includes(workflowId));
    const described = await handle.describe();
    assert.equal(described.typedSearchAttributes.get(KeelSearchAttributes.status), 'running');
    assert.equal(described.typedSearchAttributes.get(KeelSearchAttributes.pendingApprovals), 1);

    const callId = (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId ?? '';
    await handle.signal(approveSignal, { callId, approver: 'test' });
    await handle.result();
    await eventually(async () => {
      const ids = await idsMatching(
        `KeelStatus = 'completed' AND KeelToolCalls = 1 AND KeelPendingApprovals = 0`,
      );
      return ids.includes(workflowId) || undefined;
    });
    const done = await handle.describe();
    assert.equal(done.typedSearchAttributes.get(KeelSearchAttributes.phase), 'done');
    assert.equal(done.typedSearchAttributes.get(KeelSearchAttributes.priority), 128);
    // the goal's priority (128, the middle band) is the Temporal priority of its model and tool calls
    const scheduled = ((await handle.fetchHistory()).events ?? []).flatMap((event) =>
      event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes] : [],
    );
    const work = scheduled.filter((attributes) =>
      ['callModel', 'executeTool'].includes(attributes.activityType?.name ?? ''),
    );
    assert.equal(work.length, 3);
    assert.ok(work.every((attributes) => attributes.priority?.priorityKey === 3));
  });
});

test("keel's search attributes are written at most once per workflow task, not for reads, ending with the final values", async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    writeFileSync(path.join(workspace, 'one.txt'), 'one');
    writeFileSync(path.join(workspace, 'two.txt'), 'two');
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `many-turns-${Date.now()}`,
      args: [{ goal: 'GOAL-MANY-TURNS: read and write', workspace }],
    });
    assert.equal((await handle.result()).status, GoalStatus.Completed);
    const history = await handle.fetchHistory();

    const keelUpsertsPerTask = new Map<string, number>();
    const toolCallsWritten: number[] = [];
    for (const event of history.events ?? []) {
      // No patches before the first release (each would cost a marker and an upsert of the SDK's
      // TemporalChangeVersion): every upsert is keel's own.
      assert.notEqual(event.markerRecordedEventAttributes?.markerName, 'core_patch');
      const upsert = event.upsertWorkflowSearchAttributesEventAttributes;
      const fields = upsert?.searchAttributes?.indexedFields ?? {};
      if (!upsert) continue;
      assert.ok(
        Object.keys(fields).every((field) => field.startsWith('Keel')),
        Object.keys(fields).join(', '),
      );
      const task = String(upsert.workflowTaskCompletedEventId);
      keelUpsertsPerTask.set(task, (keelUpsertsPerTask.get(task) ?? 0) + 1);
      const toolCalls = fields.KeelToolCalls?.data;
      if (toolCalls) toolCallsWritten.push(Number(Buffer.from(toolCalls).toString('utf8')));
    }
    // The start, the write's two phases (running-tools, then thinking again) and the end.
    assert.ok(keelUpsertsPerTask.size >= 4, 'the goal wrote its search attributes as it went');
    const repeated = [...keelUpsertsPerTask].filter(([, upserts]) => upserts > 1);
    assert.deepEqual(repeated, [], 'workflow tasks (completed event id, upserts) with more than one');
    // The count lags (goal/views/search-attribute-values.ts, dueFields): the reads wrote nothing, the first two rode along with the
    // write's phase change, and the end wrote the exact count.
    assert.deepEqual(toolCallsWritten, [0, 3, 5], 'KeelToolCalls as written, in order');

    const final = (await handle.describe()).typedSearchAttributes;
    assert.equal(final.get(KeelSearchAttributes.status), 'completed');
    assert.equal(final.get(KeelSearchAttributes.phase), 'done');
    assert.equal(final.get(KeelSearchAttributes.toolCalls), 5);
    assert.equal(final.get(KeelSearchAttributes.pendingApprovals), 0);

    // The writes' timing is workflow code too: the history replays as recorded.
    await Worker.runReplayHistory(
      { workflowBundle: await workflowBundle(), dataConverter: dataConverterFromEnv() },
      history,
      handle.workflowId,
    );
  });
});
