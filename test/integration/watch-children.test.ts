import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { goalHandle, goalResult } from '../../src/client/goal-client';
import { watchCommandAction, watchGoal } from '../../src/cli/watch-view';
import { main } from '../../src/cli/main';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { goalStatusQuery } from '../../src/workflows/goal/messages';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';

/** `keel watch ROOT` shows its delegated children's progress and the calls they wait on (issue 47). */

/** Clear the screen, cursor home: what a TTY frame starts with. */
const CLEAR_SCREEN = '\u001b[2J\u001b[H';

const CHILD_TASK = 'CHILD-WATCHED: list the workspace, then append a line';

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'watched-parent',
        match: 'GOAL-WATCH-CHILDREN',
        turns: [
          { toolCalls: [{ name: 'delegate', input: { task: CHILD_TASK } }] },
          { text: 'the child appended its line' },
        ],
      },
      {
        name: 'watched-child',
        match: 'CHILD-WATCHED',
        turns: [
          { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          // With network allowed (inherited from the parent) run_command is irreversible: it waits.
          { toolCalls: [{ name: 'run_command', input: { command: 'echo child >> effects.txt' } }] },
          { text: 'appended' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test("keel watch ROOT lists its running child with the child's own progress, and the child's waiting call with the command that decides it", async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory('keel-ws-');
    const workflowId = `goal-watch-children-${Date.now()}`;
    const started = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-WATCH-CHILDREN: have a child append a line',
          workspace,
          sandbox: { network: true },
          delegation: { enabled: true },
        },
      ],
    });
    const frames: string[] = [];
    const log: string[] = [];
    // A terminal and a log watch the same root at once.
    const onTerminal = watchCommandAction({
      client: harness.client,
      workflowId,
      write: (text) => frames.push(text),
      isTTY: true,
      intervalMs: 100,
    });
    const inLog = watchGoal(goalHandle(harness.client, workflowId), {
      write: (text) => log.push(text),
      intervalMs: 100,
    });
    try {
      const childId = `${workflowId}-delegate-1`;
      const waiting = await eventually(async () => {
        const calls = (await started.query(goalStatusQuery)).childApprovals ?? [];
        return calls.length === 1 ? calls[0] : undefined;
      });
      assert.equal(waiting?.workflowId, childId);
      assert.equal(waiting?.reversibility, 'irreversible');
      // The child's own answer, which the frame must show: parked on its call, so it holds still.
      const child = await eventually(async () => {
        const view = await harness.client.workflow.getHandle(childId).query(goalStatusQuery);
        return view.phase === 'awaiting-approval' ? view : undefined;
      });
      assert.equal(child.counters.modelTurns, 2);
      const childLine = `child delegate-1 (shared): running · awaiting-approval · turns 2 · tool calls ${child.counters.toolCalls} — ${CHILD_TASK}`;
      const approve = `keel approve ${workflowId} ${waiting?.qualifiedId}`;
      const frame = await eventually(() => {
        const latest = frames.filter((chunk) => chunk.startsWith(CLEAR_SCREEN)).at(-1) ?? '';
        return Promise.resolve(latest.includes(childLine) && latest.includes(approve) ? latest : undefined);
      });
      const lines = frame.slice(CLEAR_SCREEN.length).split('\n');
      assert.equal(lines[0], `keel watch ${workflowId}`);
      assert.ok(lines.includes(childLine), frame);
      const header = lines.indexOf('waiting in child goals (1):');
      assert.ok(header > lines.indexOf(childLine), frame);
      assert.match(
        lines[header + 1] ?? '',
        new RegExp(
          `^ {2}! ${waiting?.qualifiedId}: run_command: echo child >> effects\\.txt \\(irreversible\\) until \\S+ \\([^)]+ left\\)$`,
        ),
        frame,
      );
      assert.equal(
        lines[header + 2],
        `    ${approve} [--rule 'PATTERN']   |   keel deny ${workflowId} ${waiting?.qualifiedId} [--forbid 'PATTERN']`,
      );
      // The log shows the same lines, with no countdown.
      await eventually(() => Promise.resolve(log.join('').includes(childLine)));

      // The command the frame shows decides the child's call from the root.
      const address = await temporalAddress();
      assert.equal(await main(['--address', address, 'approve', workflowId, waiting?.qualifiedId ?? '']), 0);
      const [onTerminalResult, inLogResult] = await Promise.all([onTerminal, inLog]);
      assert.equal(onTerminalResult.status, 'completed');
      assert.equal(inLogResult.status, 'completed');
      assert.equal((await goalResult(started)).finalText, 'the child appended its line');
      assert.equal(readFileSync(path.join(workspace, 'effects.txt'), 'utf8'), 'child\n');

      // A log says when the child started and when it ended: the root's own events, said once.
      const output = log.join('');
      assert.match(
        output,
        new RegExp(`^\\[\\d+\\] delegate\\.started: delegated to ${childId}: `, 'm'),
        output,
      );
      assert.match(
        output,
        new RegExp(`^\\[\\d+\\] delegate\\.finished: ${childId} completed: `, 'm'),
        output,
      );
      // Once the child ended, the terminal's last frame lists neither it nor its call.
      const last = frames.filter((chunk) => chunk.startsWith(CLEAR_SCREEN)).at(-1) ?? '';
      assert.ok(!last.includes('child delegate-1') && !last.includes('waiting in child goals'), last);
    } finally {
      // Nothing left running on a failure: terminating the root terminates its child too, and the
      // watches end while the worker can still answer their last queries (with none, they would
      // hang on the closed goal and keep the test process alive).
      await started.terminate('test cleanup').catch(() => undefined);
      await Promise.allSettled([onTerminal, inLog]);
    }
  });
});
