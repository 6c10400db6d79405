import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { goalResult, goalHandle } from '../../src/client/goal-client';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import {
  approveSignal,
  forkGoalUpdate,
  goalStatusQuery,
  ledgerQuery,
  REWIND_NOT_ACKNOWLEDGED,
  rewindGoalUpdate,
} from '../../src/workflows/goal/messages';
import { of } from '../support/delegation-scenarios';
import { invoiceTool } from '../support/invoice-tool';
import { lateWriterTool } from '../support/late-writer-tool';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Fork and rewind as Updates (issue 48), what a UI calls instead of the keel CLI: the goal's
 * worker replays the goal to the turn and starts the fork, or takes the goal itself back and goes
 * on as a new run. Refusals are the Update's own failure; the goal they were sent to goes on.
 */

const write = (file: string, content: string) => ({ name: 'write_file', input: { path: file, content } });
const hold = { when: 'TRY-HOLD', fromTurn: 1, turns: Array.from({ length: 6 }, () => ({ text: 'holding' })) };

const invoices = invoiceTool();
const lateWriter = lateWriterTool({ lateByMs: 1_500, giveUpAfterMs: 60_000 });

let harness: Harness;

before(async () => {
  harness = await createHarness({
    tools: [invoices.tool, lateWriter.tool],
    scenarios: [
      {
        name: 'parked',
        match: 'GOAL-UPDATE-PARKED',
        turns: [
          { toolCalls: [write('a.txt', 'one\n')] },
          { toolCalls: [write('a.txt', 'two\n')] },
          // A deletion waits for a human: the goal parks on turn 3.
          { toolCalls: [{ name: 'run_command', input: { command: 'rm gone.txt' } }] },
          { text: 'done A' },
        ],
        branches: [hold],
      },
      {
        name: 'invoice',
        match: 'GOAL-UPDATE-INVOICE',
        turns: [
          { toolCalls: [write('draft.txt', 'draft\n')] },
          { toolCalls: [{ name: 'send_invoice', input: { customer: 'acme' } }] },
          { toolCalls: [{ name: 'run_command', input: { command: 'rm draft.txt' } }] },
          { text: 'invoiced and tidied' },
        ],
        branches: [{ when: 'TRY-KEEP', fromTurn: 2, turns: [{ text: 'kept the draft' }] }],
      },
      {
        name: 'late',
        match: 'GOAL-UPDATE-LATE',
        turns: [
          { toolCalls: [write('a.txt', 'one\n')] },
          { toolCalls: [{ name: 'late_write', input: { path: 'late.txt' } }] },
          { text: 'wrote late' },
        ],
        branches: [{ when: 'TRY-STOP', fromTurn: 2, turns: [{ text: 'stopped' }] }],
      },
    ],
  });
});

after(async () => {
  await harness?.close();
  await stopOwnServer();
});

function freshWorkspace(prefix: string): string {
  const workspace = path.join(tempDirectory(prefix), 'ws');
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, 'gone.txt'), 'still here\n');
  return workspace;
}

/** The files of a folder, name → content (no subfolders in these goals). */
function files(folder: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(folder)
      .sort()
      .map((name) => [name, readFileSync(path.join(folder, name), 'utf8')]),
  );
}

async function parkedOn(workflowId: string, toolName: string): Promise<string> {
  return eventually(async () => {
    const view = await goalHandle(harness.client, workflowId).query(goalStatusQuery);
    return view.pendingApprovals.find((call) => call.toolName === toolName)?.callId;
  });
}

async function updateFailure(send: Promise<unknown>): Promise<{ type: string | undefined; message: string }> {
  const error = await send.then(
    () => assert.fail('the Update was expected to fail'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof WorkflowUpdateFailedError, String(error));
  const cause = error.cause as { type?: string; message: string } | undefined;
  return { type: cause?.type, message: cause?.message ?? '' };
}

test(
  'forkGoal: a running goal forks at a turn; the fork has the files of then; a turn it never had is refused',
  {
    timeout: 180_000,
  },
  async () => {
    await harness.withWorker(async () => {
      const workspace = freshWorkspace('keel-update-fork-');
      const workflowId = `goal-update-fork-${Date.now()}`;
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [{ goal: 'GOAL-UPDATE-PARKED: change a file', workspace }],
      });
      const waiting = await parkedOn(workflowId, 'run_command');
      assert.deepEqual(files(workspace), { 'a.txt': 'two\n', 'gone.txt': 'still here\n' });

      const forkId = `${workflowId}-ui`;
      const receipt = await handle.executeUpdate(forkGoalUpdate, {
        args: [{ atTurn: 2, say: 'TRY-HOLD', id: forkId, by: 'ui' }],
      });
      assert.equal(receipt.forkId, forkId);
      assert.equal(receipt.turn, 2);
      assert.equal(path.dirname(receipt.workspace), path.dirname(workspace), 'beside the original');
      const fork = goalHandle(harness.client, forkId);
      assert.equal((await goalResult(fork)).finalText, 'holding');
      // Turn 2 began with turn 1's a.txt: the fork's files are those, not the original's now.
      assert.deepEqual(files(receipt.workspace), { 'a.txt': 'one\n', 'gone.txt': 'still here\n' });
      assert.deepEqual((await fork.describe()).searchAttributes.KeelForkOf, [workflowId]);
      assert.equal(of(await fork.query(ledgerQuery, {}), 'goal.forked')[0]?.data.by, 'ui');

      // The original goes on as it was: still waiting, its files its own, the fork in its ledger.
      const view = await handle.query(goalStatusQuery);
      assert.deepEqual(
        view.pendingApprovals.map((call) => call.callId),
        [waiting],
      );
      assert.deepEqual(files(workspace), { 'a.txt': 'two\n', 'gone.txt': 'still here\n' });
      const started = of(await handle.query(ledgerQuery, {}), 'goal.fork_started');
      assert.deepEqual(started[0]?.data, { forkId, turn: 2, workspace: receipt.workspace, by: 'ui' });

      const missing = await updateFailure(
        handle.executeUpdate(forkGoalUpdate, { args: [{ atTurn: 99, by: 'ui' }] }),
      );
      assert.match(missing.message, /has begun 3 turn\(s\); there is no turn 99 yet/);
      // Another goal's id is not taken for the fork: the fork's start is refused, nothing else.
      const taken = await updateFailure(
        handle.executeUpdate(forkGoalUpdate, { args: [{ atTurn: 2, id: workflowId, by: 'ui' }] }),
      );
      assert.equal(taken.type, 'ForkRefused');
      assert.match(taken.message, new RegExp(`a goal with id ${workflowId} exists already`));
      assert.equal(of(await handle.query(ledgerQuery, {}), 'goal.fork_started').length, 1);
      const invalid = await updateFailure(handle.executeUpdate(forkGoalUpdate, { args: [{ atTurn: 0 }] }));
      assert.match(invalid.message, /invalid request/);
      await handle.signal(approveSignal, { callId: waiting, approver: 'test' });
      assert.equal((await goalResult(handle)).finalText, 'done A');
    });
  },
);

test(
  'rewindGoal: refused while irreversible calls since are not acknowledged; acknowledged, the goal goes back in place',
  {
    timeout: 180_000,
  },
  async () => {
    await harness.withWorker(async () => {
      const workspace = freshWorkspace('keel-update-rewind-');
      const workflowId = `goal-update-rewind-${Date.now()}`;
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [
          {
            goal: 'GOAL-UPDATE-INVOICE: draft, send, tidy',
            workspace,
            tools: ['write_file', 'run_command', 'send_invoice'],
          },
        ],
      });
      await handle.signal(approveSignal, {
        callId: await parkedOn(workflowId, 'send_invoice'),
        approver: 'test',
      });
      const tidy = await parkedOn(workflowId, 'run_command');
      assert.equal(invoices.sent(), 1);
      const firstRun = (await handle.describe()).runId;

      const refused = await updateFailure(
        handle.executeUpdate(rewindGoalUpdate, { args: [{ toTurn: 2, say: 'TRY-KEEP', by: 'ui' }] }),
      );
      assert.equal(refused.type, REWIND_NOT_ACKNOWLEDGED);
      assert.match(refused.message, /not rewound: 1 irreversible call\(s\) since turn 2, .*send_invoice/);
      assert.equal((await handle.describe()).runId, firstRun, 'nothing changed');
      assert.deepEqual(
        (await handle.query(goalStatusQuery)).pendingApprovals.map((call) => call.callId),
        [tidy],
      );

      const receipt = await handle.executeUpdate(rewindGoalUpdate, {
        args: [{ toTurn: 2, say: 'TRY-KEEP', by: 'ui', acknowledgeIrreversible: true }],
      });
      assert.equal(receipt.turn, 2);
      assert.equal(receipt.workspace, workspace);
      assert.equal(receipt.irreversibleAfter[0]?.toolName, 'send_invoice');
      const rewound = goalHandle(harness.client, workflowId);
      assert.equal((await goalResult(rewound)).finalText, 'kept the draft');
      assert.notEqual((await rewound.describe()).runId, firstRun, 'a new run of the same goal');
      assert.equal(invoices.sent(), 1, 'the invoice was not sent again');
      assert.deepEqual(files(workspace), { 'draft.txt': 'draft\n', 'gone.txt': 'still here\n' });
      assert.ok(existsSync(path.join(workspace, 'draft.txt')), 'the tidy-up never ran');
      const ledger = await rewound.query(ledgerQuery, {});
      assert.equal(of(ledger, 'goal.rewound')[0]?.data.by, 'ui');
      assert.equal(
        of(ledger, 'approval.requested').filter((event) => event.data.toolName === 'run_command').length,
        0,
      );
    });
  },
);

test(
  'rewindGoal waits for the call still running: a tool that writes after it was told to stop writes before the restore',
  {
    timeout: 180_000,
  },
  async () => {
    await harness.withWorker(async () => {
      const workspace = freshWorkspace('keel-update-rewind-late-');
      const workflowId = `goal-update-rewind-late-${Date.now()}`;
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [{ goal: 'GOAL-UPDATE-LATE: write slowly', workspace, tools: ['write_file', 'late_write'] }],
      });
      await lateWriter.running;
      const receipt = await handle.executeUpdate(rewindGoalUpdate, {
        args: [{ toTurn: 2, say: 'TRY-STOP', by: 'ui' }],
      });
      assert.equal(receipt.turn, 2);
      const rewound = goalHandle(harness.client, workflowId);
      assert.equal((await goalResult(rewound)).finalText, 'stopped');
      // The old run's call wrote late.txt once told to stop; the restore came after it, so it is gone.
      assert.equal(lateWriter.finished(), true, 'the restore waited for the call to end');
      assert.deepEqual(files(workspace), { 'a.txt': 'one\n', 'gone.txt': 'still here\n' });
      const restoredEvent = of(await rewound.query(ledgerQuery, {}), 'goal.rewound')[0];
      assert.equal((restoredEvent?.data.restored as { waitedForCalls?: number }).waitedForCalls, 1);
      assert.match(restoredEvent?.summary ?? '', /once the 1 call\(s\) still running there had ended/);
    });
  },
);
