import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { goalHandle } from '../../src/client/goal-client';
import { followGoalEvents, type GoalStreamEvent } from '../../src/client/goal-events';
import { StreamEventKind } from '../../src/client/goal-stream';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Issue 46: the live stream of a model call retried mid-answer. The scripted server cuts the first
 * answer with an overloaded_error event after 100 stream events; the retry streams the whole answer
 * again. A viewer following the goal sees the retry's text from its first sentences on (its
 * offsets go on from the first attempt's, carried by the heartbeat Temporal hands the retry),
 * instead of nothing until the retry has streamed as much as the first attempt did.
 */

const SENTENCES = 600;
const ANSWER = Array.from({ length: SENTENCES }, (_, index) => `Sentence ${index + 1}.`).join(' ');

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'retried-stream',
        match: 'GOAL-RETRIED-STREAM',
        turns: [
          {
            text: ANSWER,
            streamChunkDelayMs: 60,
            faults: [{ kind: 'stream-error', afterEvents: 100, requests: 1 }],
          },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

/** The sentence numbers a text event shows. */
const sentencesIn = (text: string) =>
  [...text.matchAll(/Sentence (\d+)\./g)].map((match) => Number(match[1]));

test("a viewer sees a retried answer's text from its start, at offsets after the first attempt's", async () => {
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `retried-stream-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-RETRIED-STREAM: answer at length',
          workspace: tempDirectory(),
          timing: { heartbeatTimeoutMs: 3000, modelRetryCapMs: 500 },
        },
      ],
    });
    const events: GoalStreamEvent[] = [];
    for await (const event of followGoalEvents(goalHandle(harness.client, handle.workflowId), {
      pollMs: 200,
    }))
      events.push(event);
    assert.equal((await handle.result()).status, 'completed');

    const texts = events.filter((event) => event.kind === StreamEventKind.ModelText);
    for (let index = 1; index < events.length; index += 1)
      assert.ok((events[index]?.offset ?? 0) > (events[index - 1]?.offset ?? 0), 'offsets rise');
    // Where the text goes back to an earlier sentence, the retry has begun.
    const restart = texts.findIndex(
      (event, index) =>
        index > 0 &&
        Math.max(...sentencesIn(event.summary), 0) > 0 &&
        Math.max(...sentencesIn(event.summary)) <
          Math.max(...sentencesIn(texts[index - 1]?.summary ?? ''), 0),
    );
    assert.ok(
      restart > 0,
      `the retry's text was shown: ${texts.map((event) => event.summary.slice(-14)).join(' | ')}`,
    );
    const firstOfRetry = Math.max(...sentencesIn(texts[restart]?.summary ?? ''));
    const lastOfFirst = Math.max(...sentencesIn(texts[restart - 1]?.summary ?? ''));
    assert.ok(
      firstOfRetry < lastOfFirst,
      `the retry is shown from sentence ${firstOfRetry}, before it passed the first attempt's ${lastOfFirst}`,
    );
  });
});
