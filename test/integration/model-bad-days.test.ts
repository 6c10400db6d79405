import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { RecordedRequest } from '../../src/scripted-model/scripted-messages-server';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { FailureType } from '../../src/workflows/common/failure-types';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * The model API's bad days (issue 42), on the real dev server with the scripted endpoint's
 * faults (bad-days.ts). Time comes from short settings: a 200 ms backoff cap instead of 10 s, a
 * 1.5 s silence bound instead of a minute, patience of seconds instead of hours.
 */

const SILENCE_MS = 1500;
const CAP_MS = 200;
const LONG_ANSWER = Array.from({ length: 60 }, (_, index) => `Sentence ${index + 1} of a long answer.`).join(
  ' ',
);

const timing = {
  heartbeatTimeoutMs: 3000,
  streamSilenceMs: SILENCE_MS,
  modelRetryCapMs: CAP_MS,
  modelTimeoutMs: 3000,
};

let harness: Harness;

before(async () => {
  const scenario = (name: string, turn: Record<string, unknown>) => ({
    name,
    match: `GOAL-${name.toUpperCase()}`,
    turns: [{ text: `${name} answered`, ...turn }],
  });
  harness = await createHarness({
    scenarios: [
      scenario('rate-limited', { faults: [{ kind: 'rate-limited', retryAfterSeconds: 1, requests: 11 }] }),
      scenario('overloaded', {
        faults: [
          { kind: 'overloaded', requests: 12 },
          { kind: 'server-error', status: 503 },
        ],
      }),
      scenario('outage', { faults: [{ kind: 'overloaded', forMs: 2500 }] }),
      scenario('stream-error', { faults: [{ kind: 'stream-error', afterEvents: 4, requests: 2 }] }),
      scenario('unavailable', { faults: [{ kind: 'overloaded', forMs: 600_000 }] }),
      scenario('unauthorized', { failures: [{ status: 401, message: 'invalid x-api-key' }] }),
      scenario('stalled', { faults: [{ kind: 'stall', afterEvents: 3 }] }),
      scenario('pinging', { faults: [{ kind: 'stall', afterEvents: 3, stallMs: 3000, pingEveryMs: 300 }] }),
      { name: 'slow', match: 'GOAL-SLOW', turns: [{ text: LONG_ANSWER, streamChunkDelayMs: 100 }] },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function run(goal: string, extra: Partial<GoalInput> = {}) {
  return harness.client.workflow.execute(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `bad-days-${goal.toLowerCase()}-${Date.now()}`,
    args: [{ goal: `GOAL-${goal}: answer`, workspace: tempDirectory(), timing, ...extra }],
  });
}

function requestsOf(scenario: string): RecordedRequest[] {
  return harness.scripted.requests.filter((request) => request.scenario === scenario);
}

test(
  'a long stretch of 429s (more than ten) is waited out, never asking before retry-after',
  { timeout: 60_000 },
  async () => {
    const result = await harness.withWorker(() => run('RATE-LIMITED'));
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'rate-limited answered');
    const requests = requestsOf('rate-limited');
    assert.deepEqual(
      requests.map((request) => request.status),
      [...Array<number>(11).fill(429), 200],
    );
    assert.ok(
      requests.every((request) => request.early !== true),
      'no request before its retry-after',
    );
    for (let index = 1; index < requests.length; index++) {
      const gap = (requests[index]?.receivedAt ?? 0) - (requests[index - 1]?.receivedAt ?? 0);
      assert.ok(gap >= 1000, `request ${index + 1} came ${gap} ms after a retry-after of 1 s`);
    }
  },
);

test(
  'a long stretch of 529s and a 503 (more than ten attempts) is waited out',
  { timeout: 60_000 },
  async () => {
    const result = await harness.withWorker(() => run('OVERLOADED'));
    assert.equal(result.status, 'completed');
    assert.deepEqual(
      requestsOf('overloaded').map((request) => request.status),
      [...Array<number>(12).fill(529), 503, 200],
    );
  },
);

test(
  'the first request after an outage ends comes within the backoff cap of its end',
  { timeout: 60_000 },
  async () => {
    const result = await harness.withWorker(() => run('OUTAGE'));
    assert.equal(result.status, 'completed');
    const requests = requestsOf('outage');
    const outageEnds = (requests[0]?.receivedAt ?? 0) + 2500;
    const first = requests.find((request) => request.status === 200);
    assert.ok(first !== undefined);
    const late = first.receivedAt - outageEnds;
    // the cap, plus what a workflow task and an activity task take on a busy test machine
    assert.ok(late <= CAP_MS + 1000, `first request ${late} ms after the outage ended`);
    assert.ok(requests.length >= 3, `retried through the outage (${requests.length} requests)`);
  },
);

test(
  'an error event mid-stream (overloaded_error after a 200) is retried until the answer comes',
  { timeout: 60_000 },
  async () => {
    const result = await harness.withWorker(() => run('STREAM-ERROR'));
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'stream-error answered');
    assert.deepEqual(
      requestsOf('stream-error').map((request) => [
        request.fault ?? 'answered',
        request.interrupted === true,
      ]),
      [
        ['stream-error', true],
        ['stream-error', true],
        ['answered', false],
      ],
    );
  },
);

test(
  'patience used up: the goal fails as ModelUnavailable, saying how long it waited and the last error',
  { timeout: 60_000 },
  async () => {
    const error = await harness
      .withWorker(() => run('UNAVAILABLE', { model: { patienceMs: 2000, maxTokens: 100 } }))
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    assert.ok(error instanceof WorkflowFailedError, 'the goal failed');
    assert.ok(error.cause instanceof ApplicationFailure);
    assert.equal(error.cause.type, FailureType.ModelUnavailable);
    assert.match(error.cause.message, /stayed unavailable for \d+s \(patience 2s\)/);
    assert.match(error.cause.message, /last error: .*529.*overloaded_error/);
    assert.ok(requestsOf('unavailable').length > 3, 'it kept asking while patience lasted');
  },
);

test(
  'a 401 fails the goal at once with its named type and the API message',
  { timeout: 60_000 },
  async () => {
    const error = await harness
      .withWorker(() => run('UNAUTHORIZED'))
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    assert.ok(error instanceof WorkflowFailedError);
    assert.ok(error.cause instanceof ApplicationFailure);
    assert.equal(error.cause.type, FailureType.ModelAuthentication);
    assert.match(error.cause.message, /authentication_error: invalid x-api-key/);
    assert.equal(requestsOf('unauthorized').length, 1, 'no retry');
  },
);

test(
  'a stream that falls silent is ended within the silence bound, and the retry completes',
  { timeout: 60_000 },
  async () => {
    const result = await harness.withWorker(() => run('STALLED'));
    assert.equal(result.status, 'completed');
    const requests = requestsOf('stalled');
    assert.deepEqual(
      requests.map((request) => request.interrupted === true),
      [true, false],
    );
    const caughtAfter = (requests[1]?.receivedAt ?? 0) - (requests[0]?.receivedAt ?? 0);
    assert.ok(caughtAfter < SILENCE_MS + 2500, `the silent stream was asked again after ${caughtAfter} ms`);
  },
);

test(
  'an answer streaming longer than the silence bound and modelTimeoutMs completes',
  { timeout: 60_000 },
  async () => {
    const started = Date.now();
    const result = await harness.withWorker(() => run('SLOW'));
    assert.equal(result.finalText, LONG_ANSWER);
    assert.ok(Date.now() - started > timing.modelTimeoutMs, 'it streamed longer than modelTimeoutMs');
    assert.deepEqual(
      requestsOf('slow').map((request) => request.interrupted === true),
      [false],
      'one request, never cut',
    );
  },
);

test(
  'pings keep a paused stream alive: a pause longer than the silence bound with pings completes',
  { timeout: 60_000 },
  async () => {
    const result = await harness.withWorker(() => run('PINGING'));
    assert.equal(result.finalText, 'pinging answered');
    assert.equal(requestsOf('pinging').length, 1, 'not cut and asked again');
  },
);
