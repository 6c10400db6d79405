import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { goalStatusQuery } from '../../src/workflows/goal/messages';
import { main } from '../../src/cli/main';
import { NO_WORKER_EXIT_CODE } from '../../src/client/no-worker';
import { goalResult } from '../../src/client/goal-client';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

/** Issue 47: a worker killed with -9 while delegated children run repeats no irreversible effect. */

let harness: Harness;
let worker: WorkerProcess | undefined;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'crash-parent',
        match: 'GOAL-DELEGATE-CRASH',
        turns: [
          { toolCalls: [{ name: 'delegate', input: { task: 'CHILD-CRASH: append once' } }] },
          { text: 'The child appended once.' },
        ],
      },
      {
        name: 'crash-child',
        match: 'CHILD-CRASH',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo once >> side-effects.txt' } }] },
          { delayMs: 4000, toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          { text: 'appended' },
        ],
      },
    ],
  });
});

after(async () => {
  await worker?.stop();
  await harness.close();
  await stopOwnServer();
});

test(
  'kill -9 while a child waits for a human and while its model turn runs: decided from the root, run once',
  { timeout: 240_000 },
  async () => {
    const address = await temporalAddress();
    const startWorker = () =>
      startWorkerProcess({
        address,
        taskQueue: harness.taskQueue,
        modelBaseUrl: harness.scripted.url,
        journalDirectory: harness.journalDirectory,
      });
    const workspace = tempDirectory('keel-delegate-crash-');
    const workflowId = `delegate-crash-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      // With network allowed every run_command is irreversible: approved, journaled, at most once.
      args: [
        {
          goal: 'GOAL-DELEGATE-CRASH: survive',
          workspace,
          sandbox: { network: true },
          timing: { heartbeatTimeoutMs: 2000 },
          delegation: { enabled: true },
        },
      ],
    });

    // 1. The child's irreversible call waits for a human, seen from the root; the worker dies.
    worker = await startWorker();
    await eventually(async () => ((await handle.query(goalStatusQuery)).childApprovals ?? []).length === 1);
    await worker.kill9();
    worker = await startWorker();
    // Decided from the root, by the CLI, once the replacement worker answers for the child. A
    // worker still busy taking the goals back may not answer the Update in time: the CLI then
    // sends the decision as a signal and exits 3 (no worker answered), which delivers it too.
    await eventually(
      async () =>
        (await harness.client.workflow.getHandle(`${workflowId}-delegate-1`).query(goalStatusQuery))
          .pendingApprovals.length === 1,
    );
    const exit = await main(['--address', address, 'approve', workflowId, 'delegate-1/call-1']);
    assert.ok(exit === 0 || exit === NO_WORKER_EXIT_CODE, `keel approve exited ${exit}`);

    // 2. The child's next model turn is in flight (the scripted answer takes 4 s); the worker dies.
    await eventually(() =>
      Promise.resolve(
        harness.scripted.requests.some((r) => r.scenario === 'crash-child' && r.turnIndex === 1),
      ),
    );
    await worker.kill9();
    worker = await startWorker();

    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'The child appended once.');
    assert.equal(
      readFileSync(path.join(workspace, 'side-effects.txt'), 'utf8'),
      'once\n',
      'ran exactly once',
    );
    assert.equal(result.childSpend?.children, 1);
    assert.equal(result.childSpend?.toolCalls, 2);
    await worker.stop();
    worker = undefined;
  },
);
