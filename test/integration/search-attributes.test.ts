import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { goalWorkflow } from '../../src/workflows/goal/goal-workflow';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import { KeelSearchAttributes } from '../../src/workflows/goal/search-attribute-values';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

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
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

async function idsMatching(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of harness.client.workflow.list({ query })) ids.push(execution.workflowId);
  return ids;
}

test('search attributes track the goal, so a visibility query lists every goal waiting for a human', async () => {
  await harness.withWorker(async () => {
    const workflowId = `visible-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: 'GOAL-VISIBLE: write hi.txt', workspace: tempDirectory() }],
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
