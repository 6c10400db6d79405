import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { goalHandle } from '../../src/client/goal-client';
import { watchCommandAction, watchGoal } from '../../src/cli/watch-view';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/** Clear the screen, cursor home: what a TTY frame starts with. */
const CLEAR_SCREEN = '\u001b[2J\u001b[H';

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'watched',
        match: 'GOAL-WATCHED',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo watched >> effects.txt' } }] },
          { text: 'watched and done' },
        ],
      },
      {
        name: 'watched-by-command',
        match: 'GOAL-BY-COMMAND',
        turns: [{ toolCalls: [{ name: 'list_dir', input: { path: '.' } }] }, { text: 'listed' }],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

async function start(goal: string) {
  return harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${goal.toLowerCase()}-${Date.now()}`,
    // With network allowed every run_command is irreversible: the append waits for a human.
    args: [
      { goal: `${goal}: append a line`, workspace: tempDirectory('keel-ws-'), sandbox: { network: true } },
    ],
  });
}

test('watchGoal shows the pending approval with its command and ends with the result', async () => {
  await harness.withWorker(async () => {
    const started = await start('GOAL-WATCHED');
    const handle = goalHandle(harness.client, started.workflowId);
    const chunks: string[] = [];
    const watching = watchGoal(handle, { write: (text) => chunks.push(text), intervalMs: 100 });

    const callId = await eventually(async () => {
      const view = await handle.query(goalStatusQuery);
      return view.pendingApprovals[0]?.callId;
    });
    // The watcher must have drawn the approval before anyone acts on it.
    const approveCommand = `keel approve ${handle.workflowId} ${callId}`;
    await eventually(() => Promise.resolve(chunks.join('').includes(approveCommand)));
    await handle.signal(approveSignal, { callId, approver: 'watch-test' });

    const result = await watching;
    assert.equal(result.status, 'completed');
    const output = chunks.join('');
    assert.match(output, /pending approvals \(1\):/);
    assert.match(output, /! run_command: echo watched >> effects\.txt \(irreversible\)/);
    assert.match(output, /awaiting-approval/);
    assert.ok(!output.includes('\u001b'), 'no terminal control codes when not a TTY');
    const lines = output.trimEnd().split('\n');
    assert.equal(lines.at(-1), 'goal completed: final answer given');
    assert.ok(lines.includes('final answer: watched and done'), output);
    // It follows the goal's event stream: each event a line with its offset, in order.
    assert.match(
      output,
      /^\[\d+\] approval\.requested: approval requested: run_command: echo watched >> effects\.txt$/m,
    );
    const offsets = [...output.matchAll(/^\[(\d+)\] /gm)].map((match) => Number(match[1]));
    assert.ok(offsets.length >= 5, output);
    assert.deepEqual(
      offsets,
      [...offsets].sort((a, b) => a - b),
      'offsets rise',
    );
    // How it ended is said once, by the view's last line.
    assert.ok(!/^\[\d+\] goal\.completed: /m.test(output), output);
  });
});

test('watchCommandAction redraws the screen on a TTY and ends with the result summary', async () => {
  await harness.withWorker(async () => {
    const started = await start('GOAL-BY-COMMAND');
    const chunks: string[] = [];
    const result = await watchCommandAction({
      client: harness.client,
      workflowId: started.workflowId,
      write: (text) => chunks.push(text),
      isTTY: true,
      intervalMs: 100,
    });
    assert.equal(result.status, 'completed');
    const frames = chunks.filter((chunk) => chunk.startsWith(CLEAR_SCREEN));
    assert.ok(frames.length >= 1, 'at least one full-screen frame');
    assert.ok(frames.at(-1)?.startsWith(`${CLEAR_SCREEN}keel watch ${started.workflowId}\n`));
    assert.match(chunks.at(-1) ?? '', /^goal completed: final answer given\nfinal answer: listed\n/);

    // The last frame lists the latest events and how to resume; --after resumes there.
    const frame = frames.at(-1) ?? '';
    assert.match(frame, new RegExp(`events \\(resume: keel watch ${started.workflowId} --after \\d+\\):`));
    const shown = [...frame.matchAll(/^ {2}\[(\d+)\] (\S+):/gm)].map((match) => ({
      offset: Number(match[1]),
      kind: match[2],
    }));
    assert.equal(shown.at(-1)?.kind, 'goal.completed', frame);
    const again: string[] = [];
    await watchCommandAction({
      client: harness.client,
      workflowId: started.workflowId,
      write: (text) => again.push(text),
      isTTY: false,
      after: shown.at(-3)?.offset ?? 0,
    });
    // Only the event after it: how the goal ended is said by the view, not as an event line.
    const resumed = again
      .join('')
      .split('\n')
      .filter((line) => /^\[\d+\] /.test(line));
    const next = shown.at(-2);
    assert.deepEqual(resumed, [
      frame
        .split('\n')
        .find((line) => line.startsWith(`  [${next?.offset}] `))
        ?.trim(),
    ]);
  });
});
