import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { ledgerQuery, planQuery } from '../../src/workflows/goal/messages';
import { goalResult } from '../../src/client/goal-client';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { startWorkerProcess } from '../support/worker-process';

const step = (toolName: string, toolInput: Record<string, unknown>, rationale: string) => ({
  toolName,
  toolInput,
  rationale,
  expectedEffects: [rationale],
});
const report = (status: 'completed' | 'failed', reason: string) => ({
  name: 'report_step',
  input: { status, reason },
});

/** Plans per attempt: attempt 0 is the fallback entry, later ones match the failed plan in the prompt. */
type StructuredEntry = NonNullable<ScenarioInput['structured']>[number];

function plans(tool: string, replanDelayMs = 0): StructuredEntry[] {
  return [
    {
      tool,
      when: 'APPROACH: reason-first',
      delayMs: replanDelayMs,
      input: {
        strategySummary: 'write the file directly',
        steps: [step('write_file', { path: 'out.txt', content: 'ok' }, 'write it')],
      },
    },
    {
      tool,
      when: 'attempt 1, strategy',
      input: {
        strategySummary: 'third try',
        steps: [step('search', { pattern: 'notes' }, 'search instead')],
      },
    },
    {
      tool,
      input: {
        strategySummary: 'look, then edit',
        steps: [
          step('list_dir', { path: '.' }, 'see the files'),
          step('edit_file', { path: 'missing.txt', oldString: 'a', newString: 'b' }, 'edit'),
        ],
      },
    },
  ];
}

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'backtrack',
        match: 'GOAL-BACKTRACK',
        structured: plans('submit_plan'),
        turns: [
          { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          { toolCalls: [report('completed', 'listed the files')] },
          {
            toolCalls: [
              { name: 'edit_file', input: { path: 'missing.txt', oldString: 'a', newString: 'b' } },
            ],
          },
          { toolCalls: [report('failed', 'missing.txt does not exist')] },
          { toolCalls: [{ name: 'write_file', input: { path: 'out.txt', content: 'ok' } }] },
          { toolCalls: [report('completed', 'out.txt written')] },
          { text: 'out.txt is written.' },
        ],
      },
      {
        name: 'hopeless',
        match: 'GOAL-HOPELESS',
        structured: plans('submit_plan'),
        turns: [
          { toolCalls: [report('failed', 'first reason')] },
          { toolCalls: [report('failed', 'second reason')] },
          { toolCalls: [report('failed', 'third reason')] },
          { text: 'never reached' },
        ],
      },
      {
        name: 'prose-plan',
        match: 'GOAL-PROSE-PLAN',
        structured: [
          { tool: 'submit_plan', text: 'I would look around first, then write the file. No JSON here.' },
          {
            tool: 'submit_plan',
            when: 'APPROACH: reason-first',
            input: {
              strategySummary: 'write the file directly',
              steps: [step('write_file', { path: 'out.txt', content: 'ok' }, 'write it')],
            },
          },
        ],
        turns: [
          { toolCalls: [{ name: 'write_file', input: { path: 'out.txt', content: 'ok' } }] },
          { toolCalls: [report('completed', 'out.txt written')] },
          { text: 'out.txt is written.' },
        ],
      },
      {
        name: 'rollback',
        match: 'GOAL-ROLLBACK',
        structured: plans('submit_plan'),
        turns: [
          {
            toolCalls: [{ name: 'write_file', input: { path: 'notes.txt', content: 'broken by attempt 0' } }],
          },
          { toolCalls: [report('failed', 'the edit broke the notes')] },
          { toolCalls: [report('completed', 'nothing else to do')] },
          { text: 'done' },
        ],
      },
      {
        name: 'replan-crash',
        match: 'GOAL-REPLAN-CRASH',
        structured: plans('submit_plan', 4000),
        turns: [
          { toolCalls: [report('failed', 'first plan is wrong')] },
          { toolCalls: [report('completed', 'second plan worked')] },
          { text: 'recovered' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

/** Runs a planning goal and reads its plan and ledger while a worker still answers queries. */
async function runGoal(goal: string, extra: Record<string, unknown> = {}) {
  const workspace = tempDirectory('keel-plan-');
  writeFileSync(path.join(workspace, 'notes.txt'), 'original notes\n');
  const workflowId = `${goal.toLowerCase()}-${Date.now()}`;
  return harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: `${goal}: find and list files`, workspace, planning: { enabled: true, ...extra } }],
    });
    // A failed goal fails its workflow; goalResult reads the result from the failure's details.
    const result = await goalResult(handle);
    return {
      result,
      workspace,
      plan: await handle.query(planQuery),
      ledger: await handle.query(ledgerQuery, {}),
    };
  });
}

test('step 2 fails → the plan is superseded → attempt 1 plans reason-first → the goal completes', async () => {
  const { result, plan, ledger } = await runGoal('GOAL-BACKTRACK');
  assert.equal(result.status, 'completed');
  assert.equal(result.planAttempt, 1);
  assert.equal(plan?.metaStrategy, 'reason-first');
  assert.equal(plan?.status, 'completed');
  const kinds = ledger.map((event) => event.kind);
  assert.deepEqual(
    kinds.filter((kind) => kind.startsWith('plan.')),
    ['plan.created', 'plan.failed', 'plan.backtracked', 'plan.created'],
  );
  const created = ledger.find((event) => event.kind === 'plan.created');
  assert.ok(created?.data.selection, 'the strategy choice is recorded with its scores');
  // the model saw the new plan right after reporting the failure
  const afterFailure = harness.scripted.requests.find((r) => r.scenario === 'backtrack' && r.turnIndex === 4);
  assert.match(JSON.stringify(afterFailure?.body.messages?.at(-1)), /A new plan \(attempt 1\)/);
  // The active plan travels after the cache breakpoints: the last block of the newest message,
  // never the system prompt (a plan step changing would rewrite the whole cached prefix).
  const newest = afterFailure?.body.messages?.at(-1)?.content as Array<{
    text?: string;
    cache_control?: unknown;
  }>;
  assert.match(newest.at(-1)?.text ?? '', /attempt 1, strategy \w+, reason-first/);
  assert.equal(newest.at(-1)?.cache_control, undefined);
  assert.doesNotMatch(JSON.stringify(afterFailure?.body.system), /strategy \w+, reason-first/);
});

test('a goal that fails all three attempts ends failed with every reason', async () => {
  const { result } = await runGoal('GOAL-HOPELESS');
  assert.equal(result.status, 'failed');
  assert.match(result.reason ?? '', /^every plan attempt failed/);
  for (const reason of ['first reason', 'second reason', 'third reason'])
    assert.match(result.reason ?? '', new RegExp(reason));
  assert.match(result.reason ?? '', /attempt 0: .*attempt 1: .*attempt 2: /);
});

test('a plan proposed in prose is a failed attempt, and the next attempt plans again', async () => {
  const { result, ledger } = await runGoal('GOAL-PROSE-PLAN');
  assert.equal(result.status, 'completed');
  assert.equal(result.planAttempt, 1);
  const failed = ledger.find((event) => event.kind === 'plan.failed');
  assert.equal(failed?.data.attempt, 0);
  assert.equal(failed?.data.unusable, true);
  assert.deepEqual(
    ledger.map((event) => event.kind).filter((kind) => kind.startsWith('plan.')),
    ['plan.failed', 'plan.backtracked', 'plan.created'],
  );
});

test('rollbackOnBacktrack restores the files the failed plan changed', async () => {
  const { result, workspace, ledger } = await runGoal('GOAL-ROLLBACK', { rollbackOnBacktrack: true });
  assert.equal(result.status, 'completed');
  assert.equal(readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'original notes\n');
  const rolledBack = ledger.find((event) => event.kind === 'plan.rolled_back');
  assert.deepEqual(rolledBack?.data.restored, ['notes.txt']);
});

test(
  'kill -9 between a step failure and the replan resumes into the right attempt',
  { timeout: 180_000 },
  async () => {
    const workspace = tempDirectory('keel-plan-crash-');
    const start = () =>
      startWorkerProcess({
        address,
        taskQueue: harness.taskQueue,
        modelBaseUrl: harness.scripted.url,
        journalDirectory: harness.journalDirectory,
      });
    const address = await temporalAddress();
    let worker = await start();
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `replan-crash-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-REPLAN-CRASH: recover',
          workspace,
          planning: { enabled: true },
          timing: { heartbeatTimeoutMs: 2000 },
        },
      ],
    });
    const replans = () =>
      harness.scripted.requests.filter(
        (r) => r.scenario === 'replan-crash' && JSON.stringify(r.body).includes('APPROACH: reason-first'),
      );
    await eventually(() => Promise.resolve(replans().length >= 1), 60_000);
    await worker.kill9(); // the attempt-1 plan request is in flight
    worker = await start();
    try {
      const result = await handle.result();
      assert.equal(result.status, 'completed');
      assert.equal(result.planAttempt, 1);
      assert.ok(replans().length >= 2, 'the interrupted replan was asked again');
      const plan = await handle.query(planQuery);
      assert.equal(plan?.attempt, 1);
      assert.equal(plan?.metaStrategy, 'reason-first');
    } finally {
      await worker.stop();
    }
  },
);
