import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { goalStatusQuery } from '../../src/workflows/goal/messages';
import { assertOneLineFailure, cliScenarios, keel, startSignedGoal } from '../support/cli-scenarios';

/** Signed decisions and denials remembered (--sign-key, --do-not-ask-again) from the command line. */

let harness: Harness;
let address: string;

before(async () => {
  address = await temporalAddress();
  harness = await createHarness({ scenarios: cliScenarios });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test('keel approve --sign-key with the wrong key is refused in one line, and a signal shows in status', async () => {
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  const directory = tempDirectory('keel-cli-signed-');
  try {
    await harness.withWorker(async () => {
      const { workflowId, callId, handle } = await startSignedGoal(harness, common, directory);
      const mallory = path.join(directory, 'mallory.pem');
      const forged = await keel([
        ...common,
        'approve',
        workflowId,
        callId,
        '--approver',
        'alice',
        '--sign-key',
        mallory,
      ]);
      assertOneLineFailure(
        forged,
        /^keel: refused: signature (does not match alice's key|cannot be checked)/,
      );
      const unsigned = await keel([...common, 'approve', workflowId, callId, '--approver', 'alice']);
      assertOneLineFailure(unsigned, /^keel: refused: this goal requires a signed decision/);
      const signal = await keel(
        [...common, 'approve', workflowId, callId, '--approver', 'alice', '--signal'],
        {
          KEEL_APPROVAL_KEY: mallory,
        },
      );
      assert.equal(signal.code, 0, signal.stderr);
      const status = await eventually(async () => {
        const run = await keel([...common, 'status', workflowId]);
        return /ignored decisions: 1/.test(run.stdout) ? run.stdout : undefined;
      });
      assert.match(status, /ignored decisions: 1, last: bad-signature — .* \(call \S+, from alice\)/);
      assert.match(status, new RegExp(`awaiting approval: ${callId}`), 'still waiting');
      const ledger = await keel([...common, 'ledger', workflowId]);
      assert.match(ledger.stdout, /approval\.ignored\s+ignored decision from alice: signature/);
      await handle.cancel();
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('keel approve --sign-key approves a goal that requires signatures', { timeout: 120_000 }, async () => {
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  const directory = tempDirectory('keel-cli-signed-');
  try {
    await harness.withWorker(async () => {
      const { workflowId, callId, handle, workspace } = await startSignedGoal(harness, common, directory);
      const alice = path.join(directory, 'alice.pem');
      const approved = await keel([
        ...common,
        'approve',
        workflowId,
        callId,
        '--approver',
        'alice',
        '--sign-key',
        alice,
      ]);
      assert.equal(approved.code, 0, approved.stderr);
      assert.match(approved.stdout, /approved: run_command: echo signed > signed\.txt/);
      await handle.result();
      assert.equal(readFileSync(path.join(workspace, 'signed.txt'), 'utf8'), 'signed\n');
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('keel deny --do-not-ask-again: the same intent in other words is not asked again', async () => {
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  const workspace = tempDirectory('keel-cli-');
  mkdirSync(path.join(workspace, 'build'));
  await harness.withWorker(async () => {
    const started = await keel([
      ...common,
      'run',
      'REMEMBER-GOAL: clean up',
      '--workspace',
      workspace,
      // With network allowed every run_command is irreversible: it waits for a human.
      '--network',
      '--id',
      `cli-remember-${Date.now()}`,
    ]);
    assert.equal(started.code, 0, started.stderr);
    const workflowId = /goal started: (\S+)/.exec(started.stdout)?.[1] ?? '';
    const handle = harness.client.workflow.getHandle(workflowId);
    const callId = await eventually(
      async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
    );
    assertOneLineFailure(
      await keel([...common, 'approve', workflowId, callId, '--do-not-ask-again']),
      new RegExp(
        `^keel: --do-not-ask-again applies to denials only: keel deny ${workflowId} ${callId} --do-not-ask-again$`,
      ),
    );
    const denied = await keel([
      ...common,
      'deny',
      workflowId,
      callId,
      '--approver',
      'dana',
      '--do-not-ask-again',
    ]);
    assert.equal(denied.code, 0, denied.stderr);
    assert.equal(
      denied.stdout.trim(),
      'denied: run_command: rm -rf build; this intent will be refused without asking',
    );
    const result = (await handle.result()) as { counters: Record<string, number> };
    assert.equal(result.counters.approvalsRequested, 1, 'rm -r ./build was not asked');
    assert.equal(result.counters.approvalsAutoDenied, 1);
    const ledger = await keel([...common, 'ledger', workflowId]);
    assert.match(ledger.stdout, /approval\.decided\s+denied by dana/);
    assert.match(
      ledger.stdout,
      /approval\.auto_denied\s+refused without asking \(dana denied run_command on build and asked not to be asked again\): run_command: rm -r \.\/build/,
    );
  });
  assert.ok(existsSync(path.join(workspace, 'build')), 'build/ is still there');
  rmSync(workspace, { recursive: true, force: true });
});

test('keel deny --do-not-ask-again --sign-key signs the flag: the goal accepts it', async () => {
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  const directory = tempDirectory('keel-cli-signed-');
  try {
    await harness.withWorker(async () => {
      const { workflowId, callId, handle } = await startSignedGoal(harness, common, directory);
      const alice = path.join(directory, 'alice.pem');
      const denied = await keel([
        ...common,
        'deny',
        workflowId,
        callId,
        '--approver',
        'alice',
        '--sign-key',
        alice,
        '--do-not-ask-again',
      ]);
      assert.equal(denied.code, 0, denied.stderr);
      assert.match(
        denied.stdout,
        /denied: run_command: echo signed > signed\.txt; this intent will be refused/,
      );
      await handle.result();
      const ledger = await keel([...common, 'ledger', workflowId, '--json']);
      const events = JSON.parse(ledger.stdout) as { kind: string; data: Record<string, unknown> }[];
      const decided = events.find((event) => event.kind === 'approval.decided');
      assert.equal(decided?.data.doNotAskAgain, true);
      assert.equal(decided?.data.approver, 'alice');
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
