import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { goalHandle } from '../../src/client/goal-client';
import { followGoalEvents, type GoalStreamEvent } from '../../src/client/goal-events';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import { PARKED_RUN_EVENTS_LIMIT } from '../../src/workflows/goal/lifecycle/history-limits';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * The live event stream (src/client/goal-events.ts) on the real dev server with the scripted
 * model: a viewer follows a goal with a read, an approved command and a streamed answer; it
 * disconnects while the approval waits, the goal continues as new and its worker stops; a viewer
 * that resumes from the last offset gets every event after it, once and in order, and the answer's
 * text while the model writes it.
 */

const LONG_ANSWER = Array.from({ length: 100 }, (_, index) => `Streamed sentence ${index + 1}.`).join(' ');

let harness: Harness;

before(async () => {
  harness = await createHarness({
    // Two workers one after the other: without a shared store the second could not extend the
    // model request the first stored (that is model-request-store.test.ts's subject, not this).
    modelRequestStore: false,
    scenarios: [
      {
        name: 'followed',
        match: 'GOAL-FOLLOWED',
        turns: [
          { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          { toolCalls: [{ name: 'run_command', input: { command: 'echo followed >> effects.txt' } }] },
          { text: LONG_ANSWER, streamChunkDelayMs: 100 },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

/** Follows until `until` holds for an event (then disconnects) or the goal ends. */
async function follow(
  events: AsyncGenerator<GoalStreamEvent>,
  into: GoalStreamEvent[],
  until: (event: GoalStreamEvent) => boolean = () => false,
): Promise<void> {
  for await (const event of events) {
    into.push(event);
    if (until(event)) break;
  }
}

test(
  'a viewer that reconnects from its last offset misses no event, across continue-as-new and a worker restart',
  { timeout: 240_000 },
  async () => {
    const workflowId = `goal-followed-${Date.now()}`;
    const handle = goalHandle(harness.client, workflowId);
    const first: GoalStreamEvent[] = [];
    const firstRun = await harness.withWorker(async () => {
      await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [
          {
            goal: 'GOAL-FOLLOWED: list, append a line, then answer at length',
            workspace: tempDirectory('keel-ws-'),
            // With network allowed every run_command is irreversible: the append waits for a human.
            sandbox: { network: true },
            timing: { heartbeatTimeoutMs: 3000 },
          },
        ],
      });
      // The first viewer disconnects once the call waits for a human.
      await follow(
        followGoalEvents(handle, { pollMs: 100 }),
        first,
        (event) => event.kind === 'approval.requested',
      );
      const run = (await handle.describe()).runId;
      // Signals that name no call grow the parked run's history (each is ignored, and in the
      // ledger) past PARKED_RUN_EVENTS_LIMIT: the goal then carries the waiting turn to a new run.
      for (let index = 0; (await handle.describe()).historyLength < PARKED_RUN_EVENTS_LIMIT + 10; index += 1)
        await handle.signal(approveSignal, { callId: `call_unknown_${index}`, approver: 'test' });
      await eventually(async () => ((await handle.describe()).runId !== run ? true : undefined), 60_000);
      return run;
    });
    // The worker is gone: the second viewer resumes from the last offset and waits for it.
    const second: GoalStreamEvent[] = [];
    const resumed = follow(
      followGoalEvents(handle, { after: first.at(-1)?.offset ?? 0, pollMs: 100 }),
      second,
    );
    const whole: GoalStreamEvent[] = [];
    const result = await harness.withWorker(async () => {
      const callId = await eventually(
        async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
      );
      await handle.signal(approveSignal, { callId, approver: 'test' });
      await resumed;
      // What a viewer that never left reads now (a closed goal's ledger is read by a worker).
      await follow(followGoalEvents(handle, { pollMs: 100 }), whole);
      return handle.result();
    });
    assert.equal(result.status, 'completed');
    assert.notEqual((await handle.describe()).runId, firstRun);

    const seen = [...first, ...second];
    const kinds = seen.map((event) => event.kind);
    for (let index = 1; index < seen.length; index += 1) {
      assert.ok(
        (seen[index]?.offset ?? 0) > (seen[index - 1]?.offset ?? 0),
        `offsets rise: ${kinds.slice(index - 1, index + 1).join(' then ')}`,
      );
    }
    // Every durable event exactly once and in order.
    const durable = (events: GoalStreamEvent[]): string[] =>
      events.filter((event) => event.kind !== 'model.text').map((event) => `${event.offset} ${event.kind}`);
    assert.deepEqual(durable(seen), durable(whole));
    assert.ok(!kinds.includes('stream.gap'), 'nothing was dropped');
    for (const kind of ['tool.called', 'tool.finished', 'approval.requested', 'model.answered'])
      assert.ok(
        first.some((event) => event.kind === kind),
        `${kind} before the disconnect`,
      );
    for (const kind of ['goal.continued_as_new', 'approval.decided', 'goal.completed'])
      assert.ok(
        second.some((event) => event.kind === kind),
        `${kind} after it`,
      );
    const called = seen.filter((event) => event.kind === 'tool.called').map((event) => event.data.tool);
    assert.deepEqual(called, ['list_dir', 'run_command']);

    // The answer's text arrived while the model wrote it: before the event of the turn's end.
    const answered = second.find((event) => event.kind === 'model.answered' && event.data.turn === 3);
    assert.ok(answered, 'the last turn answered');
    assert.match(String(answered.data.text), /^Streamed sentence 1\./);
    const text = second.filter((event) => event.kind === 'model.text' && event.offset < answered.offset);
    assert.ok(text.length > 0, `text before the turn ended: ${kinds.join(', ')}`);
    for (const event of text)
      assert.ok(LONG_ANSWER.includes(String(event.data.text)), String(event.data.text));
  },
);
