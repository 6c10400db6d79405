import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { createModelActivities } from '../../src/activities/model/model-activity';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { FailureType, RetryableModelFailureType } from '../../src/workflows/common/failure-types';
import { createHarness, historyText, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

const NON_RETRYABLE: Array<[number, string]> = [
  [400, FailureType.ModelBadRequest],
  [401, FailureType.ModelAuthentication],
  [403, FailureType.ModelPermissionDenied],
  [404, FailureType.ModelNotFound],
  [422, FailureType.ModelUnprocessable],
];
const RETRYABLE: Array<[number, string]> = [
  [408, RetryableModelFailureType.Timeout],
  [409, RetryableModelFailureType.Conflict],
  [429, RetryableModelFailureType.RateLimited],
  [500, RetryableModelFailureType.ServerError],
  [503, RetryableModelFailureType.ServerError],
  [529, RetryableModelFailureType.Overloaded],
];

let harness: Harness;
let direct: ScriptedMessagesServer;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'flaky',
        match: 'GOAL-FLAKY',
        turns: [
          {
            failures: [{ status: 529 }, { status: 429, retryAfterSeconds: 0 }, { status: 500 }],
            text: 'answered after three failures',
          },
        ],
      },
      ...NON_RETRYABLE.map(([status]) => ({
        name: `status-${status}`,
        match: `GOAL-STATUS-${status}`,
        turns: [{ failures: [{ status }], text: 'unreachable' }],
      })),
    ],
  });
  direct = await startScriptedMessagesServer({
    scenarios: [...NON_RETRYABLE, ...RETRYABLE].map(([status]) => ({
      name: `direct-${status}`,
      match: `DIRECT-${status}`,
      turns: [{ failures: [{ status }], text: 'ok' }],
    })),
  });
});

after(async () => {
  await harness.close();
  await direct.close();
  await stopOwnServer();
});

test('the model activity maps every status to a retryable or a named non-retryable failure', async () => {
  const activities = createModelActivities({
    client: new Anthropic({ apiKey: 'k', baseURL: direct.url, maxRetries: 0 }),
  });
  for (const [status, type] of [...NON_RETRYABLE, ...RETRYABLE]) {
    const error = await activities
      .callModel({
        model: { name: 'claude-test', maxTokens: 100 },
        system: 's',
        messages: [{ role: 'user', content: [{ type: 'text', text: `DIRECT-${status}` }] }],
        tools: [],
        goalId: 'g',
        turn: 1,
      })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    assert.ok(error instanceof ApplicationFailure, `status ${status} gives an ApplicationFailure`);
    assert.equal(error.type, type, `status ${status}`);
    assert.equal(
      error.nonRetryable,
      NON_RETRYABLE.some(([s]) => s === status),
      `status ${status} retryability`,
    );
    assert.match(error.message, new RegExp(`answered ${status}`));
  }
  // exactly one request per status: the SDK's own retries are off
  assert.equal(direct.requests.length, NON_RETRYABLE.length + RETRYABLE.length);
});

test('overload, rate limits and server errors are retried by Temporal until the model answers', async () => {
  const result = await harness.withWorker(() =>
    harness.client.workflow.execute(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `flaky-${Date.now()}`,
      args: [{ goal: 'GOAL-FLAKY: answer eventually', workspace: tempDirectory() }],
    }),
  );
  assert.equal(result.status, 'completed');
  assert.equal(result.finalText, 'answered after three failures');
  const statuses = harness.scripted.requests.filter((r) => r.scenario === 'flaky').map((r) => r.status);
  assert.deepEqual(statuses, [529, 429, 500, 200]);
});

test('400/401/403/404/422 fail the goal at once with a named, non-retryable type', async () => {
  await harness.withWorker(async () => {
    for (const [status, type] of NON_RETRYABLE) {
      const workflowId = `status-${status}-${Date.now()}`;
      const error = await harness.client.workflow
        .execute(goalWorkflow, {
          taskQueue: harness.taskQueue,
          workflowId,
          args: [{ goal: `GOAL-STATUS-${status}`, workspace: tempDirectory() }],
        })
        .then(
          () => undefined,
          (failure: unknown) => failure,
        );
      assert.ok(error instanceof WorkflowFailedError, `status ${status} fails the workflow`);
      assert.ok(error.cause instanceof ApplicationFailure);
      assert.equal(error.cause.type, type);
      assert.equal(
        harness.scripted.requests.filter((r) => r.scenario === `status-${status}`).length,
        1,
        'no retry',
      );
    }
  });
});

test('the API key is sent to the endpoint but never written to workflow history', async () => {
  const workflowId = `key-${Date.now()}`;
  await harness.withWorker(() =>
    harness.client.workflow.execute(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: 'GOAL-FLAKY: again', workspace: tempDirectory() }],
    }),
  );
  assert.ok(harness.scripted.requests.every((request) => request.apiKeyPresent));
  const history = historyText(await harness.client.workflow.getHandle(workflowId).fetchHistory());
  assert.ok(
    history.includes('GOAL-FLAKY: again'),
    'payloads are decoded, so the search below means something',
  );
  assert.ok(!history.includes('test-key-never-in-history'));
});
