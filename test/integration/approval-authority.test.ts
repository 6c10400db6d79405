import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import { generateApprovalKeyPair, loadSigningKey, signDecision } from '../../src/client/approval-keys';
import { decideApproval } from '../../src/client/goal-client';
import { FailureType } from '../../src/workflows/common/failure-types';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import {
  approveSignal,
  decideApprovalUpdate,
  denySignal,
  goalStatusQuery,
  ledgerQuery,
} from '../../src/workflows/goal/messages';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

// Forged, unauthorized, malformed and misaddressed decisions change nothing: a signal leaves an
// approval.ignored ledger event (its sender saw "succeeded"), the Update is refused at once with
// a named, non-retryable failure, and the call stays pending until a valid decision arrives.

function oneIrreversibleStep(name: string): ScenarioInput {
  return {
    name,
    match: `GOAL-${name.toUpperCase()}`,
    turns: [
      { toolCalls: [{ name: 'run_command', input: { command: 'echo ran >> effects.txt' } }] },
      { text: `${name} finished` },
    ],
  };
}

let harness: Harness;
const created: string[] = [];

before(async () => {
  harness = await createHarness({
    scenarios: ['refused-signals', 'refused-updates', 'forged', 'signed'].map(oneIrreversibleStep),
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
  for (const directory of created) rmSync(directory, { recursive: true, force: true });
});

async function startGoal(goal: string, extra: Record<string, unknown>) {
  const workspace = tempDirectory('keel-ws-');
  created.push(workspace);
  const handle = await harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${goal.toLowerCase()}-${Date.now()}`,
    // With network allowed every run_command is irreversible: the appends wait for a human.
    args: [{ goal: `${goal}: do the irreversible thing`, workspace, sandbox: { network: true }, ...extra }],
  });
  const callId = await eventually(
    async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
  );
  return { handle, workspace, callId };
}

type Handle = Awaited<ReturnType<typeof startGoal>>['handle'];

async function ignoredEvents(handle: Handle, count: number): Promise<LedgerEvent[]> {
  return eventually(async () => {
    const events = (await handle.query(ledgerQuery, {})).filter((event) => event.kind === 'approval.ignored');
    return events.length === count ? events : undefined;
  });
}

async function stillPending(handle: Handle, callId: string): Promise<void> {
  const view = await handle.query(goalStatusQuery);
  assert.deepEqual(
    view.pendingApprovals.map((approval) => approval.callId),
    [callId],
    'the call still waits',
  );
  assert.equal(view.counters.approvalsGranted + view.counters.approvalsDenied, 0, 'nothing was decided');
}

test('malformed, misaddressed and unauthorized signals are ledger events and change nothing', async () => {
  await harness.withWorker(async () => {
    const { handle, workspace, callId } = await startGoal('GOAL-REFUSED-SIGNALS', {
      approvers: { irreversible: ['alice'] },
    });
    await handle.signal(approveSignal, { callId } as never); // no approver
    await handle.signal(approveSignal, { callId: 'toolu_nope', approver: 'alice' });
    await handle.signal(denySignal, { callId, approver: 'mallory', reason: 'let me' });
    const events = await ignoredEvents(handle, 3);
    assert.deepEqual(
      events.map((event) => [event.data.reason, event.data.callId, event.data.approver]),
      [
        ['malformed-payload', callId, undefined],
        ['unknown-call', 'toolu_nope', 'alice'],
        ['unauthorized-approver', callId, 'mallory'],
      ],
    );
    assert.match(
      events[2]?.summary ?? '',
      /ignored decision from mallory: mallory may not decide irreversible calls/,
    );
    await stillPending(handle, callId);
    const view = await handle.query(goalStatusQuery);
    assert.equal(view.counters.approvalsIgnored, 3);
    assert.equal(view.lastIgnoredDecision?.reason, 'unauthorized-approver');

    await handle.signal(approveSignal, { callId, approver: 'alice' });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.counters.approvalsGranted, 1);
    assert.equal(readFileSync(path.join(workspace, 'effects.txt'), 'utf8'), 'ran\n');
    const decided = (await handle.query(ledgerQuery, {})).find((event) => event.kind === 'approval.decided');
    assert.equal(decided?.data.approver, 'alice');
  });
});

test('the Update refuses unknown ids and unauthorized approvers with a named non-retryable failure', async () => {
  await harness.withWorker(async () => {
    const { handle, callId } = await startGoal('GOAL-REFUSED-UPDATES', {
      approvers: { irreversible: ['alice'] },
    });
    const refusedWith = (pattern: RegExp, reason: string) => (error: unknown) => {
      assert.ok(error instanceof WorkflowUpdateFailedError, String(error));
      const cause = error.cause;
      assert.ok(cause instanceof ApplicationFailure, String(cause));
      assert.equal(cause.type, FailureType.ApprovalRefused);
      assert.equal(cause.nonRetryable, true);
      assert.match(cause.message, pattern);
      assert.equal((cause.details?.[0] as { reason?: string } | undefined)?.reason, reason);
      return true;
    };
    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId: 'toolu_nope', approved: true, approver: 'alice' }],
      }),
      refusedWith(/no pending approval with call id toolu_nope/, 'unknown-call'),
    );
    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, { args: [{ callId, approved: true, approver: 'mallory' }] }),
      refusedWith(/mallory may not decide irreversible calls/, 'unauthorized-approver'),
    );
    await stillPending(handle, callId);
    // A validator's refusal leaves no history, so the ledger has nothing to show for it.
    assert.equal(
      (await handle.query(ledgerQuery, {})).filter((event) => event.kind === 'approval.ignored').length,
      0,
    );
    const receipt = await handle.executeUpdate(decideApprovalUpdate, {
      args: [{ callId, approved: false, approver: 'alice', reason: 'no' }],
    });
    assert.equal(receipt.approved, false);
    assert.equal((await handle.result()).counters.approvalsDenied, 1);
  });
});

test('a forged or unsigned decision on a goal that requires signatures changes nothing', async () => {
  const alice = generateApprovalKeyPair();
  const mallory = generateApprovalKeyPair();
  await harness.withWorker(async () => {
    const { handle, callId } = await startGoal('GOAL-FORGED', {
      approvalSignatures: { scheme: 'ed25519', keys: { alice: alice.publicKey } },
    });
    const forged = signDecision(loadSigningKey(mallory.privateKeyPem), {
      workflowId: handle.workflowId,
      callId,
      approved: true,
      approver: 'alice',
    });
    await handle.signal(approveSignal, { callId, approver: 'alice', signature: forged });
    await handle.signal(approveSignal, { callId, approver: 'alice' });
    const events = await ignoredEvents(handle, 2);
    assert.deepEqual(
      events.map((event) => event.data.reason),
      ['bad-signature', 'missing-signature'],
    );
    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId, approved: true, approver: 'alice', signature: forged }],
      }),
      (error: unknown) =>
        error instanceof WorkflowUpdateFailedError &&
        error.cause instanceof ApplicationFailure &&
        error.cause.type === FailureType.ApprovalRefused,
    );
    await stillPending(handle, callId);
    await handle.cancel();
  });
});

test('a decision signed with the approver key approves it', { timeout: 120_000 }, async () => {
  const alice = generateApprovalKeyPair();
  await harness.withWorker(async () => {
    const { handle, workspace, callId } = await startGoal('GOAL-SIGNED', {
      approvalSignatures: { scheme: 'ed25519', keys: { alice: alice.publicKey } },
    });
    const signingKey = loadSigningKey(alice.privateKeyPem);
    // Signed for a deny, sent as an approve: refused.
    const forDeny = signDecision(signingKey, {
      workflowId: handle.workflowId,
      callId,
      approved: false,
      approver: 'alice',
    });
    await handle.signal(approveSignal, { callId, approver: 'alice', signature: forDeny });
    assert.equal((await ignoredEvents(handle, 1))[0]?.data.reason, 'bad-signature');
    await decideApproval(handle, { callId, approved: true, approver: 'alice', signingKey, via: 'signal' });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(readFileSync(path.join(workspace, 'effects.txt'), 'utf8'), 'ran\n');
  });
});
