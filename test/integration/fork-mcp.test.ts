import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import { goalResult, goalHandle } from '../../src/client/goal-client';
import { keel } from '../support/cli-scenarios';
import {
  eventually,
  createHarness,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { fileTree } from '../support/file-tree';

/**
 * Fork (issue 48) of a goal whose files were changed by an MCP tool — the reference filesystem
 * server from npm, run by the worker — besides keel's own: keel sees those changes only in the
 * files, never in the calls, and each fork still has the files byte for byte as they were at its
 * turn.
 */

/** The MCP server's allowed folder; the goal's workspace is inside it. */
const root = tempDirectory('keel-fork-mcp-');
const workspace = path.join(root, 'ws');
const inWorkspace = (file: string) => path.join(workspace, file);
const mcp = (tool: string, input: Record<string, unknown>) => ({ name: `files__${tool}`, input });
const hold = { when: 'TRY-HOLD', fromTurn: 1, turns: Array.from({ length: 6 }, () => ({ text: 'holding' })) };

let harness: Harness;

before(async () => {
  harness = await createHarness({
    mcpServers: {
      files: {
        command: process.execPath,
        args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), root],
      },
    },
    scenarios: [
      {
        name: 'mcp-files',
        match: 'GOAL-FORK-MCP',
        turns: [
          {
            toolCalls: [
              { name: 'write_file', input: { path: 'a.txt', content: 'one\n' } },
              mcp('create_directory', { path: inWorkspace('docs') }),
            ],
          },
          // The MCP server's writes, edits and moves are destructive: each waits for a human.
          { toolCalls: [mcp('write_file', { path: inWorkspace('docs/notes.md'), content: 'v1\n' })] },
          {
            toolCalls: [
              mcp('edit_file', {
                path: inWorkspace('docs/notes.md'),
                edits: [{ oldText: 'v1', newText: 'v2' }],
              }),
            ],
          },
          {
            toolCalls: [
              mcp('move_file', { source: inWorkspace('a.txt'), destination: inWorkspace('docs/a.txt') }),
            ],
          },
          { text: 'done' },
        ],
        branches: [hold],
      },
    ],
  });
});

after(async () => {
  await harness?.close();
  await stopOwnServer();
});

test(
  'a goal whose files an MCP tool changed forks at every turn with the files byte for byte as they were',
  { timeout: 300_000 },
  async () => {
    await harness.withWorker(async () => {
      mkdirSync(workspace);
      writeFileSync(inWorkspace('kept.txt'), 'kept\n');
      const workflowId = `goal-fork-mcp-${Date.now()}`;
      const at: Record<number, Record<string, string>> = { 1: fileTree(workspace) };
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [
          { goal: 'GOAL-FORK-MCP: change files through MCP', workspace, tools: ['write_file', 'files__*'] },
        ],
      });
      // Parked on turns 2, 3 and 4: the files are as the turn before left them.
      for (const [turn, tool] of [
        [2, 'files__write_file'],
        [3, 'files__edit_file'],
        [4, 'files__move_file'],
      ] as const) {
        const waiting = await eventually(async () => {
          const pending = (await handle.query(goalStatusQuery)).pendingApprovals[0];
          return pending?.toolName === tool ? pending : undefined;
        });
        at[turn] = fileTree(workspace);
        await handle.signal(approveSignal, { callId: waiting.callId, approver: 'test' });
      }
      assert.equal((await goalResult(handle)).status, 'completed');
      at[5] = fileTree(workspace);
      assert.deepEqual(Object.keys(at[5]).sort(), ['docs/a.txt', 'docs/notes.md', 'kept.txt']);
      assert.notDeepEqual(at[3], at[4], 'the MCP edit changed a file');

      const env = { TEMPORAL_ADDRESS: await temporalAddress(), KEEL_TASK_QUEUE: harness.taskQueue };
      for (const turn of [1, 2, 3, 4, 5]) {
        const forkId = `${workflowId}-fork-${turn}`;
        const run = await keel(
          ['fork', workflowId, '--at', String(turn), '--say', 'TRY-HOLD', '--id', forkId],
          env,
        );
        assert.equal(run.code, 0, run.stderr);
        assert.equal((await goalResult(goalHandle(harness.client, forkId))).status, 'completed');
        const folder = /workspace (\S+)/.exec(run.stdout)?.[1] ?? '';
        assert.deepEqual(
          fileTree(folder),
          at[turn],
          `the fork at turn ${turn} has the files of turn ${turn}`,
        );
      }
    });
  },
);
