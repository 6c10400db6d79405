import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import {
  approveSignal,
  decideApprovalUpdate,
  denySignal,
  goalStatusQuery,
  type GoalStatusView,
} from '../../src/workflows/goal/messages';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

const appendLine = (file: string) => ({ name: 'run_command', input: { command: `echo ran >> ${file}` } });

function oneIrreversibleStep(name: string): ScenarioInput {
  return {
    name,
    match: `GOAL-${name.toUpperCase()}`,
    turns: [{ toolCalls: [appendLine('effects.txt')] }, { text: `${name} finished` }],
  };
}

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      oneIrreversibleStep('by-signal'),
      oneIrreversibleStep('by-update'),
      oneIrreversibleStep('denied'),
      oneIrreversibleStep('timed-out'),
      {
        name: 'slow',
        match: 'GOAL-SLOW',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'sleep 3 && echo slept > slept.txt' } }] },
          { text: 'slow finished' },
        ],
      },
      {
        name: 'several',
        match: 'GOAL-SEVERAL',
        turns: [
          {
            toolCalls: [
              appendLine('first.txt'),
              appendLine('second.txt'),
              { name: 'write_file', input: { path: 'third.txt', content: 'mutating' } },
              { name: 'list_dir', input: { path: '.' } },
            ],
          },
          { text: 'several finished' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

async function startGoal(goal: string, extra: Record<string, unknown> = {}) {
  const workspace = tempDirectory('keel-ws-');
  const handle = await harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${goal.toLowerCase()}-${Date.now()}`,
    // With network allowed every run_command is irreversible: the appends wait for a human.
    args: [{ goal: `${goal}: do the irreversible thing`, workspace, sandbox: { network: true }, ...extra }],
  });
  return { handle, workspace };
}

async function pending(
  handle: Awaited<ReturnType<typeof startGoal>>['handle'],
  count = 1,
): Promise<GoalStatusView> {
  return eventually(async () => {
    const view = await handle.query(goalStatusQuery);
    return view.pendingApprovals.length === count ? view : undefined;
  });
}

function toolResultSent(scenario: string): string {
  const request = harness.scripted.requests.find((r) => r.scenario === scenario && r.turnIndex === 1);
  assert.ok(request, `the model was asked for turn 2 of ${scenario}`);
  return JSON.stringify(request.body.messages?.at(-1));
}

test('an irreversible call waits until approved by signal', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await startGoal('GOAL-BY-SIGNAL');
    const view = await pending(handle);
    const approval = view.pendingApprovals[0];
    assert.equal(approval?.reversibility, 'irreversible');
    assert.equal(view.phase, 'awaiting-approval');
    assert.equal(existsSync(path.join(workspace, 'effects.txt')), false, 'nothing ran before approval');
    await handle.signal(approveSignal, { callId: approval?.callId ?? '', approver: 'ann' });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(readFileSync(path.join(workspace, 'effects.txt'), 'utf8'), 'ran\n');
    assert.equal(result.counters.approvalsGranted, 1);
  });
});

test('an Update approves, and the validator refuses unknown and already-decided call ids', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await startGoal('GOAL-BY-UPDATE');
    const callId = (await pending(handle)).pendingApprovals[0]?.callId ?? '';

    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId: 'toolu_nope', approved: true, approver: 'bob' }],
      }),
      (error: unknown) =>
        error instanceof WorkflowUpdateFailedError &&
        /no pending approval/.test(String(error.cause?.message)),
    );
    const receipt = await handle.executeUpdate(decideApprovalUpdate, {
      args: [{ callId, approved: true, approver: 'bob', reason: 'looks fine' }],
    });
    assert.deepEqual(receipt, {
      callId,
      approved: true,
      toolSummary: 'run_command: echo ran >> effects.txt',
    });
    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, { args: [{ callId, approved: false, approver: 'bob' }] }),
      (error: unknown) =>
        error instanceof WorkflowUpdateFailedError && /already decided/.test(String(error.cause?.message)),
    );
    assert.equal((await handle.result()).status, 'completed');
    assert.equal(readFileSync(path.join(workspace, 'effects.txt'), 'utf8'), 'ran\n');
  });
});

test('a denial reaches the model as a result and nothing runs', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await startGoal('GOAL-DENIED');
    const callId = (await pending(handle)).pendingApprovals[0]?.callId ?? '';
    await handle.signal(denySignal, { callId, approver: 'carol', reason: 'too risky' });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.counters.approvalsDenied, 1);
    assert.equal(result.counters.toolCalls, 0);
    assert.equal(existsSync(path.join(workspace, 'effects.txt')), false);
    assert.match(toolResultSent('denied'), /denied by carol\. Reason: too risky/);
  });
});

test('an approval that times out is a denial the model reads', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await startGoal('GOAL-TIMED-OUT', { limits: { approvalTimeoutMs: 1500 } });
    const result = await handle.result();
    assert.equal(result.counters.approvalsTimedOut, 1);
    assert.equal(existsSync(path.join(workspace, 'effects.txt')), false);
    assert.match(toolResultSent('timed-out'), /approval timed out/);
  });
});

test('several pending approvals at once, decided independently; read-only calls do not wait', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await startGoal('GOAL-SEVERAL', { approvalPolicy: 'ask' });
    const view = await pending(handle, 3);
    assert.deepEqual(
      view.pendingApprovals.map((approval) => approval.reversibility),
      ['irreversible', 'irreversible', 'mutating'],
    );
    await eventually(async () => (await handle.query(goalStatusQuery)).counters.toolCalls === 1); // list_dir ran
    const [first, second, third] = view.pendingApprovals;
    await handle.signal(approveSignal, { callId: second?.callId ?? '', approver: 'ann' });
    await handle.executeUpdate(decideApprovalUpdate, {
      args: [{ callId: first?.callId ?? '', approved: false, approver: 'ann' }],
    });
    await handle.signal(approveSignal, { callId: third?.callId ?? '', approver: 'ann' });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(existsSync(path.join(workspace, 'first.txt')), false);
    assert.equal(readFileSync(path.join(workspace, 'second.txt'), 'utf8'), 'ran\n');
    assert.equal(readFileSync(path.join(workspace, 'third.txt'), 'utf8'), 'mutating');
    assert.equal(result.counters.approvalsRequested, 3);
    assert.equal(result.counters.approvalsGranted, 2);
    assert.equal(result.counters.approvalsDenied, 1);
  });
});

test('a long command heartbeats often enough for a short heartbeat timeout, so it is not taken for dead', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await startGoal('GOAL-SLOW', { timing: { heartbeatTimeoutMs: 1000 } });
    const callId = (await pending(handle)).pendingApprovals[0]?.callId ?? '';
    await handle.signal(approveSignal, { callId, approver: 'ann' });
    const result = await handle.result();
    assert.equal(result.counters.unknownOutcomes, 0);
    assert.equal(readFileSync(path.join(workspace, 'slept.txt'), 'utf8'), 'slept\n');
  });
});
