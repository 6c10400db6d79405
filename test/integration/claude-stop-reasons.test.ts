import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { goalResult } from '../../src/client/goal-client';
import { FailureType } from '../../src/workflows/common/failure-types';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { approveSignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * The Messages API as a real model meets it, against the strict loopback server: every stop
 * reason, a request too long for the context, extended thinking round trips and prompt caching.
 */

const BIG_FILE = 'x'.repeat(60_000);
const LONG_CONTENT = `${'line of a long file\n'.repeat(400)}the end\n`;

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'cut-call-roomier',
        match: 'GOAL-CUT-CALL-ROOMIER',
        turns: [
          {
            toolCalls: [{ name: 'write_file', input: { path: 'long.txt', content: LONG_CONTENT } }],
            cutBelowMaxTokens: 10_000,
          },
          { text: 'written' },
        ],
      },
      {
        name: 'cut-call-at-limit',
        match: 'GOAL-CUT-CALL-AT-LIMIT',
        turns: [
          {
            text: 'Writing it now.',
            toolCalls: [{ name: 'write_file', input: { path: 'half.txt', content: LONG_CONTENT } }],
            stopReason: 'max_tokens',
          },
          { text: 'I will write it in parts next time.' },
        ],
      },
      {
        name: 'cut-text',
        match: 'GOAL-CUT-TEXT',
        turns: [
          { text: 'The first half of the answer, ', stopReason: 'max_tokens' },
          { text: 'and its end.' },
        ],
      },
      {
        name: 'refusal',
        match: 'GOAL-REFUSAL',
        turns: [{ text: 'I will not help with that.', stopReason: 'refusal' }],
      },
      {
        name: 'paused',
        match: 'GOAL-PAUSED',
        turns: [{ text: 'Still looking… ', stopReason: 'pause_turn' }, { text: 'Found it.' }],
      },
      {
        name: 'too-long-once',
        match: 'GOAL-TOO-LONG-ONCE',
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: 'big.txt' } }] },
          {
            failures: [{ status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' }],
            text: 'read it',
          },
        ],
      },
      {
        name: 'too-long-always',
        match: 'GOAL-TOO-LONG-ALWAYS',
        turns: [
          {
            failures: [
              { status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' },
              { status: 400, message: 'prompt is too long: 209000 tokens > 200000 maximum' },
            ],
            text: 'unreachable',
          },
        ],
      },
      {
        name: 'thinking',
        match: 'GOAL-THINKING',
        turns: [
          {
            thinking: 'SECRET-REASONING-1: list first.',
            toolCalls: [{ name: 'list_dir', input: { path: '.' } }],
          },
          { redactedThinking: true, toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
          {
            thinking: 'SECRET-REASONING-3: now write the summary.',
            toolCalls: [{ name: 'write_file', input: { path: 'summary.txt', content: 'summary' } }],
          },
          { thinking: 'SECRET-REASONING-4: done.', text: 'Summary written.' },
        ],
      },
      {
        name: 'cached',
        match: 'GOAL-CACHED',
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
          { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
          { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] },
          { text: 'cached enough' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function start(goal: string, extra: Partial<GoalInput> = {}, workspace = tempDirectory()) {
  return harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${goal.split(':')[0]?.toLowerCase()}-${Date.now()}`,
    args: [{ goal, workspace, ...extra }],
  });
}

function requestsOf(scenario: string) {
  return harness.scripted.requests.filter((request) => request.scenario === scenario);
}

test('a tool call cut at max_tokens is asked again with the model’s whole room, and then runs whole', async () => {
  const workspace = tempDirectory();
  await harness.withWorker(async () => {
    const handle = await start(
      'GOAL-CUT-CALL-ROOMIER: write long.txt',
      { model: { name: 'claude-sonnet-4-5', maxTokens: 4096 } },
      workspace,
    );
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(readFileSync(path.join(workspace, 'long.txt'), 'utf8'), LONG_CONTENT);
    const firstTurn = requestsOf('cut-call-roomier').filter((request) => request.turnIndex === 0);
    assert.deepEqual(
      firstTurn.map((request) => request.body.max_tokens),
      [4096, 64_000],
    );
    const ledger = await handle.query(ledgerQuery, {});
    assert.match(
      ledger.find((event) => event.kind === 'model.answer_cut')?.summary ?? '',
      /asked again with 64000/,
    );
    assert.equal(result.counters.modelTurns, 2, 'the cut answer is not a turn of its own');
  });
});

test('a tool call cut with no more room to give is never run: the model is told why', async () => {
  const workspace = tempDirectory();
  await harness.withWorker(async () => {
    const handle = await start(
      'GOAL-CUT-CALL-AT-LIMIT: write half.txt',
      { model: { name: 'claude-sonnet-4-5', maxTokens: 64_000 } },
      workspace,
    );
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(existsSync(path.join(workspace, 'half.txt')), false, 'the truncated write never ran');
    assert.equal(result.counters.toolCalls, 0);
    const next = requestsOf('cut-call-at-limit').find((request) => request.turnIndex === 1);
    assert.match(
      JSON.stringify(next?.body.messages?.at(-1)),
      /Not run: your answer reached the max_tokens limit \(64000 tokens\)/,
    );
    const ledger = await handle.query(ledgerQuery, {});
    assert.match(ledger.find((event) => event.kind === 'model.answer_cut')?.summary ?? '', /were not run/);
  });
});

test('an answer cut mid-text is continued, and the final answer is both parts', async () => {
  await harness.withWorker(async () => {
    const result = await (await start('GOAL-CUT-TEXT: explain')).result();
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'The first half of the answer, and its end.');
    const second = requestsOf('cut-text').find((request) => request.turnIndex === 1);
    assert.match(JSON.stringify(second?.body.messages?.at(-1)), /Continue exactly where it stopped/);
  });
});

test('a refusal fails the goal with ModelRefused; a paused turn is sent back and goes on', async () => {
  await harness.withWorker(async () => {
    const refused = await (await start('GOAL-REFUSAL: something')).result().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof WorkflowFailedError);
    assert.ok(refused.cause instanceof ApplicationFailure);
    assert.equal(refused.cause.type, FailureType.ModelRefused);
    assert.match(refused.cause.message, /the model refused to continue: I will not help with that/);

    const paused = await start('GOAL-PAUSED: look it up');
    const result = await paused.result();
    assert.equal(result.finalText, 'Found it.');
    const resumed = requestsOf('paused').find((request) => request.turnIndex === 1);
    assert.equal(resumed?.body.messages?.at(-1)?.role, 'assistant', 'the paused turn went back as it was');
    const ledger = await paused.query(ledgerQuery, {});
    assert.ok(ledger.some((event) => event.kind === 'model.paused'));
  });
});

test('a prompt too long for the context is trimmed harder and sent once more; twice fails with ModelContextTooLong', async () => {
  const workspace = tempDirectory();
  writeFileSync(path.join(workspace, 'big.txt'), BIG_FILE);
  await harness.withWorker(async () => {
    const handle = await start('GOAL-TOO-LONG-ONCE: read big.txt', {}, workspace);
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    const second = requestsOf('too-long-once').filter((request) => request.turnIndex === 1);
    assert.equal(second.length, 2);
    const [refused, retried] = second.map((request) => JSON.stringify(request.body.messages).length);
    // One large step, by the refusal's own figures (210,000 tokens > 200,000): to three quarters
    // of what 200,000 less the answer's room allows of the transcript.
    assert.ok((retried ?? 0) < (refused ?? 0) * 0.8, `trimmed: ${refused} → ${retried}`);
    const ledger = await handle.query(ledgerQuery, {});
    assert.match(
      ledger.find((event) => event.kind === 'context.trimmed')?.summary ?? '',
      /too long for its context window/,
    );

    const failed = await (await start('GOAL-TOO-LONG-ALWAYS: anything')).result().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(failed instanceof WorkflowFailedError);
    assert.equal((failed.cause as ApplicationFailure).type, FailureType.ModelContextTooLong);
    assert.ok(requestsOf('too-long-always').length <= 2, 'never a retry loop');
  });
});

test('extended thinking: thinking goes back signed, first in the tool-use turn, and is never the answer', async () => {
  const workspace = tempDirectory();
  writeFileSync(path.join(workspace, 'notes.txt'), 'some notes');
  await harness.withWorker(async () => {
    const handle = await start(
      'GOAL-THINKING: summarise the notes',
      {
        model: { maxTokens: 8000, thinking: { budgetTokens: 2048 } },
        approvalPolicy: 'ask',
      },
      workspace,
    );
    const pending = await eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]);
    assert.doesNotMatch(
      JSON.stringify(pending),
      /SECRET-REASONING/,
      'an approver sees the call, not the thinking',
    );
    await handle.signal(approveSignal, { callId: pending.callId, approver: 'test' });
    const result = await goalResult(handle);
    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'Summary written.');
    const requests = requestsOf('thinking');
    assert.ok(requests.length >= 4);
    assert.deepEqual(
      requests.map((request) => request.status),
      requests.map(() => 200),
      'no request was rejected',
    );
    for (const request of requests)
      assert.deepEqual(request.body.thinking, { type: 'enabled', budget_tokens: 2048 });
    // The tool-use loop's last answer went back beginning with its thinking, signature and all.
    const third = requests.find((request) => request.turnIndex === 2);
    const lastAssistant = third?.body.messages?.filter((message) => message.role === 'assistant').at(-1);
    assert.equal((lastAssistant?.content as Array<{ type: string }>)[0]?.type, 'redacted_thinking');
    const ledger = await handle.query(ledgerQuery, {});
    assert.ok(
      ledger.some((event) => event.kind === 'model.thought' && /SECRET-REASONING-1/.test(event.summary)),
    );
  });
});

test('prompt caching: later turns read the earlier prefix; a goal can turn it off', async () => {
  const workspace = tempDirectory();
  writeFileSync(path.join(workspace, 'notes.txt'), 'n'.repeat(8000));
  await harness.withWorker(async () => {
    const cached = await (await start('GOAL-CACHED: read around', {}, workspace)).result();
    assert.equal(cached.status, 'completed');
    assert.ok(cached.usage.cacheReadInputTokens > 0, JSON.stringify(cached.usage));
    assert.ok(cached.stats.cacheHitRate > 0.5, `hit rate ${cached.stats.cacheHitRate}`);
    const marks = requestsOf('cached').map(
      (request) => JSON.stringify(request.body).split('"cache_control"').length - 1,
    );
    assert.ok(
      marks.every((count) => count > 0 && count <= 4),
      `breakpoints per request: ${marks.join(',')}`,
    );

    const before = requestsOf('cached').length;
    const uncached = await (
      await start('GOAL-CACHED: read around', { model: { cache: { enabled: false } } }, workspace)
    ).result();
    assert.equal(uncached.usage.cacheReadInputTokens, 0);
    assert.equal(uncached.usage.cacheCreationInputTokens, 0);
    assert.ok(
      requestsOf('cached')
        .slice(before)
        .every((request) => !JSON.stringify(request.body).includes('cache_control')),
    );
  });
});
