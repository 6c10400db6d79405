import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
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
import { goalStatusQuery } from '../../src/workflows/goal/messages';
import { assertOneLineFailure, cliScenarios, keel } from '../support/cli-scenarios';

/** Approval rules from the command line: --allow, --forbid, approve --all --match, keel rules. */

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
