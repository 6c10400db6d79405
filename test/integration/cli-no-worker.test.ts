import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';

/**
 * Issue 41, "Deciding without a worker": with the goals' worker stopped, `keel approve`, `deny`,
 * `approve --all`, `status`, `plan` and `pending` each answer within seconds, in the words of
 * src/client/no-worker.ts, and a decision recorded as a signal (signed, here) takes effect once a
 * worker runs the goal again.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');
/** Each command must answer well before this; before the fix they waited 37 s, or for ever. */
const ANSWER_WITHIN_MS = 10_000;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  elapsedMs: number;
}

function keel(args: string[]): Promise<CliRun> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [KEEL, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr, elapsedMs: Date.now() - startedAt });
    });
  });
}

/** Answered in time, with the no-worker exit code (3) unless told otherwise. */
function assertAnswered(run: CliRun, what: string, code = 3): void {
  assert.ok(run.elapsedMs < ANSWER_WITHIN_MS, `${what} took ${run.elapsedMs} ms`);
  assert.equal(run.code, code, `${what}: exit ${run.code}\n${run.stdout}\n${run.stderr}`);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let harness: Harness;
let address: string;
let directory: string;

before(async () => {
  address = await temporalAddress();
  const oneCall = (name: string, command: string) => ({
    name,
    match: name,
    turns: [{ toolCalls: [{ name: 'run_command', input: { command } }] }, { text: `${name} done` }],
  });
  harness = await createHarness({
    scenarios: [
      oneCall('NOWORKER-SIGNED', 'echo signed > signed.txt'),
      oneCall('NOWORKER-DENIED', 'echo denied > denied.txt'),
      {
        name: 'NOWORKER-BULK',
        match: 'NOWORKER-BULK',
        turns: [
          {
            toolCalls: ['echo one > one.txt', 'echo two > two.txt'].map((command) => ({
              name: 'run_command',
              input: { command },
            })),
          },
          { text: 'NOWORKER-BULK done' },
        ],
      },
    ],
  });
  directory = tempDirectory('keel-no-worker-');
});

after(async () => {
  await harness.close();
  await stopOwnServer();
  rmSync(directory, { recursive: true, force: true });
});

test(
  'without a worker, approve, deny, approve --all, status, plan and pending answer in seconds; the signalled decisions take effect when a worker comes back',
  { timeout: 180_000 },
  async () => {
    const common = ['--address', address, '--task-queue', harness.taskQueue];
    const queue = harness.taskQueue;
    const made = await keel(['keygen', '--out', path.join(directory, 'alice.pem'), '--approver', 'alice']);
    assert.equal(made.code, 0, made.stderr);
    const alicePublic = /public key: (\S+)/.exec(made.stdout)?.[1] ?? '';

    const start = async (name: string, extra: string[] = []) => {
      const workspace = path.join(directory, name);
      mkdirSync(workspace);
      const workflowId = `${name.toLowerCase()}-${Date.now()}`;
      // With network allowed every run_command is irreversible: it waits for a human.
      const args = ['run', `${name}: one call`, '--workspace', workspace, '--network', '--id', workflowId];
      const started = await keel([...common, ...args, ...extra]);
      assert.equal(started.code, 0, started.stderr);
      const handle = harness.client.workflow.getHandle(workflowId);
      const pending = await eventually(async () => {
        const calls = (await handle.query(goalStatusQuery)).pendingApprovals;
        return calls.length === (name === 'NOWORKER-BULK' ? 2 : 1) ? calls : undefined;
      });
      return { workflowId, workspace, handle, callIds: pending.map((call) => call.callId) };
    };

    const [signed, denied, bulk] = await harness.withWorker(() =>
      Promise.all([
        start('NOWORKER-SIGNED', ['--approval-key', `alice=${alicePublic}`]),
        start('NOWORKER-DENIED'),
        start('NOWORKER-BULK'),
      ]),
    );
    // The worker has stopped: nothing polls the goals' task queue now.
    const cause = `no worker polls task queue ${queue}`;
    const signedCall = signed.callIds[0] ?? '';
    const deniedCall = denied.callIds[0] ?? '';

    const approved = await keel([
      ...common,
      'approve',
      signed.workflowId,
      signedCall,
      '--approver',
      'alice',
      '--sign-key',
      path.join(directory, 'alice.pem'),
    ]);
    assertAnswered(approved, 'approve');
    assert.equal(
      approved.stdout.trim(),
      `${cause}: the approval of ${signedCall} is recorded as a signal and is decided when a worker runs goal ${signed.workflowId} (keel status ${signed.workflowId} shows the outcome)`,
    );

    const deniedRun = await keel([...common, 'deny', denied.workflowId, deniedCall, '--approver', 'bob']);
    assertAnswered(deniedRun, 'deny');
    assert.match(
      deniedRun.stdout,
      new RegExp(`^${escape(cause)}: the denial of ${deniedCall} is recorded as a signal`),
    );

    const all = await keel([...common, 'approve', bulk.workflowId, '--all', '--approver', 'carol']);
    assertAnswered(all, 'approve --all');
    assert.equal(all.stdout, '');
    assert.equal(
      all.stderr.trim(),
      `keel: ${cause}: nothing was decided: --all needs goal ${bulk.workflowId}'s list of pending calls, which only a worker can read (start one: keel worker; or name a call: keel approve ${bulk.workflowId} <callId> records it as a signal)`,
    );

    const status = await keel([...common, 'status', bulk.workflowId]);
    assertAnswered(status, 'status');
    const [note, headline] = status.stdout.split('\n');
    assert.match(
      note ?? '',
      new RegExp(
        `^\\(${escape(cause)}: shown from the server's record, as of \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)$`,
      ),
    );
    assert.equal(headline, `${bulk.workflowId}: running (awaiting-approval)`);
    assert.match(status.stdout, /^goal: NOWORKER-BULK: one call$/m);
    assert.match(
      status.stdout,
      new RegExp(`^awaiting approval: 2 calls \\(which calls, and what they do, a worker shows`, 'm'),
    );
    const statusJson = await keel([...common, 'status', bulk.workflowId, '--json']);
    assertAnswered(statusJson, 'status --json');
    const record = JSON.parse(statusJson.stdout) as Record<string, unknown>;
    assert.equal(record.source, 'server-record');
    assert.equal(record.noWorker, cause);
    assert.equal(record.pendingApprovals, 2);

    const plan = await keel([...common, 'plan', bulk.workflowId]);
    assertAnswered(plan, 'plan');
    assert.match(plan.stdout, new RegExp(`^\\(${escape(cause)}: shown from the server's record`));
    assert.match(
      plan.stdout,
      /no plan attempt recorded \(planning may be off for this goal\); the plan's steps are in the goal's state: a worker shows them/,
    );

    const pending = await keel([...common, 'pending']);
    assertAnswered(pending, 'pending', 0);
    assert.match(
      pending.stderr,
      new RegExp(
        `^keel: ${bulk.workflowId} awaits 2 calls, which a worker lists \\(${escape(cause)}: shown from the server's record, as of `,
        'm',
      ),
    );
    assert.match(pending.stderr, new RegExp(`^keel: ${signed.workflowId} awaits 1 call, `, 'm'));

    // Commands with no answer of their own say so in the same words, and send nothing.
    const ledger = await keel([...common, 'ledger', bulk.workflowId]);
    assertAnswered(ledger, 'ledger');
    assert.equal(
      ledger.stderr.trim(),
      `keel: ${cause}: the ledger events of goal ${bulk.workflowId} are in its state, which only a worker can read (start one: keel worker)`,
    );
    const rule = await keel([...common, 'rules', bulk.workflowId, '--allow', 'run_command: echo *']);
    assertAnswered(rule, 'rules --allow');
    assert.equal(
      rule.stderr.trim(),
      `keel: ${cause}: nothing was sent: the new rule is made by goal ${bulk.workflowId} itself, when a worker runs it (start one: keel worker)`,
    );

    // A worker again: the signals wait in the goals' histories and are decided now.
    await harness.withWorker(async () => {
      const bulkDecided = await keel([...common, 'approve', bulk.workflowId, '--all', '--approver', 'carol']);
      assert.equal(bulkDecided.code, 0, bulkDecided.stderr);
      assert.match(bulkDecided.stdout, /^approved: call-\d+ run_command: echo one > one\.txt$/m);
      await Promise.all([signed.handle.result(), denied.handle.result(), bulk.handle.result()]);
      // Queries need the worker too: asked before it stops.
      const decided = (await signed.handle.query(ledgerQuery, {})).find(
        (event) => event.kind === 'approval.decided',
      );
      assert.equal(decided?.data.via, 'signal');
      assert.equal(decided?.data.approver, 'alice');
      const deniedStatus = await denied.handle.query(goalStatusQuery);
      assert.equal(deniedStatus.counters.approvalsIgnored ?? 0, 0, 'each decision was taken once');
    });
    assert.ok(existsSync(path.join(signed.workspace, 'signed.txt')), 'the signed approval ran the call');
    assert.ok(!existsSync(path.join(denied.workspace, 'denied.txt')), 'the denied call did not run');
    assert.ok(existsSync(path.join(bulk.workspace, 'two.txt')));
  },
);
