import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { goalStatusQuery, userMessageSignal } from '../../src/workflows/goal/messages';
import { FailureType } from '../../src/workflows/common/failure-types';
import { resultOfFailure } from '../../src/client/goal-client';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'parallel',
        match: 'GOAL-PARALLEL',
        turns: [
          {
            text: 'Reading both notes at once.',
            toolCalls: [
              { name: 'read_file', input: { path: 'notes/a.txt' } },
              { name: 'read_file', input: { path: 'notes/b.txt' } },
              { name: 'list_dir', input: { path: 'notes' } },
            ],
          },
          { toolCalls: [{ name: 'write_file', input: { path: 'summary.txt', content: 'A and B' } }] },
          { text: 'Done: summary.txt says A and B.' },
        ],
      },
      {
        name: 'escape',
        match: 'GOAL-ESCAPE',
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: '../../etc/passwd' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'inside.txt' } }] },
          { text: 'Read the file inside the workspace instead.' },
        ],
      },
      {
        name: 'follow-up',
        match: 'GOAL-FOLLOW-UP',
        turns: [
          { text: 'First task done.' },
          { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          { text: 'Second task done too.' },
        ],
      },
      {
        name: 'limited',
        match: 'GOAL-LIMIT',
        turns: [
          {
            toolCalls: [
              { name: 'list_dir', input: { path: '.' } },
              { name: 'list_dir', input: { path: '.' } },
            ],
          },
          { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          { text: 'never reached' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function workspaceWithNotes(): string {
  const workspace = tempDirectory('keel-ws-');
  mkdirSync(path.join(workspace, 'notes'));
  writeFileSync(path.join(workspace, 'notes/a.txt'), 'note A\n');
  writeFileSync(path.join(workspace, 'notes/b.txt'), 'note B\n');
  writeFileSync(path.join(workspace, 'inside.txt'), 'inside the workspace\n');
  return workspace;
}

test('a goal completes with several tool calls, those of one turn in parallel', async () => {
  const workspace = workspaceWithNotes();
  const result = await harness.withWorker(() =>
    harness.client.workflow.execute(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `parallel-${Date.now()}`,
      args: [{ goal: 'GOAL-PARALLEL: summarise the notes', workspace }],
    }),
  );
  assert.equal(result.status, 'completed');
  assert.equal(result.finalText, 'Done: summary.txt says A and B.');
  assert.equal(result.counters.toolCalls, 4);
  assert.deepEqual(result.counters.toolCallsByTool, { read_file: 2, list_dir: 1, write_file: 1 });
  assert.equal(result.counters.toolCallsByReversibility['read-only'], 3);
  assert.equal(result.counters.toolCallsByReversibility.mutating, 1);
  assert.equal(result.counters.modelTurns, 3);

  // The second request carries the three results, in the order the model asked for them.
  const second = harness.scripted.requests.find((r) => r.scenario === 'parallel' && r.turnIndex === 1);
  const lastMessage = second?.body.messages?.at(-1) as { content: Array<{ type: string; content?: string }> };
  const results = lastMessage.content.filter((block) => block.type === 'tool_result');
  assert.equal(results.length, 3);
  assert.match(results[0]?.content ?? '', /note A/);
  assert.match(results[1]?.content ?? '', /note B/);
  assert.match(results[2]?.content ?? '', /a\.txt/);
});

test('the calls of one turn run together: its three reads as local activities in one workflow task', async () => {
  const workspace = workspaceWithNotes();
  const workflowId = `parallel-history-${Date.now()}`;
  await harness.withWorker(() =>
    harness.client.workflow.execute(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: 'GOAL-PARALLEL: summarise the notes again', workspace }],
    }),
  );
  const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
  const kinds = (history.events ?? []).flatMap((event) => {
    if (event.workflowTaskCompletedEventAttributes) return ['task'];
    // A quick read runs as a local activity: one marker in the task that ran it. (The start's
    // lookups and the check of calls that need the worker are local activities too.)
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = marker.details?.data?.payloads?.[0]?.data ?? new Uint8Array();
      const { activity_type: type } = JSON.parse(Buffer.from(data).toString('utf8')) as {
        activity_type: string;
      };
      return [type === 'executeTool' ? 'read' : type];
    }
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'executeTool')
      return ['scheduled'];
    if (event.activityTaskCompletedEventAttributes) return ['completed'];
    return [];
  });
  // After model turn 1, one workflow task runs the three reads: their markers follow it together,
  // with no check before them (the workflow prepares reads itself, see goal/tool-calls/prepared-calls.ts).
  const firstRead = kinds.indexOf('read');
  assert.deepEqual(kinds.slice(firstRead - 1, firstRead + 3), ['task', 'read', 'read', 'read']);
  assert.ok(!kinds.includes('prepareToolCalls'), 'reads and a write under auto need no check');
  // The write of turn 2 is an ordinary activity.
  assert.ok(kinds.slice(firstRead + 3).includes('scheduled'));
});

test('a path escaping the workspace is refused and the goal goes on', async () => {
  const workspace = workspaceWithNotes();
  const result = await harness.withWorker(() =>
    harness.client.workflow.execute(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `escape-${Date.now()}`,
      args: [{ goal: 'GOAL-ESCAPE: read the password file', workspace }],
    }),
  );
  assert.equal(result.status, 'completed');
  const second = harness.scripted.requests.find((r) => r.scenario === 'escape' && r.turnIndex === 1);
  const refusal = JSON.stringify(second?.body.messages?.at(-1));
  assert.match(refusal, /is_error/);
  assert.match(refusal, /outside the workspace/i);
  assert.doesNotMatch(refusal, /root:/); // nothing of /etc/passwd leaked
  const third = harness.scripted.requests.find((r) => r.scenario === 'escape' && r.turnIndex === 2);
  assert.match(JSON.stringify(third?.body.messages?.at(-1)), /inside the workspace/);
});

test('malformed input fails the workflow with a clear, non-retryable error', async () => {
  await harness.withWorker(async () => {
    const error = await harness.client.workflow
      .execute(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId: `malformed-${Date.now()}`,
        args: [{ goal: '', workspace: 'relative/path', limits: { maxToolCalls: -1 } }],
      })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    assert.ok(error instanceof WorkflowFailedError, `expected WorkflowFailedError, got ${String(error)}`);
    const cause = error.cause;
    assert.ok(cause instanceof ApplicationFailure);
    assert.equal(cause.type, FailureType.InvalidGoalInput);
    assert.equal(cause.nonRetryable, true);
    assert.match(cause.message, /goal: goal text must not be empty/);
    assert.match(cause.message, /workspace: workspace must be an absolute path/);
    assert.match(cause.message, /limits\.maxToolCalls/);
  });
});

test('a follow-up message starts a new task inside the running goal', async () => {
  const workspace = workspaceWithNotes();
  const result = await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `follow-up-${Date.now()}`,
      args: [{ goal: 'GOAL-FOLLOW-UP: first task', workspace, followUpWindowMs: 8_000 }],
    });
    await eventually(async () => (await handle.query(goalStatusQuery)).phase === 'awaiting-follow-up');
    await handle.signal(userMessageSignal, { text: 'now list the workspace' });
    return handle.result();
  });
  // Each final answer opens the window again; with no second message the goal completes.
  assert.equal(result.status, 'completed');
  assert.equal(result.tasks, 2);
  assert.equal(result.finalText, 'Second task done too.');
  const request = harness.scripted.requests.find((r) => r.scenario === 'follow-up' && r.turnIndex === 1);
  assert.match(JSON.stringify(request?.body.messages?.at(-1)), /now list the workspace/);
});

test('the tool-call limit ends the goal with status limit', async () => {
  const workspace = workspaceWithNotes();
  const error = await harness.withWorker(() =>
    harness.client.workflow
      .execute(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId: `limit-${Date.now()}`,
        args: [{ goal: 'GOAL-LIMIT: list forever', workspace, limits: { maxToolCalls: 2 } }],
      })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      ),
  );
  // A limit fails the workflow with a named type; the structured result rides in its details.
  assert.ok(error instanceof WorkflowFailedError, `expected WorkflowFailedError, got ${String(error)}`);
  assert.ok(error.cause instanceof ApplicationFailure);
  assert.equal(error.cause.type, FailureType.GoalLimitReached);
  assert.equal(error.cause.nonRetryable, true);
  const result = resultOfFailure(error);
  assert.ok(result);
  assert.equal(result.status, 'limit');
  assert.match(result.reason ?? '', /tool-call limit of 2/);
  assert.equal(result.counters.toolCalls, 2);
});
