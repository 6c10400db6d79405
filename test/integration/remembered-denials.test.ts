import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import {
  decideApprovalUpdate,
  denySignal,
  goalStatusQuery,
  ledgerQuery,
  type GoalStatusView,
} from '../../src/workflows/goal/messages';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

// Issue 22: a human denies a call "and do not ask again for this". The goal remembers the intent
// (tool + targets): the same request in other words is refused at once, with no human asked,
// while a different intent is still asked.

const shell = (command: string) => ({ name: 'run_command', input: { command } });

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'respelled',
        match: 'GOAL-RESPELLED',
        turns: [
          { toolCalls: [shell('rm -rf build')] },
          { toolCalls: [shell('rm -r ./build'), shell('find build -delete')] },
          { toolCalls: [shell('rm -rf dist')] },
          { text: 'respelled finished' },
        ],
      },
      {
        name: 'held',
        match: 'GOAL-HELD',
        turns: [
          { toolCalls: [shell('touch made.txt && rm -r build')] },
          // Names no `build` a text could match: only the changes its layer holds show it is
          // the denied deletion (a respelling the text shows is refused before it runs).
          { toolCalls: [shell('x=build; rm -r "$x" && touch again.txt')] },
          { text: 'held finished' },
        ],
      },
      {
        name: 'same-turn',
        match: 'GOAL-SAME-TURN',
        turns: [
          { toolCalls: [shell('rm -rf build'), shell('rm -r ./build/')] },
          { text: 'same-turn finished' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

async function startGoal(goal: string, sandbox: { network: boolean } = { network: true }) {
  const workspace = tempDirectory('keel-ws-');
  mkdirSync(path.join(workspace, 'build'));
  writeFileSync(path.join(workspace, 'build', 'keep.txt'), 'keep');
  mkdirSync(path.join(workspace, 'dist'));
  const handle = await harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${goal.toLowerCase()}-${Date.now()}`,
    // With network allowed every run_command is irreversible: each waits for a human. Without,
    // a command runs on a copy-on-write layer and waits with its changes held when it deletes.
    // The denial guard counts these refusals too and would stop the goal at the third denial of
    // one intent (test/integration/guards.test.ts); here what is under test is the memory.
    args: [{ goal: `${goal}: clean up`, workspace, sandbox, guards: { denials: { stopAfterDenials: 10 } } }],
  });
  return { handle, workspace };
}

type Handle = Awaited<ReturnType<typeof startGoal>>['handle'];

async function pendingSummaries(handle: Handle): Promise<string[]> {
  const view: GoalStatusView = await handle.query(goalStatusQuery);
  return view.pendingApprovals.map((approval) => approval.summary);
}

/** The tool results the model was sent before its turn `turnIndex` (0-based). */
function resultsSentBefore(scenario: string, turnIndex: number): string {
  const request = harness.scripted.requests.find((r) => r.scenario === scenario && r.turnIndex === turnIndex);
  assert.ok(request, `the model was asked for turn ${turnIndex + 1} of ${scenario}`);
  return JSON.stringify(request.body.messages?.at(-1));
}

const ofKind = (events: LedgerEvent[], kind: string) => events.filter((event) => event.kind === kind);

test('denied with doNotAskAgain: the same intent in other words is refused without asking; another intent is asked', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await startGoal('GOAL-RESPELLED');
    const first = await eventually(async () => {
      const view = await handle.query(goalStatusQuery);
      return view.pendingApprovals.length === 1 ? view.pendingApprovals[0] : undefined;
    });
    assert.equal(first?.summary, 'run_command: rm -rf build');
    await handle.signal(denySignal, {
      callId: first?.callId ?? '',
      approver: 'carol',
      reason: 'the build dir stays',
      doNotAskAgain: true,
    });

    // The next thing a human is asked about is the other intent: the respelled calls never wait.
    const asked = await eventually(async () => {
      const summaries = await pendingSummaries(handle);
      return summaries.length > 0 ? summaries : undefined;
    });
    assert.deepEqual(asked, ['run_command: rm -rf dist']);

    const events = await handle.query(ledgerQuery, {});
    assert.deepEqual(
      ofKind(events, 'approval.requested').map((event) => event.data.call),
      ['rm -rf build', 'rm -rf dist'],
      'no human was asked about rm -r ./build or find build -delete',
    );
    const decided = ofKind(events, 'approval.decided');
    assert.equal(decided.length, 1);
    assert.equal(decided[0]?.data.doNotAskAgain, true);
    const refused = ofKind(events, 'approval.auto_denied');
    assert.deepEqual(
      refused.map((event) => event.data.call),
      ['rm -r ./build', 'find build -delete'],
    );
    for (const event of refused) {
      assert.equal(event.data.intentText, 'run_command on build');
      assert.deepEqual(event.data.intent, {
        tool: 'run_command',
        targets: ['build'],
        call: '',
        effects: ['build'],
      });
      assert.deepEqual(event.data.deniedEarlier, {
        callId: first?.callId,
        summary: 'run_command: rm -rf build',
        approver: 'carol',
        reason: 'the build dir stays',
        decidedAt: decided[0]?.at,
        via: 'signal',
      });
      assert.match(event.summary, /^refused without asking \(carol denied run_command on build/);
    }

    const sent = resultsSentBefore('respelled', 2);
    const refusal =
      /Not run: a human \(carol\) denied this intent \(run_command on build\) earlier and asked not to be asked again, so keel refused it without asking\. Their reason: the build dir stays/g;
    assert.equal(sent.match(refusal)?.length, 2, `both respelled calls refused in words: ${sent}`);
    assert.match(resultsSentBefore('respelled', 1), /denied by carol\. Reason: the build dir stays/);

    const view = await handle.query(goalStatusQuery);
    await handle.signal(denySignal, { callId: view.pendingApprovals[0]?.callId ?? '', approver: 'carol' });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.counters.approvalsRequested, 2);
    assert.equal(result.counters.approvalsDenied, 2);
    assert.equal(result.counters.approvalsAutoDenied, 2);
    assert.equal(result.counters.toolCalls, 0, 'nothing ran');
    assert.equal(existsSync(path.join(workspace, 'build', 'keep.txt')), true, 'build/ is still there');
    assert.equal(existsSync(path.join(workspace, 'dist')), true);
  });
});

test('a denial with doNotAskAgain by Update also refuses a call of the same turn still waiting; approve with it is refused', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await startGoal('GOAL-SAME-TURN');
    const waiting = await eventually(async () => {
      const view = await handle.query(goalStatusQuery);
      return view.pendingApprovals.length === 2 ? view.pendingApprovals : undefined;
    });
    const [first, second] = waiting;

    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId: first?.callId ?? '', approved: true, approver: 'dan', doNotAskAgain: true }],
      }),
      (error: unknown) =>
        error instanceof WorkflowUpdateFailedError &&
        /applies to denials only/.test(String(error.cause?.message)),
    );
    const receipt = await handle.executeUpdate(decideApprovalUpdate, {
      args: [{ callId: first?.callId ?? '', approved: false, approver: 'dan', doNotAskAgain: true }],
    });
    assert.equal(receipt.approved, false);
    // The other call is closed by that denial: nothing waits for a human any more.
    assert.deepEqual(
      await eventually(async () => ((await pendingSummaries(handle)).length === 0 ? [] : undefined), 10_000),
      [],
    );

    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.counters.approvalsRequested, 2, 'both were asked: they came in one turn');
    assert.equal(result.counters.approvalsDenied, 1, 'one human decision');
    assert.equal(result.counters.approvalsAutoDenied, 1, 'the other closed by it');
    const refused = ofKind(await handle.query(ledgerQuery, {}), 'approval.auto_denied');
    assert.deepEqual(
      refused.map((event) => event.data.callId),
      [second?.callId],
    );
    assert.match(
      resultsSentBefore('same-turn', 1),
      /a human \(dan\) denied this intent \(run_command on build\)/,
    );
    assert.equal(existsSync(path.join(workspace, 'build', 'keep.txt')), true);
  });
});

test('a call that ran on a copy-on-write layer and matches a remembered denial has its held changes discarded, unasked', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace } = await startGoal('GOAL-HELD', { network: false });
    const first = await eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]);
    assert.deepEqual(first.heldChanges?.deleted, ['build/'], 'the first call holds its deletion');
    await handle.signal(denySignal, { callId: first.callId, approver: 'erin', doNotAskAgain: true });

    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.counters.approvalsRequested, 1, 'only the first call was asked');
    assert.equal(result.counters.approvalsDenied, 1);
    assert.equal(result.counters.approvalsAutoDenied, 1);
    const refused = ofKind(await handle.query(ledgerQuery, {}), 'approval.auto_denied');
    assert.deepEqual(
      refused.map((event) => event.data.call),
      ['x=build; rm -r "$x" && touch again.txt'],
    );
    const sent = resultsSentBefore('held', 2);
    assert.match(sent, /Its changes were discarded; nothing of it reached the workspace/);
    assert.match(sent, /a human \(erin\) denied this intent \(run_command on build, made\.txt\)/);
    // A denied held call ran on its layer, yet its result never reads as applied: the denial
    // leads, and the layer's "Exit code 0 …" comes after it, labelled as context only.
    for (const [turn, denial] of [
      [1, 'Not applied: denied by erin.'],
      [2, 'Not applied: a human (erin) denied this intent'],
    ] as const) {
      const text = resultsSentBefore('held', turn);
      const denied = text.indexOf(denial);
      const context = text.indexOf('For context only');
      assert.ok(denied !== -1 && denied < context && context < text.indexOf('Exit code 0'), text);
    }
    assert.equal(existsSync(path.join(workspace, 'build', 'keep.txt')), true, 'build/ is still there');
    for (const file of ['made.txt', 'again.txt'])
      assert.equal(existsSync(path.join(workspace, file)), false, `no held change applied: ${file}`);
  });
});
