import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { goalStatus } from '../../src/client/goal-client';
import { FailureType } from '../../src/workflows/common/failure-types';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';

/**
 * Issue 43 item 4: a goal whose workspace lies inside, or contains, a running goal's is refused
 * at its start with one line (a goal in `nest` could otherwise rewrite the held changes a goal in
 * `nest/sub` keeps in `nest/.keel-state`); two started at once cannot both pass; a goal that
 * ended, however, holds nothing.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');

let harness: Harness;
let address: string;

before(async () => {
  address = await temporalAddress();
  harness = await createHarness({
    scenarios: [
      {
        name: 'waits',
        match: 'NEST-WAITS',
        // With network allowed every run_command is irreversible: the goal waits for a human.
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo held > held.txt' } }] },
          { text: 'done' },
        ],
      },
      { name: 'quick', match: 'NEST-QUICK', turns: [{ text: 'quickly done' }] },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function start(goal: string, workspace: string, id: string): Promise<WorkflowHandle<typeof goalWorkflow>> {
  return harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${id}-${Date.now()}`,
    args: [{ goal, workspace, sandbox: { network: true } }],
  });
}

async function waiting(handle: WorkflowHandle): Promise<void> {
  await eventually(async () => (await goalStatus(handle)).pendingApprovals.length === 1 || undefined, 60_000);
}

/** The failure a goal ended with (undefined when it completed), checked to be keel's own. */
async function failureOf(handle: WorkflowHandle): Promise<ApplicationFailure | undefined> {
  const error = await endingOf(handle);
  if (error === undefined) return undefined;
  assert.ok(error instanceof WorkflowFailedError);
  assert.ok(error.cause instanceof ApplicationFailure);
  return error.cause;
}

/** How a goal ended: undefined when it completed, else its error; never rejects. */
function endingOf(handle: WorkflowHandle): Promise<unknown> {
  return handle.result().then(
    () => undefined,
    (failure: unknown) => failure ?? new Error('failed'),
  );
}

/** Whether a goal was refused at its start or reached its approval wait; nothing polls afterwards. */
async function refusedOrWaiting(handle: WorkflowHandle): Promise<ApplicationFailure | 'waiting'> {
  const ending = endingOf(handle);
  for (;;) {
    const ended = await Promise.race([ending, sleep(250).then(() => 'still running' as const)]);
    if (ended !== 'still running') {
      assert.ok(
        ended instanceof WorkflowFailedError && ended.cause instanceof ApplicationFailure,
        String(ended),
      );
      return ended.cause;
    }
    if ((await goalStatus(handle)).pendingApprovals.length === 1) return 'waiting';
  }
}

function keel(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [KEEL, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

test(
  "a goal inside a running goal's workspace, or holding it, is refused with one line; once that goal ends (terminated too) its workspace is free",
  { timeout: 240_000 },
  async () => {
    const base = tempDirectory('keel-nest-');
    const nest = path.join(base, 'nest');
    mkdirSync(path.join(nest, 'sub'), { recursive: true });
    await harness.withWorker(async () => {
      const outer = await start('NEST-WAITS: in nest', nest, 'nest-outer');
      await waiting(outer);

      const inner = await failureOf(
        await start('NEST-QUICK: in nest/sub', path.join(nest, 'sub'), 'nest-inner'),
      );
      assert.equal(inner?.type, FailureType.WorkspaceNested);
      assert.equal(inner?.nonRetryable, true);
      assert.match(
        inner?.message ?? '',
        new RegExp(
          `nest/sub lies inside .*nest, the workspace of running goal ${outer.workflowId}: workspaces never nest`,
        ),
      );
      assert.doesNotMatch(inner?.message ?? '', /\n/);

      const holding = await failureOf(await start('NEST-QUICK: holds nest', base, 'nest-holding'));
      assert.equal(holding?.type, FailureType.WorkspaceNested);
      assert.match(
        holding?.message ?? '',
        new RegExp(`contains .*nest, the workspace of running goal ${outer.workflowId}`),
      );

      // keel run: the one line, and a non-zero exit.
      const cli = await keel([
        '--address',
        address,
        '--task-queue',
        harness.taskQueue,
        'run',
        '--workspace',
        path.join(nest, 'sub'),
        'NEST-QUICK: from the command line',
      ]);
      assert.notEqual(cli.code, 0, cli.stdout + cli.stderr);
      const errorLines = cli.stderr.trim().split('\n');
      assert.equal(errorLines.length, 1, cli.stderr);
      assert.match(
        errorLines[0] ?? '',
        /cannot run: workspace .*nest\/sub lies inside .*nest, the workspace of running goal/,
      );

      // Terminated runs no cleanup: the claim gives way because Temporal says the goal ended.
      await outer.terminate('stopped from outside');
      const afterTerminated = await start(
        'NEST-QUICK: in nest/sub again',
        path.join(nest, 'sub'),
        'nest-inner-again',
      );
      assert.equal(await failureOf(afterTerminated), undefined, 'completes');
      assert.equal((await goalStatus(afterTerminated)).status, 'completed');

      // A finished goal's workspace is reused by a goal in the workspace holding it.
      const reused = await start('NEST-QUICK: nest after sub finished', nest, 'nest-reused');
      assert.equal(await failureOf(reused), undefined, 'completes');
    });
  },
);

test('two goals started at once in nested workspaces: exactly one runs', { timeout: 240_000 }, async () => {
  const base = tempDirectory('keel-nest-race-');
  mkdirSync(path.join(base, 'nest', 'sub'), { recursive: true });
  await harness.withWorker(async () => {
    const handles = await Promise.all([
      start('NEST-WAITS: race outer', path.join(base, 'nest'), 'race-outer'),
      start('NEST-WAITS: race inner', path.join(base, 'nest', 'sub'), 'race-inner'),
    ]);
    const outcomes = await Promise.all(handles.map(refusedOrWaiting));
    const refused = outcomes.filter((outcome) => outcome instanceof ApplicationFailure);
    assert.equal(refused.length, 1, `one refused: ${outcomes.map(String).join(' | ')}`);
    assert.equal((refused[0] as ApplicationFailure).type, FailureType.WorkspaceNested);
    assert.equal(outcomes.filter((outcome) => outcome === 'waiting').length, 1);
    for (const [index, outcome] of outcomes.entries())
      if (outcome === 'waiting') await handles[index]?.terminate('test over');
  });
});
