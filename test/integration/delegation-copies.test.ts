import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { goalResult } from '../../src/client/goal-client';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Children on their own copies of the workspace (issue 47, workspace "copy"): they run at once,
 * their changes come back where they do not overlap, and an overlap is shown to the parent's
 * model, never written over what the workspace has.
 */

const write = (file: string, content: string) => ({ name: 'write_file', input: { path: file, content } });
const delegate = (task: string, extra: Record<string, unknown> = {}) => ({
  name: 'delegate',
  input: { task, workspace: 'copy', ...extra },
});

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'two-copies',
        match: 'GOAL-COPIES-TWO',
        turns: [
          { toolCalls: [delegate('CHILD-COPY-ALPHA: edit'), delegate('CHILD-COPY-BRAVO: edit')] },
          { text: 'both children came back' },
        ],
      },
      ...['ALPHA', 'BRAVO'].map((name) => ({
        name: `copy-${name.toLowerCase()}`,
        match: `CHILD-COPY-${name}`,
        turns: [
          {
            toolCalls: [
              write(`${name.toLowerCase()}.txt`, `${name} was here\n`),
              write('shared.txt', `shared, as ${name} left it\n`),
            ],
          },
          { text: `${name.toLowerCase()} done` },
        ],
      })),
      {
        name: 'copy-folder',
        match: 'GOAL-COPIES-FOLDER',
        turns: [
          { toolCalls: [delegate('CHILD-COPY-FOLDER: note what is here', { folder: 'pkg' })] },
          { text: 'the folder has its note' },
        ],
      },
      {
        name: 'folder-child',
        match: 'CHILD-COPY-FOLDER',
        turns: [
          { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          { toolCalls: [write('note.txt', 'only inside.txt here\n')] },
          { text: 'noted' },
        ],
      },
      {
        name: 'copy-fails',
        match: 'GOAL-COPIES-FAILED',
        turns: [
          { toolCalls: [delegate('CHILD-COPY-QUITTER: write then stop', { budget: { maxTurns: 1 } })] },
          { text: 'went on' },
        ],
      },
      {
        name: 'quitter',
        match: 'CHILD-COPY-QUITTER',
        // One model turn is all it may take: it ends at its turn limit, its work half done.
        turns: [{ toolCalls: [write('half.txt', 'half done\n')] }, { text: 'stopped half way' }],
      },
    ],
  });
});

after(async () => {
  await harness?.close();
  await stopOwnServer();
});

function of(ledger: LedgerEvent[], kind: string): LedgerEvent[] {
  return ledger.filter((event) => event.kind === kind);
}

/** Copies keel made beside `workspace` and has not dropped. */
function copiesBeside(workspace: string): string[] {
  const name = path.basename(workspace);
  return readdirSync(path.dirname(workspace)).filter((entry) => entry.startsWith(`${name}.keel-copy-`));
}

test('two children on copies run at once; what does not overlap comes back, the overlap is shown to the parent', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    writeFileSync(path.join(workspace, 'shared.txt'), 'shared, as the parent had it\n');
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-copies-two-${Date.now()}`,
      args: [{ goal: 'GOAL-COPIES-TWO: edit in parallel', workspace, delegation: { enabled: true } }],
    });
    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    const ledger = await handle.query(ledgerQuery, {});
    const started = of(ledger, 'delegate.started');
    const finished = of(ledger, 'delegate.finished');
    assert.equal(started.length, 2);
    // Both began before either ended: children on copies do not wait for each other.
    assert.ok(Math.max(...started.map((e) => e.sequence)) < Math.min(...finished.map((e) => e.sequence)));
    // Both children's own files came back.
    assert.equal(readFileSync(path.join(workspace, 'alpha.txt'), 'utf8'), 'ALPHA was here\n');
    assert.equal(readFileSync(path.join(workspace, 'bravo.txt'), 'utf8'), 'BRAVO was here\n');
    // shared.txt: the first to end brought its version; the second's overlapped and was not applied.
    const [first, second] = finished.map((event) => event.data);
    assert.equal(first?.copy, 'merged');
    assert.equal(first?.applied, 2);
    assert.deepEqual(first?.overlaps, []);
    assert.equal(second?.applied, 1);
    assert.deepEqual(second?.overlaps, ['shared.txt']);
    const winner = String(first?.workflowId).endsWith('-delegate-1') ? 'ALPHA' : 'BRAVO';
    const loser = winner === 'ALPHA' ? 'BRAVO' : 'ALPHA';
    assert.equal(readFileSync(path.join(workspace, 'shared.txt'), 'utf8'), `shared, as ${winner} left it\n`);
    // The parent's model is told, with the diff from its version to the child's.
    const next = harness.scripted.requests.find((r) => r.scenario === 'two-copies' && r.turnIndex === 1);
    const results = JSON.stringify(next?.body.messages?.at(-1));
    assert.match(results, /Not applied, because the same files changed in your workspace since it started/);
    assert.match(results, new RegExp(`\\+shared, as ${loser} left it`));
    assert.match(results, new RegExp(`-shared, as ${winner} left it`));
    assert.deepEqual(copiesBeside(workspace), [], 'each copy is dropped once its child ended');
  });
});

test("a child on a copy that does not complete leaves nothing in the parent's workspace", async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-copies-failed-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-COPIES-FAILED: try',
          workspace,
          delegation: { enabled: true },
        },
      ],
    });
    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    const finished = of(await handle.query(ledgerQuery, {}), 'delegate.finished');
    assert.equal(finished[0]?.data.copy, 'discarded', JSON.stringify(finished[0]?.data));
    assert.deepEqual(readdirSync(workspace), [], 'the half-done work stayed in the dropped copy');
    assert.deepEqual(copiesBeside(workspace), []);
    const next = harness.scripted.requests.find((r) => r.scenario === 'copy-fails' && r.turnIndex === 1);
    assert.match(
      JSON.stringify(next?.body.messages?.at(-1)),
      /changes in its copy of the workspace were discarded/,
    );
  });
});

test('a child on a copy of one folder sees only that folder, and its changes come back into it', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory();
    mkdirSync(path.join(workspace, 'pkg'));
    writeFileSync(path.join(workspace, 'pkg', 'inside.txt'), 'in\n');
    writeFileSync(path.join(workspace, 'outside.txt'), 'out\n');
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-copies-folder-${Date.now()}`,
      args: [{ goal: 'GOAL-COPIES-FOLDER: note', workspace, delegation: { enabled: true } }],
    });
    assert.equal((await goalResult(handle)).status, 'completed');
    assert.equal(readFileSync(path.join(workspace, 'pkg', 'note.txt'), 'utf8'), 'only inside.txt here\n');
    assert.equal(readdirSync(workspace).includes('note.txt'), false);
    const listing = harness.scripted.requests.find((r) => r.scenario === 'folder-child' && r.turnIndex === 1);
    const seen = JSON.stringify(listing?.body.messages?.at(-1));
    assert.match(seen, /inside\.txt/);
    assert.doesNotMatch(seen, /outside\.txt/);
    const finished = of(await handle.query(ledgerQuery, {}), 'delegate.finished')[0]?.data;
    assert.equal(finished?.applied, 1);
    const next = harness.scripted.requests.find((r) => r.scenario === 'copy-folder' && r.turnIndex === 1);
    assert.match(
      JSON.stringify(next?.body.messages?.at(-1)),
      /Its changes now in your workspace: pkg\/note\.txt \(added\)/,
    );
    assert.deepEqual(copiesBeside(workspace), []);
  });
});
