import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalResult } from '../../src/client/goal-client';
import { modelTaskQueue } from '../../src/workflows/hosts/host-queues';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * A stopped goal still reports (issue 22): a guard or a limit gets one last model turn without
 * tools, whose text is the goal's final text; the stop is still what the goal ended with. A spent
 * budget gets no report, and a report that fails changes nothing about the ending.
 */

const readMissing = { name: 'read_file', input: { path: 'missing.txt' } };
const LOOP_REPORT = 'Done: looked for missing.txt five times. Left: find out where the file went.';
const LIMIT_REPORT = 'Done: read a.txt and b.txt. Left: c.txt and the summary.';

/** Reads of distinct files: no guard sees a loop, so only a limit or a budget ends these. */
const distinctReads = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    text: `Reading file ${index + 1}.`,
    toolCalls: [{ name: 'read_file', input: { path: `${String.fromCharCode(97 + index)}.txt` } }],
  }));

let harness: Harness;

before(async () => {
  harness = await createHarness({
    // A fleet-wide request limit (high enough never to pace these goals) puts model calls on the
    // model queue: the report must go there with the turns.
    modelRequestsPerMinute: 60_000,
    scenarios: [
      {
        name: 'looper',
        match: 'GOAL-REPORT-LOOPER',
        turns: [
          ...Array.from({ length: 12 }, () => ({ toolCalls: [readMissing] })),
          { text: 'never reached' },
        ],
        report: { text: LOOP_REPORT },
      },
      {
        name: 'limited',
        match: 'GOAL-REPORT-LIMITED',
        turns: [...distinctReads(6), { text: 'never reached' }],
        report: { text: LIMIT_REPORT },
      },
      {
        name: 'budgeted',
        match: 'GOAL-REPORT-BUDGETED',
        turns: [...distinctReads(6), { text: 'never reached' }],
        report: { text: 'a report nobody may pay for' },
      },
      {
        name: 'slow-report',
        match: 'GOAL-REPORT-SLOW',
        turns: [
          ...Array.from({ length: 12 }, () => ({ toolCalls: [readMissing] })),
          { text: 'never reached' },
        ],
        report: { text: 'too late', delayMs: 30_000 },
      },
      {
        name: 'failing-report',
        match: 'GOAL-REPORT-FAILING',
        turns: [
          ...Array.from({ length: 12 }, () => ({ toolCalls: [readMissing] })),
          { text: 'never reached' },
        ],
        // One more failure than the report's three attempts: the goal's own turns would retry on.
        report: {
          text: 'unreachable',
          failures: [
            { status: 500, message: 'scripted outage 1' },
            { status: 500, message: 'scripted outage 2' },
            { status: 500, message: 'scripted outage 3' },
          ],
        },
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function workspace(): string {
  const directory = tempDirectory('keel-report-');
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) writeFileSync(path.join(directory, `${name}.txt`), name);
  return directory;
}

async function run(goal: string, extra: Partial<GoalInput> = {}) {
  return harness.withWorker(async () => {
    const workflowId = `${goal.toLowerCase()}-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: `${goal}: read what there is`, workspace: workspace(), ...extra }],
    });
    const result = await goalResult(handle); // a stopped goal fails its workflow; the result is in the details
    const ledger = await handle.query(ledgerQuery, {});
    const status = await handle.query(goalStatusQuery);
    const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    const history = await handle.fetchHistory();
    const modelQueues = (history.events ?? []).flatMap((event) => {
      const scheduled = event.activityTaskScheduledEventAttributes;
      return scheduled?.activityType?.name === 'callModel' ? [scheduled.taskQueue?.name ?? ''] : [];
    });
    return { result, ledger, status, currentDetails, modelQueues };
  });
}

const requestsOf = (scenario: string) => harness.scripted.requests.filter((r) => r.scenario === scenario);
const reportEvents = (ledger: Array<{ kind: string; data: Record<string, unknown> }>) =>
  ledger.filter((event) => event.kind === 'goal.closing_report');

test('a loop stopped by its guard still reports: the report is the final text, the goal is still stuck', async () => {
  const { result, ledger, status, currentDetails, modelQueues } = await run('GOAL-REPORT-LOOPER');
  assert.equal(result.status, 'stuck');
  assert.match(
    result.reason ?? '',
    /^stopped by a guard: loop: read_file: missing\.txt made 5 times in the last 10 tool calls/,
  );
  assert.equal(result.finalText, LOOP_REPORT);
  assert.equal(status.finalText, LOOP_REPORT, 'the status query shows it too');
  assert.match(currentDetails, /^### Goal stuck · done/);
  assert.match(currentDetails, /#### Closing report\n\*\*Stopped:\*\* stopped by a guard: loop/);
  assert.ok(currentDetails.includes(LOOP_REPORT), 'and the Web UI’s current details');
  assert.equal(result.counters.modelTurns, 5, 'the report is not a turn of the loop');

  const requests = requestsOf('looper');
  const last = requests.at(-1);
  assert.deepEqual(last?.body.tool_choice, { type: 'none' });
  assert.ok((last?.body.tools?.length ?? 0) > 0, 'the tools stay in the request: the cached prefix holds');
  assert.ok((last?.body.max_tokens as number) <= 1024, 'a small, bounded turn');
  assert.equal(requests.filter((r) => r.toolsRefused).length, 1, 'one report, asked once');
  assert.deepEqual(
    [...new Set(modelQueues)],
    [modelTaskQueue(harness.taskQueue)],
    'the report goes to the model queue with every turn: within the fleet’s shared rate limit',
  );
  assert.ok(
    requests.slice(0, -1).every((r) => r.body.tool_choice === undefined),
    'the goal’s own turns leave the choice to the model',
  );
  const lastMessage = JSON.stringify(last?.body.messages?.at(-1));
  assert.match(lastMessage, /tool_result/, 'the last calls’ results come first');
  assert.match(lastMessage, /the harness has stopped this goal: stopped by a guard: loop/);
  assert.match(lastMessage, /what is left to do/);

  const [report, ...more] = reportEvents(ledger);
  assert.equal(more.length, 0);
  assert.equal(report?.data.outcome, 'written');
  assert.ok((report?.data.outputTokens as number) > 0, 'the ledger says what it cost');
  assert.ok((report?.data.inputTokens as number) + (report?.data.cacheReadInputTokens as number) > 0);
  assert.equal(ledger.at(-1)?.kind, 'goal.stuck', 'the ending is still the last word');
  // its usage is the goal's: the report's answer was counted
  const answered = requests.filter((r) => r.status === 200 && r.usage);
  const output = answered.reduce((total, r) => total + (r.usage?.outputTokens ?? 0), 0);
  assert.equal(result.usage.outputTokens, output);
});

test('the turn limit reports what was done and what is left', async () => {
  const { result, ledger } = await run('GOAL-REPORT-LIMITED', { limits: { maxTurns: 3 } });
  assert.equal(result.status, 'limit');
  assert.equal(result.reason, 'model turn limit of 3 reached');
  assert.equal(result.finalText, LIMIT_REPORT);
  assert.deepEqual(requestsOf('limited').at(-1)?.body.tool_choice, { type: 'none' });
  assert.equal(reportEvents(ledger)[0]?.data.outcome, 'written');
  assert.equal(ledger.at(-1)?.kind, 'goal.failed');
});

test('an exhausted budget ends the goal without a report: nothing more is spent', async () => {
  const { result, ledger } = await run('GOAL-REPORT-BUDGETED', {
    principles: { budget: { maxToolCalls: 2 } },
  });
  assert.equal(result.status, 'budget_exhausted');
  assert.equal(result.finalText, undefined);
  const requests = requestsOf('budgeted');
  assert.ok(requests.length > 0);
  assert.ok(
    requests.every((r) => r.body.tool_choice === undefined),
    'no report was asked for',
  );
  assert.deepEqual(
    reportEvents(ledger).map((event) => [event.data.outcome, event.data.why]),
    [['skipped', 'the budget is spent']],
  );
});

test('a stop whose token budget left could not pay for the report ends without one', async () => {
  // What three turns cost, measured: the budget then leaves a little more, not enough for a report.
  const measured = await run('GOAL-REPORT-BUDGETED', { limits: { maxTurns: 3 } });
  const report = reportEvents(measured.ledger)[0]?.data ?? {};
  const reportTokens = ['inputTokens', 'outputTokens', 'cacheReadInputTokens', 'cacheCreationInputTokens']
    .map((key) => Number(report[key] ?? 0))
    .reduce((total, value) => total + value, 0);
  const u = measured.result.usage;
  const turnsCost =
    u.inputTokens + u.outputTokens + u.cacheReadInputTokens + u.cacheCreationInputTokens - reportTokens;
  const before = requestsOf('budgeted').length;
  const { result, ledger } = await run('GOAL-REPORT-BUDGETED', {
    limits: { maxTurns: 3 },
    principles: { budget: { maxTokens: turnsCost + 300, warnAt: [0.99] } },
  });
  assert.equal(result.status, 'limit', result.reason);
  assert.equal(result.finalText, undefined);
  assert.ok(
    requestsOf('budgeted')
      .slice(before)
      .every((r) => r.body.tool_choice === undefined),
  );
  const [skipped] = reportEvents(ledger);
  assert.equal(skipped?.data.outcome, 'skipped');
  assert.match(String(skipped?.data.why), /^the token budget left \(\d+\) could not pay for it/);
});

test('a report that keeps failing leaves the stop as it was: stuck, same reason, the ledger says why', async () => {
  const { result, ledger } = await run('GOAL-REPORT-FAILING');
  assert.equal(result.status, 'stuck');
  assert.match(result.reason ?? '', /^stopped by a guard: loop: read_file: missing\.txt made 5 times/);
  assert.equal(result.finalText, undefined);
  const reports = requestsOf('failing-report').filter((r) => r.toolsRefused);
  assert.deepEqual(
    reports.map((r) => r.status),
    [500, 500, 500],
    'three attempts, then the goal ends',
  );
  const [failed] = reportEvents(ledger);
  assert.equal(failed?.data.outcome, 'failed');
  assert.match(String(failed?.data.why), /scripted outage 3/);
  assert.equal(ledger.at(-1)?.kind, 'goal.stuck');
});

test('a cancel while the report is written ends the report, not the stop: the goal is still stuck', async () => {
  const { result, ledger } = await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-report-slow-${Date.now()}`,
      args: [{ goal: 'GOAL-REPORT-SLOW: read what there is', workspace: workspace() }],
    });
    await eventually(() => Promise.resolve(requestsOf('slow-report').find((r) => r.toolsRefused)));
    await handle.cancel();
    const result = await goalResult(handle);
    return { result, ledger: await handle.query(ledgerQuery, {}) };
  });
  assert.equal(result.status, 'stuck');
  assert.match(result.reason ?? '', /^stopped by a guard: loop/);
  assert.equal(result.finalText, undefined);
  assert.deepEqual(
    reportEvents(ledger).map((event) => [event.data.outcome, event.data.why]),
    [['failed', 'the goal was cancelled']],
  );
  assert.equal(ledger.at(-1)?.kind, 'goal.stuck');
});
