import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { READ_FILE_MAX_ATTACHMENT_BYTES } from '../../src/activities/tools/builtin/read-file-media';
import type { RecordedRequest } from '../../src/scripted-model/scripted-messages-server';
import { FailureType } from '../../src/workflows/common/failure-types';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { ONE_PIXEL_PNG, pdfWithPages, pngOfSize } from '../support/media-fixtures';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

// Issue 42 item 7 end to end: the goal's tool_choice, disable_parallel_tool_use, betas and extra
// headers reach the (strict) scripted endpoint on every turn, read_file's PNG and PDF reach the
// model as image and document blocks, and combinations the API would refuse fail the goal at its
// start, before any model call.

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'options',
        match: 'GOAL-OPTIONS',
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: 'pixel.png' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'report.pdf' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'huge.png' } }] },
          { text: 'saw them' },
        ],
      },
      { name: 'refused', match: 'GOAL-REFUSED', turns: [{ text: 'unreachable' }] },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function toolResultParts(request: RecordedRequest | undefined): unknown[] {
  const last = request?.body.messages?.at(-1);
  const block = Array.isArray(last?.content) ? (last.content[0] as { content?: unknown }) : undefined;
  return Array.isArray(block?.content) ? block.content : [block?.content];
}

test('tool_choice, disable_parallel_tool_use and betas reach the endpoint; the PNG and PDF as blocks', async () => {
  const workspace = tempDirectory();
  const pdf = pdfWithPages(2);
  writeFileSync(path.join(workspace, 'pixel.png'), ONE_PIXEL_PNG);
  writeFileSync(path.join(workspace, 'report.pdf'), pdf);
  writeFileSync(path.join(workspace, 'huge.png'), pngOfSize(10, 10, READ_FILE_MAX_ATTACHMENT_BYTES + 1));
  const result = await harness.withWorker(() =>
    harness.client.workflow.execute(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `options-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-OPTIONS: look at the picture and the report',
          workspace,
          model: {
            toolChoice: { type: 'tool', name: 'read_file' },
            disableParallelToolUse: true,
            betas: ['files-api-2025-04-14', 'context-1m-2025-08-07'],
            extraHeaders: { 'x-keel-gateway': 'team-a' },
          },
        },
      ],
    }),
  );
  assert.equal(result.status, 'completed');
  assert.equal(result.finalText, 'saw them');
  const requests = harness.scripted.requests.filter((request) => request.scenario === 'options');
  assert.equal(requests.length, 4);
  for (const request of requests) {
    assert.equal(request.status, 200, request.rejection);
    assert.equal(request.turnIndex >= 0, true, 'an agent turn, not taken for a structured call');
    assert.deepEqual(request.body.tool_choice, {
      type: 'tool',
      name: 'read_file',
      disable_parallel_tool_use: true,
    });
    assert.equal(request.headers['anthropic-beta'], 'files-api-2025-04-14,context-1m-2025-08-07');
    assert.equal(request.headers['x-keel-gateway'], 'team-a');
  }
  assert.deepEqual(toolResultParts(requests[1]).slice(1), [
    {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: ONE_PIXEL_PNG.toString('base64') },
    },
  ]);
  assert.deepEqual(toolResultParts(requests[2]).slice(1), [
    {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') },
    },
  ]);
  // Over the limit: the model reads why, and the goal went on to its answer.
  assert.match(
    String(toolResultParts(requests[3])[0]),
    /huge\.png is a PNG image of 200001 bytes: too large to attach/,
  );
});

test('a named tool the goal does not offer, or forced tool use with thinking: InvalidGoalInput at start', async () => {
  const start = (model: Record<string, unknown>) =>
    harness.withWorker(() =>
      harness.client.workflow
        .execute(goalWorkflow, {
          taskQueue: harness.taskQueue,
          workflowId: `refused-${Date.now()}-${Math.random()}`,
          args: [{ goal: 'GOAL-REFUSED', workspace: tempDirectory(), tools: ['read_file', 'search'], model }],
        })
        .then(
          () => undefined,
          (failure: unknown) => failure,
        ),
    );
  const unknown = await start({ toolChoice: { type: 'tool', name: 'run_command' } });
  assert.ok(unknown instanceof WorkflowFailedError);
  assert.ok(unknown.cause instanceof ApplicationFailure);
  assert.equal(unknown.cause.type, FailureType.InvalidGoalInput);
  assert.match(
    unknown.cause.message,
    /names the tool "run_command", which is not one of this goal's tools \(read_file, search\)/,
  );
  const thinking = await start({ toolChoice: 'any', maxTokens: 8000, thinking: { budgetTokens: 2000 } });
  assert.ok(thinking instanceof WorkflowFailedError);
  assert.ok(thinking.cause instanceof ApplicationFailure);
  assert.equal(thinking.cause.type, FailureType.InvalidGoalInput);
  assert.match(
    thinking.cause.message,
    /toolChoice any forces tool use, which extended thinking does not allow/,
  );
  assert.equal(harness.scripted.requests.filter((request) => request.scenario === 'refused').length, 0);
});
