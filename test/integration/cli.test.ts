import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

const KEEL = path.resolve(__dirname, '../../bin/keel.js');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function keel(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [KEEL, ...args],
      { env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function assertOneLineFailure(run: CliRun, pattern: RegExp): void {
  assert.notEqual(run.code, 0, 'non-zero exit');
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${run.stderr}`);
  assert.match(lines[0] ?? '', pattern);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
}

let harness: Harness;
let address: string;

before(async () => {
  address = await temporalAddress();
  harness = await createHarness({
    scenarios: [
      {
        name: 'cli',
        match: 'GOAL-CLI',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo from-cli > cli.txt' } }] },
          { text: 'CLI goal done.' },
        ],
      },
      {
        name: 'cli-signed',
        match: 'SIGNED-GOAL',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo signed > signed.txt' } }] },
          { text: 'signed goal done' },
        ],
      },
      {
        name: 'cli-remember',
        match: 'REMEMBER-GOAL',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'rm -rf build' } }] },
          { toolCalls: [{ name: 'run_command', input: { command: 'rm -r ./build' } }] },
          { text: 'remember goal done' },
        ],
      },
      {
        name: 'cli-rules',
        match: 'RULES-GOAL',
        turns: [
          {
            toolCalls: ['echo allowed 1', 'echo bulk 1', 'echo bulk 2'].map((command) => ({
              name: 'run_command',
              input: { command },
            })),
          },
          { toolCalls: [{ name: 'run_command', input: { command: 'rm -rf build' } }] },
          { toolCalls: [{ name: 'run_command', input: { command: 'rm -r build/cache' } }] },
          { toolCalls: [{ name: 'run_command', input: { command: 'echo the end' } }] },
          { text: 'rules goal done' },
        ],
      },
      {
        name: 'cli-wait',
        match: 'WAITING-GOAL',
        turns: [{ toolCalls: [{ name: 'list_dir', input: { path: '.' } }] }, { text: 'waited to the end' }],
      },
    ],
  });
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

/** Starts SIGNED-GOAL requiring alice's signature; returns its id, call id and the key files. */
async function startSignedGoal(common: string[], directory: string) {
  const keygen = async (name: string) => {
    const made = await keel(['keygen', '--out', path.join(directory, `${name}.pem`), '--approver', name]);
    assert.equal(made.code, 0, made.stderr);
    return /public key: (\S+)/.exec(made.stdout)?.[1] ?? '';
  };
  const alicePublic = await keygen('alice');
  await keygen('mallory');
  const workspace = path.join(directory, 'workspace');
  mkdirSync(workspace);
  const started = await keel([
    ...common,
    'run',
    'SIGNED-GOAL: needs a signature',
    '--workspace',
    workspace,
    // With network allowed every run_command is irreversible: it waits for a human.
    '--network',
    '--approval-key',
    `alice=${alicePublic}`,
    '--id',
    `cli-signed-${Date.now()}`,
  ]);
  assert.equal(started.code, 0, started.stderr);
  const workflowId = /goal started: (\S+)/.exec(started.stdout)?.[1] ?? '';
  const handle = harness.client.workflow.getHandle(workflowId);
  const callId = await eventually(
    async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
  );
  return { workflowId, callId, handle, workspace };
}

test('keel approve --sign-key with the wrong key is refused in one line, and a signal shows in status', async () => {
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  const directory = tempDirectory('keel-cli-signed-');
  try {
    await harness.withWorker(async () => {
      const { workflowId, callId, handle } = await startSignedGoal(common, directory);
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
      const { workflowId, callId, handle, workspace } = await startSignedGoal(common, directory);
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
      const { workflowId, callId, handle } = await startSignedGoal(common, directory);
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

test('approval rules from the command line: bad rules in one line each', async () => {
  assertOneLineFailure(
    await keel(['run', 'x', '--allow', 'run command: npm test']),
    /^keel: --allow: "run command: npm test" is not a rule \(a tool name has no blanks or colons\); write it as tool: pattern/,
  );
  assertOneLineFailure(
    await keel(['rules', 'g', '--allow', 'a', '--forbid', 'b']),
    /^keel: one change at a time: --allow, --forbid or --revoke$/,
  );
  assertOneLineFailure(
    await keel(['approve', 'g']),
    /^keel: name the call to decide \(keel pending lists them\), or --all$/,
  );
  assertOneLineFailure(
    await keel(['approve', 'g', 'c', '--until', '2h']),
    /^keel: --until goes with --rule or --forbid$/,
  );
  assertOneLineFailure(
    await keel(['approve', 'g', 'c', '--rule', '--until', 'tomorrow']),
    /^keel: --until wants a duration \(2h, 30m\) or an ISO time/,
  );
  assertOneLineFailure(
    await keel(['approve', 'g', '--all', '--signal']),
    /^keel: --all sends one Update; it cannot be a signal$/,
  );
  const missing = path.join(tempDirectory('keel-cli-rules-'), 'no-such-rules.json');
  assertOneLineFailure(
    await keel(['worker', '--approval-rules', missing]),
    new RegExp(
      `^keel: approval rules file ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be read \\(ENOENT\\)$`,
    ),
  );
});

test('keel run --allow-irreversible, approve --all --match, deny --forbid, rules list and --revoke: a goal decided with few questions', async () => {
  const common = ['--address', address, '--task-queue', harness.taskQueue];
  const workspace = tempDirectory('keel-cli-rules-');
  mkdirSync(path.join(workspace, 'build', 'cache'), { recursive: true });
  await harness.withWorker(async () => {
    const started = await keel([
      ...common,
      'run',
      'RULES-GOAL: run and clean',
      '--workspace',
      workspace,
      '--network', // every command is irreversible: each waits for a human, or a rule
      '--allow-irreversible',
      'run_command: echo allowed*',
      '--id',
      `cli-rules-${Date.now()}`,
    ]);
    assert.equal(started.code, 0, started.stderr);
    const workflowId = /goal started: (\S+)/.exec(started.stdout)?.[1] ?? '';
    const handle = harness.client.workflow.getHandle(workflowId);
    const pendingCount = async (count: number) =>
      eventually(async () => {
        const view = await handle.query(goalStatusQuery);
        return view.pendingApprovals.length === count ? view.pendingApprovals : undefined;
      });
    await pendingCount(2);
    const pending = await keel([...common, 'pending', '--json']);
    const mine = (JSON.parse(pending.stdout) as Array<{ workflowId: string; reason?: string }>).filter(
      (entry) => entry.workflowId === workflowId,
    );
    assert.deepEqual(
      mine.map((entry) => entry.reason),
      ['the goal allows network access', 'the goal allows network access'],
      'pending --json says why each waits',
    );
    const bulk = await keel([
      ...common,
      'approve',
      workflowId,
      '--all',
      '--match',
      'run_command: echo bulk*',
      '--approver',
      'hal',
    ]);
    assert.equal(bulk.code, 0, bulk.stderr);
    assert.match(
      bulk.stdout,
      /^approved: call-\d+ run_command: echo bulk 1\napproved: call-\d+ run_command: echo bulk 2\n$/,
    );

    const [rm] = await pendingCount(1);
    const denied = await keel([
      ...common,
      'deny',
      workflowId,
      rm?.callId ?? '',
      '--forbid',
      'rm *',
      '--approver',
      'hal',
      '--reason',
      'keep build',
    ]);
    assert.equal(denied.code, 0, denied.stderr);
    assert.match(
      denied.stdout,
      /^denied: run_command: rm -rf build; later calls the rule covers are refused at once/,
    );
    const [last] = await eventually(async () => {
      const view = await handle.query(goalStatusQuery);
      return view.pendingApprovals[0]?.summary === 'run_command: echo the end'
        ? view.pendingApprovals
        : undefined;
    });

    const status = await keel([...common, 'status', workflowId]);
    assert.match(
      status.stdout,
      /rule rule-1 in force: allow run_command: echo allowed\* \(irreversible calls too\) \(by goal input, goal-input\)/,
    );
    assert.match(status.stdout, /rule rule-2 in force: forbid run_command: rm \* \(by hal, decision\)/);
    assert.match(status.stdout, /# why it waits: the goal allows network access/);
    const revoked = await keel([...common, 'rules', workflowId, '--revoke', 'rule-1', '--approver', 'hal']);
    assert.equal(
      revoked.stdout.trim(),
      'revoked rule-1: allow run_command: echo allowed* (irreversible calls too)',
    );
    const listed = await keel([...common, 'rules', workflowId]);
    assert.match(
      listed.stdout,
      /^rule-1 {2}allow run_command: echo allowed\* \(irreversible calls too\) {2}by goal input \(goal-input\) {2}revoked by hal at /m,
    );
    assert.match(
      listed.stdout,
      /^rule-2 {2}forbid run_command: rm \* {2}by hal \(decision\) {2}in force — keep build$/m,
    );

    const approved = await keel([...common, 'approve', workflowId, last?.callId ?? '']);
    assert.equal(approved.code, 0, approved.stderr);
    const result = (await handle.result()) as { counters: Record<string, number> };
    assert.equal(result.counters.approvalsRequested, 4, 'bulk 1, bulk 2, rm -rf build, echo the end');
    assert.equal(result.counters.approvalsByRule, 1, 'echo allowed 1');
    assert.equal(result.counters.refusalsByRule, 1, 'rm -r build/cache');
  });
  assert.ok(existsSync(path.join(workspace, 'build', 'cache')), 'build/ is still there');
  rmSync(workspace, { recursive: true, force: true });
});
