import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { modelProgress } from '../../src/client/model-progress';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import type { StreamProgress } from '../../src/workflows/goal/model-turn/call-settings';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

/**
 * Every model call streams: max_tokens up to the model's limit works, the pending activity shows
 * the answer forming (heartbeat details, as `temporal workflow describe` prints them), and a
 * worker killed mid-stream costs a retry, not a second answer in history.
 */

const LONG_ANSWER = Array.from({ length: 60 }, (_, index) => `Sentence ${index + 1} of a long answer.`).join(
  ' ',
);
const run = promisify(execFile);

let harness: Harness;
let worker: WorkerProcess | undefined;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'slow-stream',
        match: 'GOAL-SLOW-STREAM',
        turns: [{ text: LONG_ANSWER, streamChunkDelayMs: 60 }],
      },
      {
        name: 'killed-stream',
        match: 'GOAL-KILLED-STREAM',
        turns: [{ text: LONG_ANSWER, streamChunkDelayMs: 120 }],
      },
    ],
  });
});

after(async () => {
  await worker?.stop();
  await harness.close();
  await stopOwnServer();
});

test(
  'a 64,000-token answer streams, with its progress in the pending activity and none of it in history',
  { timeout: 120_000 },
  async () => {
    const address = await temporalAddress();
    await harness.withWorker(async () => {
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId: `slow-stream-${Date.now()}`,
        args: [
          {
            goal: 'GOAL-SLOW-STREAM: answer at length',
            workspace: tempDirectory(),
            model: { name: 'claude-sonnet-4-6', maxTokens: 64_000 },
            timing: { heartbeatTimeoutMs: 3000 },
          },
        ],
      });
      const forming: StreamProgress = await eventually(async () => {
        const progress = await modelProgress(harness.client, handle);
        return progress !== undefined && progress.outputTokens > 0 ? progress : undefined;
      });
      assert.equal(forming.writing, 'text');
      assert.match(forming.latest, /Sentence \d+ of a long answer/);
      // The Temporal CLI shows the same: the pending callModel activity with its heartbeat details.
      const described = await eventually(async () => {
        const { stdout } = await run('temporal', [
          'workflow',
          'describe',
          '--address',
          address,
          '--workflow-id',
          handle.workflowId,
          '--output',
          'json',
        ]);
        return /model-stream/.test(stdout) ? stdout : undefined;
      });
      assert.match(described, /callModel/);
      assert.match(described, /Sentence \d+ of a long answer/);
      const result = await handle.result();
      assert.equal(result.finalText, LONG_ANSWER);
      const requests = harness.scripted.requests.filter((request) => request.scenario === 'slow-stream');
      assert.deepEqual(
        requests.map((request) => [request.stream, request.body.max_tokens]),
        [[true, 64_000]],
      );
      const history = JSON.stringify((await handle.fetchHistory()).events);
      assert.doesNotMatch(history, /model-stream/, 'heartbeat progress never lands in history');
    });
  },
);

test(
  'a worker killed mid-stream: the call is retried, and history holds one answer',
  { timeout: 180_000 },
  async () => {
    const address = await temporalAddress();
    const startWorker = () =>
      startWorkerProcess({ address, taskQueue: harness.taskQueue, modelBaseUrl: harness.scripted.url });
    worker = await startWorker();
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `killed-stream-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-KILLED-STREAM: answer at length',
          workspace: tempDirectory(),
          timing: { heartbeatTimeoutMs: 2000 },
        },
      ],
    });
    await eventually(async () => {
      const progress = await modelProgress(harness.client, handle);
      return progress !== undefined && progress.outputTokens > 20 ? progress : undefined;
    });
    await worker.kill9();
    worker = await startWorker();
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, LONG_ANSWER);
    const events = (await handle.fetchHistory()).events ?? [];
    const started = events
      .filter((event) => event.activityTaskStartedEventAttributes)
      .map((event) => event.activityTaskStartedEventAttributes?.attempt);
    assert.ok(started.includes(2), `a second attempt ran: ${JSON.stringify(started)}`);
    const modelCalls = events
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
      .map((event) => String(event.eventId));
    assert.equal(modelCalls.length, 1, 'one model call scheduled, however often it was attempted');
    const answers = events.filter((event) =>
      modelCalls.includes(String(event.activityTaskCompletedEventAttributes?.scheduledEventId ?? '')),
    );
    assert.equal(answers.length, 1, 'one model answer in history');
    const streamed = harness.scripted.requests.filter((request) => request.scenario === 'killed-stream');
    assert.equal(streamed.length, 2, 'the cut stream and its retry');
    // Stopped here, not at the end of the file: the next test's worker serves the same host id,
    // which a live worker process would still hold (host-claim).
    await worker.stop();
    worker = undefined;
  },
);

test('cancelling the goal mid-stream aborts the stream', { timeout: 120_000 }, async () => {
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `cancelled-stream-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-KILLED-STREAM: answer at length, then be cancelled',
          workspace: tempDirectory(),
          timing: { heartbeatTimeoutMs: 2000 },
        },
      ],
    });
    const before = harness.scripted.requests.length;
    await eventually(async () => {
      const progress = await modelProgress(harness.client, handle);
      return progress !== undefined && progress.outputTokens > 0 ? progress : undefined;
    });
    await handle.cancel();
    await handle.result().catch(() => undefined);
    const stream = await eventually(() =>
      Promise.resolve(
        harness.scripted.requests.slice(before).find((request) => request.interrupted === true),
      ),
    );
    assert.equal(stream.stream, true, 'the streamed answer was cut off by the client, not finished');
  });
});
