import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadScenarioFile } from '../../src/scripted-model/scenario';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { PARKED_RUN_EVENTS_LIMIT } from '../../src/workflows/goal/lifecycle/history-limits';
import { goalResult, goalHandle } from '../../src/client/goal-client';
import { keel } from '../support/cli-scenarios';
import { of } from '../support/delegation-scenarios';
import { fileTree } from '../support/file-tree';
import { invoiceTool } from '../support/invoice-tool';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';

/**
 * Fork and rewind (issue 48) through the CLI, on the shared dev server: a goal changes its files
 * every way an agent does — write_file, edit_file, shell commands that build, edit with sed,
 * delete and rename — across a continue-as-new; a fork at every turn gets the files byte for
 * byte as they were then; a fork told something else does something else; a parked goal rewinds
 * in place; an irreversible call made after the fork point is listed and never made again.
 */

const write = (file: string, content: string) => ({ name: 'write_file', input: { path: file, content } });
const command = (text: string) => ({ name: 'run_command', input: { command: text } });
/** Any turn of a fork told HOLD answers at once: its files stay as they were restored. */
const hold = {
  when: 'TRY-HOLD',
  fromTurn: 1,
  turns: Array.from({ length: 6 }, () => ({ text: 'holding still' })),
};

const invoices = invoiceTool();

let harness: Harness;
let env: NodeJS.ProcessEnv;

before(async () => {
  harness = await createHarness({
    tools: [invoices.tool],
    scenarios: [
      loadScenarioFile(path.resolve(__dirname, '../../scenarios/fork-demo.yaml')),
      {
        name: 'files',
        match: 'GOAL-FORK-FILES',
        turns: [
          { toolCalls: [write('a.txt', 'one\n'), command('mkdir -p build && echo built > build/out.txt')] },
          {
            toolCalls: [
              { name: 'edit_file', input: { path: 'a.txt', oldString: 'one', newString: 'two' } },
              command('sed -i s/x/y/ s.txt && chmod +x s.txt && ln -s a.txt link'),
            ],
          },
          // Deletes and renames: held for a human, so the goal parks here.
          { toolCalls: [command('rm gone.txt && mv old.txt new.txt')] },
          { toolCalls: [write('c.txt', 'three\n')] },
          { text: 'done A' },
        ],
        branches: [
          hold,
          { when: 'TRY-B', fromTurn: 3, turns: [{ toolCalls: [write('b.txt', 'B\n')] }, { text: 'done B' }] },
        ],
      },
      {
        name: 'invoice',
        match: 'GOAL-FORK-INVOICE',
        turns: [
          { toolCalls: [write('draft.txt', 'invoice draft\n')] },
          { toolCalls: [{ name: 'send_invoice', input: { customer: 'acme' } }] },
          { text: 'invoiced' },
        ],
        branches: [hold],
      },
    ],
  });
  env = { TEMPORAL_ADDRESS: await temporalAddress(), KEEL_TASK_QUEUE: harness.taskQueue };
});

after(async () => {
  await harness?.close();
  await stopOwnServer();
});

const tree = (root: string) => fileTree(root);

/** A workspace inside a folder of its own, so forks beside it and keel's state go when the folder goes. */
function freshWorkspace(prefix: string): string {
  const workspace = path.join(tempDirectory(prefix), 'ws');
  mkdirSync(workspace);
  return workspace;
}

/** An entry of `tree` with other content and the same mode. */
const withContent = (entry: string | undefined, text: string) =>
  `${entry?.split(' ')[0] ?? '?'} ${Buffer.from(text).toString('base64')}`;

async function waitingCall(workflowId: string): Promise<string> {
  return eventually(
    async () =>
      (await goalHandle(harness.client, workflowId).query(goalStatusQuery)).pendingApprovals[0]?.callId,
  );
}

async function runFilesGoal(workflowId: string, workspace: string, options: { newRun: boolean }) {
  writeFileSync(path.join(workspace, 'old.txt'), 'old\n');
  writeFileSync(path.join(workspace, 'gone.txt'), 'gone\n');
  writeFileSync(path.join(workspace, 's.txt'), 'x marks\n');
  const at: Record<number, Record<string, string>> = { 1: tree(workspace) };
  const handle = await harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId,
    args: [{ goal: 'GOAL-FORK-FILES: change files every way', workspace }],
  });
  const callId = await waitingCall(workflowId);
  // Parked on turn 3: the files are as turn 2 left them, and as they were when turn 3 began.
  at[3] = tree(workspace);
  const reference = tempDirectory('keel-fork-reference-');
  cpSync(workspace, reference, { recursive: true, verbatimSymlinks: true });
  if (options.newRun) {
    const run = (await handle.describe()).runId;
    // Ignored signals grow the parked run past its limit: the waiting turn moves to a new run.
    for (let index = 0; (await handle.describe()).historyLength < PARKED_RUN_EVENTS_LIMIT + 10; index += 1)
      await handle.signal(approveSignal, { callId: `call_unknown_${index}`, approver: 'test' });
    await eventually(async () => ((await handle.describe()).runId !== run ? true : undefined), 60_000);
  }
  return { handle, callId, at, reference };
}

test(
  'a fork at every turn, across a continue-as-new, has the files byte for byte as they were then',
  { timeout: 300_000 },
  async () => {
    await harness.withWorker(async () => {
      const workspace = freshWorkspace('keel-fork-ws-');
      const workflowId = `goal-fork-files-${Date.now()}`;
      const { handle, callId, at, reference } = await runFilesGoal(workflowId, workspace, { newRun: true });
      assert.deepEqual(tree(reference), at[3], 'the reference copy is the workspace at turn 3');
      await handle.signal(approveSignal, { callId, approver: 'test' });
      assert.equal((await goalResult(handle)).status, 'completed');
      const end = tree(workspace);
      assert.notDeepEqual(end, at[3]);
      // Turn 2: turn 1's two files added; turn 4: turn 3's deletion and rename; turn 5: the end.
      at[2] = {
        ...at[1],
        'a.txt': withContent(end['a.txt'], 'one\n'),
        'build/out.txt': withContent(end['build/out.txt'], 'built\n'),
      };
      const { 'c.txt': written, ...before5 } = end;
      assert.ok(
        written !== undefined && before5['new.txt'] !== undefined && before5['gone.txt'] === undefined,
      );
      at[4] = before5;
      at[5] = end;
      for (const turn of [1, 2, 3, 4, 5]) {
        const forkId = `${workflowId}-fork-${turn}`;
        const run = await keel(
          ['fork', workflowId, '--at', String(turn), '--say', 'TRY-HOLD', '--id', forkId],
          env,
        );
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, new RegExp(`forked ${workflowId} at turn ${turn} as ${forkId}`));
        const fork = goalHandle(harness.client, forkId);
        assert.equal((await goalResult(fork)).status, 'completed');
        const forked = (await fork.describe()).searchAttributes;
        assert.deepEqual(forked.KeelForkOf, [workflowId]);
        const folder = /workspace (\S+)/.exec(run.stdout)?.[1] ?? '';
        assert.deepEqual(tree(folder), at[turn], `the fork at turn ${turn} has the files of turn ${turn}`);
        const forkedEvent = of(await fork.query(ledgerQuery, {}), 'goal.forked')[0];
        assert.equal(forkedEvent?.data.turn, turn);
        assert.match(
          (await fork.query(goalStatusQuery)).lineage ?? '',
          new RegExp(`forked from ${workflowId} at turn ${turn}`),
        );
      }
      const status = await keel(['status', `${workflowId}-fork-3`], env);
      assert.match(status.stdout, new RegExp(`forked from ${workflowId} at turn 3`));
    });
  },
);

test(
  'the demo scenario: a fork told to use YAML does, from the files of turn 2',
  { timeout: 180_000 },
  async () => {
    await harness.withWorker(async () => {
      const workspace = freshWorkspace('keel-fork-demo-');
      const workflowId = `goal-fork-demo-${Date.now()}`;
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [{ goal: 'SCRIPTED-FORK: write the config', workspace }],
      });
      assert.equal(
        (await goalResult(handle)).finalText,
        'config.json is on port 9090 and dist/ has the first build.',
      );
      const forkId = `${workflowId}-yaml`;
      const folder = path.join(path.dirname(workspace), 'yaml');
      // The CLI's own queue is another: the fork goes where the original's workers are.
      const run = await keel(
        ['fork', workflowId, '--at', '2', '--say', 'use YAML', '--workspace', folder, '--id', forkId],
        { ...env, KEEL_TASK_QUEUE: 'not-the-goals-queue' },
      );
      assert.equal(run.code, 0, run.stderr);
      assert.equal((await goalHandle(harness.client, forkId).describe()).taskQueue, harness.taskQueue);
      const result = await goalResult(goalHandle(harness.client, forkId));
      assert.equal(result.finalText, 'config.yaml written instead of going on with JSON.');
      const json = tree(workspace)['config.json'] ?? '';
      assert.deepEqual(tree(folder), {
        'config.json': withContent(json, '{"port": 8080}\n'),
        'config.yaml': withContent(json, 'port: 8080\n'),
      });
      // The original's files are its own: the fork never touched them.
      assert.equal(readFileSync(path.join(workspace, 'config.json'), 'utf8'), '{"port": 9090}\n');
      assert.equal(readFileSync(path.join(workspace, 'dist', 'config.json'), 'utf8'), '{"port": 8080}\n');
      // Bad input: one line, exit 2, nothing started.
      const missing = await keel(['fork', workflowId, '--at', '99'], env);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /has turns 1–4; there is no turn 99/);
      const taken = await keel(['fork', workflowId, '--at', '2', '--workspace', folder], env);
      assert.equal(taken.code, 2);
      assert.match(taken.stderr, /exists and is not empty/);
      const nobody = await keel(['fork', `${workflowId}-nobody`, '--at', '1'], env);
      assert.equal(nobody.code, 2);
      assert.match(nobody.stderr, /no goal with id/);
    });
  },
);

test(
  'a parked goal rewinds in place: its files go back, the waiting call is gone, it goes on differently',
  { timeout: 180_000 },
  async () => {
    await harness.withWorker(async () => {
      const workspace = freshWorkspace('keel-rewind-ws-');
      const workflowId = `goal-rewind-${Date.now()}`;
      const { at } = await runFilesGoal(workflowId, workspace, { newRun: false });
      const run = await keel(['rewind', workflowId, '--to', '2', '--say', 'TRY-B now'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`rewound ${workflowId} to turn 2`));
      const handle = goalHandle(harness.client, workflowId);
      const result = await goalResult(handle);
      assert.equal(result.finalText, 'done B');
      // Turn 2 ran again from its own files (a.txt "one" → "two"), then the branch wrote b.txt; nothing was deleted.
      assert.deepEqual(tree(workspace), { ...at[3], 'b.txt': withContent(at[3]?.['a.txt'], 'B\n') });
      assert.equal(of(await handle.query(ledgerQuery, {}), 'goal.rewound').length, 1);
      assert.equal((await handle.query(goalStatusQuery)).pendingApprovals.length, 0);
    });
  },
);

test(
  'an irreversible call made after the fork point is listed, told to the model, and never made again',
  { timeout: 180_000 },
  async () => {
    await harness.withWorker(async () => {
      const workspace = freshWorkspace('keel-fork-invoice-');
      const workflowId = `goal-fork-invoice-${Date.now()}`;
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [
          { goal: 'GOAL-FORK-INVOICE: draft and send', workspace, tools: ['write_file', 'send_invoice'] },
        ],
      });
      await handle.signal(approveSignal, { callId: await waitingCall(workflowId), approver: 'test' });
      assert.equal((await goalResult(handle)).status, 'completed');
      assert.equal(invoices.sent(), 1);
      // A rewind past it asks first, and changes nothing without --yes.
      const refused = await keel(['rewind', workflowId, '--to', '2'], env);
      assert.equal(refused.code, 2);
      assert.match(refused.stdout, /turn 2 call-\d+: send_invoice/);
      assert.match(refused.stderr, /not rewound: 1 irreversible call\(s\) since turn 2; add --yes/);
      assert.equal((await handle.describe()).status.name, 'COMPLETED');
      const forkId = `${workflowId}-fork`;
      const run = await keel(['fork', workflowId, '--at', '2', '--say', 'TRY-HOLD', '--id', forkId], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /irreversible calls .* not undone/);
      assert.match(run.stdout, /turn 2 call-\d+: send_invoice/);
      const fork = goalHandle(harness.client, forkId);
      assert.equal((await goalResult(fork)).status, 'completed');
      assert.equal(invoices.sent(), 1, 'the fork did not send it again');
      const forked = of(await fork.query(ledgerQuery, {}), 'goal.forked')[0];
      assert.equal((forked?.data.irreversibleAfter as unknown[]).length, 1);
      const told = harness.scripted.requests.filter(
        (request) =>
          request.scenario === 'invoice' && JSON.stringify(request.body.messages).includes('TRY-HOLD'),
      );
      assert.match(JSON.stringify(told[0]?.body), /these irreversible calls were made/);
      const folder = /workspace (\S+)/.exec(run.stdout)?.[1] ?? '';
      assert.equal(path.dirname(folder), path.dirname(workspace), 'beside the original');
      assert.equal(readFileSync(path.join(folder, 'draft.txt'), 'utf8'), 'invoice draft\n');
    });
  },
);
