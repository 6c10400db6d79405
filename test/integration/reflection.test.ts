import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createFileReflectionStore } from '../../src/activities/reflection-store/file-reflection-store';
import { taskIdentity } from '../../src/activities/reflection-store/reflection-store';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { goalStatusQuery, ledgerQuery, submitReviewUpdate } from '../../src/workflows/goal/messages';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

const GOAL = 'GOAL-REFLECT: summarise the notes into SUMMARY.md';
const FAILING_GOAL = 'GOAL-REFLECT-FAILS: summarise the notes into SUMMARY.md';

let harness: Harness;

before(async () => {
  const reflectionAnswer = {
    refinedDescription: 'Summarise notes.md into SUMMARY.md as a bullet list.',
    refinedExpectedOutput: 'SUMMARY.md with one bullet per note.',
    observations: ['The notes were short.'],
    suggestions: ['Read notes.md first.'],
  };
  harness = await createHarness({
    scenarios: [
      {
        name: 'reflect',
        match: 'GOAL-REFLECT:',
        turns: [{ text: 'SUMMARY.md written.' }],
        structured: [
          { tool: 'submit_review', input: { accepted: true, reasons: ['every criterion met'] } },
          { tool: 'submit_reflection', input: reflectionAnswer },
        ],
      },
      {
        name: 'reflect-prose',
        match: 'GOAL-REFLECT-PROSE:',
        turns: [{ text: 'SUMMARY.md written.' }],
        structured: [
          { tool: 'submit_review', input: { accepted: true, reasons: [] } },
          {
            tool: 'submit_reflection',
            input: { ...reflectionAnswer, refinedDescription: 'Prose test: read notes.md before writing.' },
          },
          {
            // The second run's prompt carries the first run's notes: this time the answer is prose.
            tool: 'submit_reflection',
            when: 'Prose test: read notes.md before writing.',
            text: 'Honestly the run went fine and I would not change much about it next time.',
          },
        ],
      },
      {
        name: 'human-review',
        match: 'GOAL-HUMAN-REVIEW',
        turns: [{ text: 'Reviewed output.' }],
        structured: [{ tool: 'submit_reflection', input: reflectionAnswer }],
      },
      {
        name: 'reflect-fails',
        match: 'GOAL-REFLECT-FAILS',
        turns: [{ text: 'SUMMARY.md written.' }],
        structured: [
          { tool: 'submit_review', input: { accepted: true, reasons: [] } },
          { tool: 'submit_reflection', failures: [{ status: 400, message: 'reflection request rejected' }] },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

async function runOnce(goal: string) {
  // each call runs its own worker, with a new file store instance over the same directory
  return harness.withWorker(async () => {
    const workflowId = `reflect-${Date.now()}`;
    const result = await harness.client.workflow.execute(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal,
          successCriteria: ['SUMMARY.md exists'],
          workspace: tempDirectory('keel-reflect-'),
          reflection: { enabled: true },
        },
      ],
    });
    return { result, ledger: await harness.client.workflow.getHandle(workflowId).query(ledgerQuery, {}) };
  });
}

function firstRequestOfRun(scenario: string, run: number): string {
  const openings = harness.scripted.requests.filter((r) => r.scenario === scenario && r.turnIndex === 0);
  return JSON.stringify(openings[run]?.body.messages?.[0]);
}

test('the same goal run twice: the second run starts with the improvement notes, runCount is 2', async () => {
  const first = await runOnce(GOAL);
  assert.equal(first.result.status, 'completed');
  assert.equal(first.result.reflection, 'stored (run 1)');
  const reflected = first.ledger.find((event) => event.kind === 'task.reflected');
  assert.equal(reflected?.data.isFirstReflection, true);
  assert.doesNotMatch(firstRequestOfRun('reflect', 0), /Task Improvement Notes/);

  // a new worker (and store instance): the default file store survives the restart
  const second = await runOnce(GOAL);
  assert.equal(second.result.reflection, 'stored (run 2)');
  const opening = firstRequestOfRun('reflect', 1);
  assert.match(opening, /Task Improvement Notes \(from prior executions\)/);
  assert.match(opening, /Summarise notes\.md into SUMMARY\.md as a bullet list\./);
  // the original description still follows, unchanged
  assert.ok(opening.indexOf('Task Improvement Notes') < opening.indexOf(GOAL));

  const store = createFileReflectionStore({ directory: harness.reflectionDirectory });
  const stored = await store.retrieve(taskIdentity(GOAL));
  assert.equal(stored?.runCount, 2);
  assert.deepEqual(stored?.observations, ['The notes were short.']);
  assert.equal(second.ledger.find((event) => event.kind === 'task.reflected')?.data.isFirstReflection, false);
});

test('a failing reflection stores a fallback with the error, and the goal still completes', async () => {
  const { result, ledger } = await runOnce(FAILING_GOAL);
  assert.equal(result.status, 'completed');
  const store = createFileReflectionStore({ directory: harness.reflectionDirectory });
  const stored = await store.retrieve(taskIdentity(FAILING_GOAL));
  assert.equal(stored?.runCount, 1);
  assert.match(stored?.observations[0] ?? '', /Reflection failed:.*reflection request rejected/);
  assert.equal(stored?.refinedDescription, FAILING_GOAL, 'the fallback keeps the original text');
  assert.ok(ledger.some((event) => event.kind === 'task.reflection_failed'));
  assert.equal(result.stats.structuredCalls >= 1, true);
});

test('a later reflection in prose the parser cannot split keeps the earlier notes and records the failure', async () => {
  const goal = 'GOAL-REFLECT-PROSE: summarise the notes into SUMMARY.md';
  const first = await runOnce(goal);
  assert.equal(first.result.reflection, 'stored (run 1)');
  const second = await runOnce(goal);
  assert.equal(second.result.status, 'completed');
  const failed = second.ledger.find((event) => event.kind === 'task.reflection_failed');
  assert.ok(failed, 'the unreadable reflection is recorded');
  assert.equal(failed.data.keptPriorNotes, true);
  const stored = await createFileReflectionStore({ directory: harness.reflectionDirectory }).retrieve(
    taskIdentity(goal),
  );
  assert.equal(stored?.refinedDescription, 'Prose test: read notes.md before writing.');
  assert.deepEqual(stored?.suggestions, ['Read notes.md first.']);
  assert.ok(stored?.observations.includes('The notes were short.'), 'earlier observations are kept');
  assert.match(stored?.observations[0] ?? '', /Reflection failed:.*could be read/);
});

test('a human review by Update accepts the output; the reflection uses the separate reflection model', async () => {
  const goal = 'GOAL-HUMAN-REVIEW: write the summary';
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `human-review-${Date.now()}`,
      args: [
        {
          goal,
          workspace: tempDirectory('keel-reflect-'),
          reflection: { enabled: true, review: 'human', model: 'claude-haiku-4-5' },
        },
      ],
    });
    await eventually(async () => (await handle.query(goalStatusQuery)).awaitingReview || undefined);
    await assert.rejects(
      handle.executeUpdate(submitReviewUpdate, { args: [{ accepted: 'yes' } as never] }),
      (error: unknown) => error instanceof WorkflowUpdateFailedError,
      'a malformed review is refused by the validator',
    );
    const receipt = await handle.executeUpdate(submitReviewUpdate, {
      args: [{ accepted: true, reviewer: 'rita' }],
    });
    assert.deepEqual(receipt, { accepted: true });
    const result = await handle.result();
    assert.equal(result.reflection, 'stored (run 1)');
    const review = (await handle.query(ledgerQuery, {})).find((event) => event.kind === 'review.completed');
    assert.equal(review?.data.by, 'rita');
  });
  const reflectionRequest = harness.scripted.requests.find(
    (r) => r.scenario === 'human-review' && r.structuredTool === 'submit_reflection',
  );
  assert.equal(reflectionRequest?.body.model, 'claude-haiku-4-5');
  const stored = await createFileReflectionStore({ directory: harness.reflectionDirectory }).retrieve(
    taskIdentity(goal),
  );
  assert.equal(stored?.runCount, 1);
});
