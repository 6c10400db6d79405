import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { takeCheckpoint } from '../../src/activities/checkpoints/checkpoint-store';
import { noteKeelWrite } from '../../src/activities/checkpoints/after-keel-calls';
import {
  checkpointBeforeCall,
  checkpointStoreOf,
  keelWritesNoted,
  noteKeelWriteSoon,
} from '../../src/activities/lineage/turn-checkpoints';
import { workspaceStateDirectory } from '../../src/activities/hosts/workspace-state-directory';
import { markCallRunning, runningCalls } from '../../src/activities/tools/running-calls';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { goalResult } from '../../src/client/goal-client';
import { of } from '../support/delegation-scenarios';
import { invoiceTool } from '../support/invoice-tool';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Changes made outside keel are told apart from its calls' own (issue 48): the checkpoint of a
 * turn records the files that changed since keel's last write (after-keel-calls.ts), the ledger
 * says so, and the model is told, since its picture of those files is older.
 */

const invoices = invoiceTool();
let harness: Harness;

before(async () => {
  harness = await createHarness({
    tools: [invoices.tool],
    scenarios: [
      {
        name: 'outside',
        match: 'GOAL-OUTSIDE',
        turns: [
          { toolCalls: [{ name: 'write_file', input: { path: 'a.txt', content: 'by keel\n' } }] },
          // Irreversible: runs once approved, and the test edits the files meanwhile.
          { toolCalls: [{ name: 'send_invoice', input: { customer: 'acme' } }] },
          { text: 'done' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness?.close();
  await stopOwnServer();
});

function workspaceIn(prefix: string): { workspace: string; store: string } {
  const folder = tempDirectory(prefix);
  const workspace = path.join(folder, 'ws');
  mkdirSync(workspace);
  return { workspace, store: path.join(folder, 'store') };
}

test("a checkpoint names the files changed since keel's last write, and only those", async () => {
  const { workspace, store } = workspaceIn('keel-outside-store-');
  writeFileSync(path.join(workspace, 'kept.txt'), 'kept\n');
  writeFileSync(path.join(workspace, 'gone.txt'), 'gone\n');
  const first = await takeCheckpoint({ store, goalId: 'g', workspace, turn: 1 });
  assert.equal(first.outside, undefined, 'keel has written nothing yet: nothing to compare with');
  writeFileSync(path.join(workspace, 'by-keel.txt'), 'a call wrote this\n');
  await noteKeelWrite(store, workspace);
  // Then, between keel's writes: an edit, a new file, a deletion.
  writeFileSync(path.join(workspace, 'kept.txt'), 'edited by a person\n');
  writeFileSync(path.join(workspace, 'new.txt'), 'new\n');
  rmSync(path.join(workspace, 'gone.txt'));
  const second = await takeCheckpoint({ store, goalId: 'g', workspace, turn: 2 });
  assert.equal(second.changedFiles, 4, 'the checkpoint keeps every change, keel-made or not');
  assert.deepEqual(second.outside, { count: 3, paths: ['gone.txt', 'kept.txt', 'new.txt'] });
  await noteKeelWrite(store, workspace);
  writeFileSync(path.join(workspace, 'by-keel.txt'), 'a call wrote this again\n');
  await noteKeelWrite(store, workspace);
  const third = await takeCheckpoint({ store, goalId: 'g', workspace, turn: 3 });
  assert.equal(third.changedFiles, 1);
  assert.equal(third.outside, undefined, "keel's own writes are not outside changes");
});

test('a call whose worker died before its note is not reported as a change made outside keel', async () => {
  const workspace = tempDirectory('keel-outside-cut-off-');
  const store = checkpointStoreOf(workspace);
  const warnings: string[] = [];
  const log = { warn: (message: string) => warnings.push(message) };
  writeFileSync(path.join(workspace, 'notes.md'), 'first\n');
  assert.deepEqual(await checkpointBeforeCall(workspace, { key: 'g', turn: 1 }, log), {});

  // A call that answered: its running marker goes only once the note of what it left is written.
  const deadline = new Date(Date.now() + 3_600_000).toISOString();
  const unmark = await markCallRunning(workspace, { workflowId: 'g', callId: 'c1', deadline });
  writeFileSync(path.join(workspace, 'by-keel.txt'), 'a call wrote this\n');
  let notedWhenUnmarked = false;
  noteKeelWriteSoon(workspace, log, async () => {
    notedWhenUnmarked = existsSync(path.join(store, 'after-keel.json'));
    await unmark();
  });
  await keelWritesNoted(workspace);
  assert.ok(notedWhenUnmarked, 'the marker outlives the note');
  assert.deepEqual(await runningCalls(workspace), []);

  // Then a worker killed between its call's answer and the note: its marker is left behind.
  const killed = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '../support/killed-call-process.ts'), workspace, 'cut-off.txt'],
    { encoding: 'utf8' },
  );
  assert.equal(killed.status, 0, killed.stderr);
  assert.equal(readdirSync(workspaceStateDirectory(workspace, 'running')).length, 1);
  const second = await checkpointBeforeCall(workspace, { key: 'g', turn: 2 }, log);
  assert.deepEqual(second, {}, "the cut-off call's file is keel's, not a change made outside it");
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(
    warnings[0] ?? '',
    /^1 call\(s\) on .* ended with their worker before what they changed was noted/,
  );

  // Counted once: keel's next write is noted afresh, and an edit after it is told again.
  await noteKeelWrite(store, workspace);
  writeFileSync(path.join(workspace, 'notes.md'), 'edited by a person\n');
  const third = await checkpointBeforeCall(workspace, { key: 'g', turn: 3 }, log);
  assert.deepEqual(third, { outside: { count: 1, paths: ['notes.md'] } });
  assert.equal(warnings.length, 1);
});

test(
  'a goal is told of a file a person edited while it waited for an approval',
  { timeout: 120_000 },
  async () => {
    await harness.withWorker(async () => {
      const { workspace } = workspaceIn('keel-outside-goal-');
      writeFileSync(path.join(workspace, 'notes.md'), 'first draft\n');
      const workflowId = `goal-outside-${Date.now()}`;
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [
          { goal: 'GOAL-OUTSIDE: write, then invoice', workspace, tools: ['write_file', 'send_invoice'] },
        ],
      });
      const waiting = await eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]);
      writeFileSync(path.join(workspace, 'notes.md'), 'second draft, by a person\n');
      await handle.signal(approveSignal, { callId: waiting.callId, approver: 'test' });
      assert.equal((await goalResult(handle)).status, 'completed');

      const [event, ...more] = of(await handle.query(ledgerQuery, {}), 'workspace.changed_outside');
      assert.equal(more.length, 0);
      assert.deepEqual(event?.data, { callId: waiting.callId, count: 1, paths: ['notes.md'] });
      const last = JSON.stringify(harness.scripted.requests.at(-1)?.body.messages);
      assert.match(
        last,
        /1 file\(s\) in the workspace changed outside keel since its last change \(not by your calls\): notes\.md/,
      );
    });
  },
);
