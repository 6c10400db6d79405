import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { decideApprovalUpdate, goalStatusQuery } from '../../src/workflows/goal/messages';
import { changeSetDigest } from '../../src/workflows/approvals/change-set-digest';
import { CONTINUATION_MARK } from '../../src/workflows/tools/call-text';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';

/**
 * Issue 43, item 6: approvers see all they approve. A command deletes 301 files; the held list
 * names every one of them: `keel pending --json` whole, `keel pending` the first 50 and where to
 * read the rest, `keel pending <goal> --changes <callId> --page K` all of them a page at a time.
 * An approval naming a stale digest is refused and applies nothing; one naming the digest shown
 * applies exactly those 301 deletions, and nothing else.
 */

const FILES = 301;
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
        name: 'long-list',
        match: 'GOAL-LONG-LIST',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'rm f*.txt' } }] },
          { text: 'cleaned' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

const refusedWith = (pattern: RegExp) => (error: unknown) =>
  error instanceof WorkflowUpdateFailedError && pattern.test(String(error.cause?.message));

const fileName = (index: number) => `f${String(index).padStart(3, '0')}.txt`;
const remaining = (workspace: string) =>
  readdirSync(workspace)
    .filter((name) => name.endsWith('.txt'))
    .sort();

test('a 301-path deletion is listed whole (JSON, pages), a stale digest applies nothing, the shown one exactly the 301', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory('keel-long-');
    for (let index = 1; index <= FILES; index += 1)
      writeFileSync(path.join(workspace, fileName(index)), `${index}\n`);
    writeFileSync(path.join(workspace, 'keep.txt'), 'not matched by the command\n');
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `long-list-${Date.now()}`,
      args: [{ goal: 'GOAL-LONG-LIST: clean up', workspace }],
    });
    const held = await eventually(async () => {
      const [call] = (await handle.query(goalStatusQuery)).pendingApprovals;
      return call?.heldChanges === undefined ? undefined : call;
    });
    const expected = Array.from({ length: FILES }, (_, index) => fileName(index + 1));
    const common = ['--address', address, '--task-queue', harness.taskQueue];

    // --json: every path, nothing counted instead, and the digest of exactly this set.
    const json = await keel([...common, 'pending', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const entry = (
      JSON.parse(json.stdout) as {
        workflowId: string;
        callId: string;
        heldChanges: { deleted: string[]; omitted?: unknown };
        changesDigest: string;
      }[]
    ).find((candidate) => candidate.workflowId === handle.workflowId);
    assert.deepEqual([...(entry?.heldChanges.deleted ?? [])].sort(), expected, 'all 301 listed');
    assert.equal(entry?.heldChanges.omitted, undefined, 'nothing left unnamed');
    const shownDigest = entry?.changesDigest ?? '';
    assert.equal(
      shownDigest,
      changeSetDigest(held.heldChanges ?? { created: [], modified: [], deleted: [] }),
    );

    // The plain list: the first 50, the count of the rest, where to read them, the digest.
    const plain = await keel([...common, 'pending']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /# deletes: f001\.txt, .*f050\.txt and 251 more\n/);
    assert.ok(plain.stdout.includes(`keel pending ${handle.workflowId} --changes ${held.callId}`));
    assert.ok(plain.stdout.includes(`# these changes: ${shownDigest}`));

    // Page by page, following each page's own pointer to the next, up to the 301st path.
    const paged: string[] = [];
    let next: string[] | undefined = ['pending', handle.workflowId, '--changes', held.callId];
    let pages = 0;
    while (next !== undefined) {
      pages += 1;
      const page = await keel([...common, ...next]);
      assert.equal(page.code, 0, page.stderr);
      const lines = page.stdout.trimEnd().split('\n');
      assert.ok(lines.at(-1)?.includes(shownDigest), 'each page names the digest');
      paged.push(...lines.filter((line) => line.startsWith('delete  ')).map((line) => line.slice(8)));
      const more = lines.find((line) => line.startsWith('# more: keel '));
      next = more?.slice('# more: keel '.length).split(' ');
    }
    assert.deepEqual(paged.sort(), expected, 'the pages reach the 301st path, each path once');
    assert.equal(pages, 2);
    // The details (the Web UI's view of the goal) name every path too.
    const metadata = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    // Long lines are wrapped there, each further piece after the continuation mark: joined again.
    const details = metadata.currentDetails.split(`\n${CONTINUATION_MARK} `).join('');
    assert.ok(
      expected.every((name) => details.includes(name)),
      'details list all 301',
    );
    const beyond = await keel([
      ...common,
      'pending',
      handle.workflowId,
      '--changes',
      held.callId,
      '--page',
      '9',
    ]);
    assert.notEqual(beyond.code, 0);
    assert.match(beyond.stderr, /no page 9 of .*: pages run from 1 to 2 \(301 paths, 200 a page\)/);

    // A digest of another set (the 300 first paths) is refused, and nothing is applied.
    const stale = changeSetDigest({ created: [], modified: [], deleted: expected.slice(0, FILES - 1) });
    await assert.rejects(
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId: held.callId, approved: true, approver: 'ann', changesDigest: stale }],
      }),
      refusedWith(/names change set sha256:[0-9a-f]{64}, but this call holds/),
    );
    assert.equal(remaining(workspace).length, FILES + 1, 'nothing applied');
    assert.equal((await handle.query(goalStatusQuery)).pendingApprovals.length, 1, 'still asked');

    // The digest shown: exactly the 301 deletions are applied, keep.txt stays.
    const approved = await keel([
      ...common,
      'approve',
      handle.workflowId,
      held.callId,
      '--changes',
      shownDigest,
    ]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal((await handle.result()).status, 'completed');
    assert.deepEqual(remaining(workspace), ['keep.txt'], 'exactly the listed set applied');
    assert.equal(existsSync(path.join(workspace, fileName(FILES))), false);
  });
});
