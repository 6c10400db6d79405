import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { WorkflowNotFoundError } from '@temporalio/client';
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
import { assertOneLineFailure, cliScenarios, keel } from '../support/cli-scenarios';

/** The keel command line: bad input, and a goal run, approved and followed from it. */

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

test('bad input: one clear line, non-zero exit, no stack trace', async () => {
  assertOneLineFailure(await keel(['run']), /^keel: missing required argument 'goal'/);
  assertOneLineFailure(await keel(['run', 'x', '--max-tool-calls', '-3']), /must be a positive whole number/);
  assertOneLineFailure(
    await keel(['run', 'x', '--approval-policy', 'maybe']),
    /Allowed choices are auto, ask/,
  );
  assertOneLineFailure(await keel(['run', 'x', '--approval-timeout', 'soon']), /must be a duration/);
  assertOneLineFailure(await keel(['run', 'x', '--reflection-cadence', '-1']), /must be a whole number/);
  assertOneLineFailure(
    await keel(['run', ' ']),
    /^keel: invalid goal input: goal: goal text must not be empty/,
  );
  assertOneLineFailure(await keel(['frobnicate']), /^keel: unknown command 'frobnicate'/);
  assertOneLineFailure(
    await keel(['run', 'x', '--thinking', '500']),
    /^keel: --thinking must be at least 1024 tokens, got 500$/,
  );
  assertOneLineFailure(
    await keel(['run', 'x', '--model', 'claude-haiku-4-5', '--answer-tokens', '100000']),
    /^keel: invalid goal input: model\.maxTokens: claude-haiku-4-5 writes at most 64000 tokens an answer/,
  );
  assertOneLineFailure(await keel(['run', 'x', '--cache-ttl', '2h']), /Allowed choices are 5m, 1h/);
  const notStarted = `cli-no-workspace-${Date.now()}`;
  assertOneLineFailure(
    await keel(['run', 'x', '--workspace', '/nonexistent/dir', '--id', notStarted, '--address', address]),
    /^keel: workspace \/nonexistent\/dir does not exist here \(on another machine\? name its host: --host ID; keel hosts lists them\)$/,
  );
  const file = path.join(tempDirectory('keel-cli-file-'), 'plain.txt');
  writeFileSync(file, 'not a directory');
  assertOneLineFailure(
    await keel(['run', 'x', '--workspace', file, '--address', address]),
    /^keel: workspace .*plain\.txt is not a directory here$/,
  );
  rmSync(path.dirname(file), { recursive: true, force: true });
  await assert.rejects(harness.client.workflow.getHandle(notStarted).describe(), WorkflowNotFoundError);
  assertOneLineFailure(
    await keel(['status', 'any', '--address', '127.0.0.1:1']),
    /^keel: cannot reach Temporal at 127\.0\.0\.1:1/,
  );
  assertOneLineFailure(
    await keel(['status', 'no-such-goal', '--address', address]),
    /^keel: no goal with id no-such-goal/,
  );
});

test('run, pending, approve and status work end to end from the command line', async () => {
  const workspace = tempDirectory('keel-cli-');
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  await harness.withWorker(async () => {
    const started = await keel([
      ...common,
      'run',
      'GOAL-CLI: write a file',
      '--workspace',
      workspace,
      // With network allowed every run_command is irreversible: it waits for a human.
      '--network',
      '--id',
      `cli-${Date.now()}`,
    ]);
    assert.equal(started.code, 0, started.stderr);
    const workflowId = /goal started: (\S+)/.exec(started.stdout)?.[1] ?? '';
    // The test server is headless: no UI answers on its port + 1000, so no (dead) link.
    assert.doesNotMatch(started.stdout, /web ui/);

    let pendingLine = '';
    for (let attempt = 0; attempt < 50 && !pendingLine; attempt++) {
      const pending = await keel([...common, 'pending']);
      pendingLine = pending.stdout.split('\n').find((line) => line.startsWith(workflowId)) ?? '';
      if (!pendingLine) await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.match(pendingLine, /irreversible\s+run_command: echo from-cli > cli\.txt/);
    const callId = pendingLine.split(/\s+/)[1] ?? '';
    const pendingJson = await keel([...common, 'pending', '--json']);
    assert.equal(pendingJson.code, 0, pendingJson.stderr);
    const listed = (JSON.parse(pendingJson.stdout) as Record<string, unknown>[]).filter(
      (entry) => entry.workflowId === workflowId,
    );
    assert.equal(listed.length, 1);
    const { deadline, ...entry } = listed[0] ?? {};
    // The whole call beside its label (the printing itself is tested in approval-lines.test.ts).
    assert.deepEqual(entry, {
      workflowId,
      callId,
      toolName: 'run_command',
      reversibility: 'irreversible',
      summary: 'run_command: echo from-cli > cli.txt',
      call: 'echo from-cli > cli.txt',
      input: { command: 'echo from-cli > cli.txt' },
      reason: 'the goal allows network access',
    });
    assert.match(callId, /^call-\d+$/, 'keel names the calls, not the model');
    assert.ok(!Number.isNaN(Date.parse(String(deadline))), `deadline ${String(deadline)}`);

    const assess = await keel([...common, 'assess', workflowId]);
    assert.match(assess.stdout, /assessment requested/);
    const wrong = await keel([...common, 'approve', workflowId, 'toolu_wrong']);
    assertOneLineFailure(wrong, /^keel: refused: no pending approval with call id toolu_wrong/);
    const approved = await keel([...common, 'approve', workflowId, callId, '--approver', 'dana']);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /approved: run_command: echo from-cli > cli\.txt/);

    await harness.client.workflow.getHandle(workflowId).result();
    const status = await keel([...common, 'status', workflowId]);
    assert.match(status.stdout, /completed \(done\)/);
    assert.match(status.stdout, /final answer: CLI goal done\./);
    assert.match(status.stdout, /model: scripted:cli \(a scripted model, not an LLM\)/);

    const ledger = await keel([...common, 'ledger', workflowId]);
    assert.match(ledger.stdout, /approval\.requested\s+approval requested: run_command/);
    assert.match(ledger.stdout, /approval\.decided\s+approved by dana/);
    assert.match(ledger.stdout, /goal\.completed/);
    const ledgerJson = await keel([...common, 'ledger', workflowId, '--json']);
    // One document, not JSON Lines.
    const events = JSON.parse(ledgerJson.stdout) as { kind: string; data: Record<string, unknown> }[];
    assert.ok(events.some((event) => event.kind === 'goal.completed'));
    const requested = events.find((event) => event.kind === 'approval.requested');
    assert.equal(
      requested?.data.call,
      'echo from-cli > cli.txt',
      'the approval event carries the whole call',
    );
    assert.match(
      ledger.stdout,
      /assessment\.completed\s+self-assessment at turn 1/,
      'keel assess took effect',
    );
    const plan = await keel([...common, 'plan', workflowId]);
    assert.match(plan.stdout, /has no plan \(planning is off for this goal\)/);
  });
  assert.ok(existsSync(path.join(workspace, 'cli.txt')));
  assert.equal(readFileSync(path.join(workspace, 'cli.txt'), 'utf8'), 'from-cli\n');
  rmSync(workspace, { recursive: true, force: true });
});

test('keel pending does not wait on a goal whose worker is gone: it names it and answers', async () => {
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  const workspace = tempDirectory('keel-cli-');
  const workflowId = `cli-orphan-${Date.now()}`;
  try {
    await harness.withWorker(async () => {
      const started = await keel([
        ...common,
        'run',
        'GOAL-CLI: orphan',
        '--workspace',
        workspace,
        // With network allowed every run_command is irreversible: it waits for a human.
        '--network',
        '--id',
        workflowId,
      ]);
      assert.equal(started.code, 0, started.stderr);
      await eventually(
        async () =>
          (await harness.client.workflow.getHandle(workflowId).query(goalStatusQuery)).pendingApprovals[0],
      );
    });
    // No worker polls the goal's task queue now, so a query to it would wait for one: the goal is
    // not asked, and what the server records of it is said on stderr (cli-no-worker.test.ts has more).
    const pending = await keel([...common, 'pending', '--json']);
    assert.equal(pending.code, 0, pending.stderr);
    assert.ok(Array.isArray(JSON.parse(pending.stdout)));
    assert.match(
      pending.stderr,
      new RegExp(
        `keel: ${workflowId} awaits 1 call, which a worker lists \\(no worker polls task queue ${harness.taskQueue}: shown from the server's record`,
      ),
    );
  } finally {
    await harness.client.workflow.getHandle(workflowId).terminate('test over');
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('run --wait follows the goal to its end and prints the result', async (t) => {
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  const workspace = tempDirectory('keel-cli-');
  t.after(() => rmSync(workspace, { recursive: true, force: true }));
  await harness.withWorker(async () => {
    const run = await keel([...common, 'run', 'WAITING-GOAL: list', '--workspace', workspace, '--wait'], {
      KEEL_WEB_UI_URL: 'https://ui.example.test/',
    });
    assert.equal(run.code, 0, `${run.stderr}\n${run.stdout}`);
    assert.match(run.stdout, /web ui: https:\/\/ui\.example\.test\/namespaces\/default\/workflows\/goal-/);
    assert.match(run.stdout, /tool_use list_dir/);
    assert.match(run.stdout, /goal completed: final answer given/);
    assert.match(run.stdout, /final answer: waited to the end/);
    assert.match(run.stdout, /tool calls 1 \(read-only 1, mutating 0, irreversible 0\)/);
  });
});
