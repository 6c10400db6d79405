import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';

/**
 * Issue 46: an approver sees held changes line by line. A shell command edits one file and
 * deletes another on its copy-on-write layer; the deletion goes beyond a mutating call, so the
 * layer is held. The worker records the diff with the hold: the status view carries it, `keel
 * pending <goal> --diff <call>` prints it, and approving applies exactly what it showed.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');

function keel(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [KEEL, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

let harness: Harness;
let address: string;

before(async () => {
  address = await temporalAddress();
  harness = await createHarness({
    scenarios: [
      {
        name: 'held-diff',
        match: 'GOAL-HELD-DIFF',
        turns: [
          {
            toolCalls: [
              {
                name: 'run_command',
                input: { command: "sed -i 's/mode=safe/mode=fast/' config.txt && rm notes.md" },
              },
            ],
          },
          { text: 'configured' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test('a held layer carries its diff: in the status view, in `keel pending --diff`, and approval applies it', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory('keel-held-diff-');
    writeFileSync(path.join(workspace, 'config.txt'), 'mode=safe\nretries=3\n');
    writeFileSync(path.join(workspace, 'notes.md'), 'remember the milk\n');
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `held-diff-${Date.now()}`,
      args: [{ goal: 'GOAL-HELD-DIFF: go fast', workspace }],
    });
    const held = await eventually(async () => {
      const [call] = (await handle.query(goalStatusQuery)).pendingApprovals;
      return call?.heldChanges === undefined ? undefined : call;
    });
    assert.deepEqual(held.heldChanges?.deleted, ['notes.md']);
    assert.match(
      held.heldDiff ?? '',
      /--- a\/config\.txt\n\+\+\+ b\/config\.txt\n@@ -1,2 \+1,2 @@\n-mode=safe\n\+mode=fast\n/,
    );
    assert.match(
      held.heldDiff ?? '',
      /--- a\/notes\.md\n\+\+\+ \/dev\/null\n@@ -1,1 \+0,0 @@\n-remember the milk\n/,
    );
    assert.equal(
      readFileSync(path.join(workspace, 'config.txt'), 'utf8'),
      'mode=safe\nretries=3\n',
      'held, not applied',
    );

    const common = ['--address', address, '--task-queue', harness.taskQueue];
    const diff = await keel([...common, 'pending', handle.workflowId, '--diff', held.callId]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.equal(diff.stdout, `${(held.heldDiff ?? '').replace(/\n$/, '')}\n`);
    const unknown = await keel([...common, 'pending', handle.workflowId, '--diff', 'toolu_none']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /has no pending call toolu_none/);
    const noGoal = await keel([...common, 'pending', '--diff', held.callId]);
    assert.equal(noGoal.code, 2);
    assert.match(noGoal.stderr, /--diff needs the goal/);

    await handle.signal(approveSignal, { callId: held.callId, approver: 'ann' });
    await handle.result();
    assert.equal(readFileSync(path.join(workspace, 'config.txt'), 'utf8'), 'mode=fast\nretries=3\n');
  });
});
