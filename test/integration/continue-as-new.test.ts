import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { NativeConnection } from '@temporalio/worker';
import Anthropic from '@anthropic-ai/sdk';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import { createKeelWorker } from '../../src/worker';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import { KeelSearchAttributes } from '../../src/workflows/goal/views/search-attribute-values';
import { eventually, tempDirectory, workflowBundle } from '../support/temporal';
import { createFileModelRequestStore } from '../../src/activities/model/request-store/file-model-request-store';
import { connectTemporal } from '../../src/client/temporal-connection';

// A server of its own: the low history threshold would otherwise touch every other test's goals.
let server: DevServer;
let scripted: ScriptedMessagesServer;
let client: Client;

const listTurn = { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] };

before(async () => {
  server = await startDevServer({
    ephemeral: true,
    dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 30 },
  });
  scripted = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'long',
        match: 'GOAL-LONG',
        turns: [
          ...Array.from({ length: 8 }, () => listTurn),
          {
            toolCalls: [
              { name: 'run_command', input: { command: 'echo approved-after-carry-over > done.txt' } },
            ],
          },
          ...Array.from({ length: 3 }, () => listTurn),
          { text: 'Long goal finished.' },
        ],
      },
    ],
  });
  client = new Client({
    connection: await connectTemporal({ address: server.address }),
    dataConverter: dataConverterFromEnv(),
  });
});

after(async () => {
  await client.connection.close();
  await scripted.close();
  await server.stop();
});

test(
  'a long goal continues as new carrying transcript, counters and a pending approval',
  { timeout: 120_000 },
  async () => {
    const connection = await NativeConnection.connect({ address: server.address });
    const worker: Worker = await createKeelWorker({
      connection,
      namespace: 'default',
      taskQueue: 'keel-can',
      anthropic: new Anthropic({ apiKey: 'k', baseURL: scripted.url, maxRetries: 0 }),
      journalDirectory: tempDirectory(),
      modelRequestStore: createFileModelRequestStore({ directory: tempDirectory('keel-model-requests-') }),
      workflowBundle: await workflowBundle(),
    });
    const workflowId = `long-${Date.now()}`;
    const result = await worker.runUntil(async () => {
      const handle = await client.workflow.start(goalWorkflow, {
        taskQueue: 'keel-can',
        workflowId,
        // The filler repeats one listing and answers no checkpoint on purpose (it only has to grow
        // history); the guards would rightly warn it, hold its calls and stop it.
        args: [
          {
            goal: 'GOAL-LONG: keep going',
            workspace: tempDirectory(),
            guards: { enabled: false },
            // With network allowed every run_command is irreversible: the last one waits for a human.
            sandbox: { network: true },
          },
        ],
      });
      const callId = await eventually(
        async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
        60_000,
      );
      const runWhileWaiting = (await handle.describe()).runId;
      // Signals grow history while the goal waits (these name no pending call and are ignored),
      // until Temporal suggests continue-as-new in the middle of the approval wait.
      for (let index = 0; index < 30; index++)
        await handle.signal(approveSignal, { callId: `toolu_unknown_${index}`, approver: 'test' });
      const carried = await eventually(async () => {
        const description = await handle.describe();
        if (description.runId === runWhileWaiting) return undefined;
        return (await handle.query(goalStatusQuery)).pendingApprovals[0];
      }, 30_000);
      assert.equal(carried.callId, callId, 'the same call still awaits approval in the new run');
      // The closed run no longer claims to wait for anyone; the new run does.
      const closedRun = client.workflow.getHandle(workflowId, runWhileWaiting);
      const closed = await closedRun.describe();
      assert.equal(closed.status.name, 'CONTINUED_AS_NEW');
      assert.equal(closed.typedSearchAttributes.get(KeelSearchAttributes.pendingApprovals), 0);
      const closedDetails = await closedRun.query<{ currentDetails: string }>('__temporal_workflow_metadata');
      assert.match(closedDetails.currentDetails, /Continued as new/);
      await eventually(async () => {
        const current = await handle.describe();
        return current.typedSearchAttributes.get(KeelSearchAttributes.pendingApprovals) === 1 || undefined;
      });
      await handle.signal(approveSignal, { callId, approver: 'test' });
      return client.workflow.getHandle<typeof goalWorkflow>(workflowId).result();
    });
    await connection.close();

    assert.equal(result.status, 'completed');
    assert.equal(result.finalText, 'Long goal finished.');
    // Counters survived every run of the chain: 11 list_dir calls and the approved command.
    // (The turns the model was asked for, in order, so a failure here shows which turn repeated.)
    const asked = scripted.requests.map((request) => request.turnIndex).join(',');
    assert.equal(result.counters.toolCalls, 12, `model turns asked: ${asked}`);
    assert.equal(result.counters.modelTurns, 13);
    assert.equal(result.counters.approvalsGranted, 1);

    // It really continued as new, more than once.
    let runs = 0;
    for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      runs += execution.status.name === 'CONTINUED_AS_NEW' || execution.status.name === 'COMPLETED' ? 1 : 0;
    }
    assert.ok(runs >= 2, `expected several runs, got ${runs}`);

    // A new run's first model turn extends the request the worker stored in the run before,
    // instead of sending the carried transcript whole.
    const firstInputs: Array<{ continues?: unknown; messages: unknown[] }> = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      const history = await client.workflow.getHandle(workflowId, execution.runId).fetchHistory();
      const scheduled = history.events?.find(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
      );
      const payload = scheduled?.activityTaskScheduledEventAttributes?.input?.payloads?.[0]?.data;
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      if (payload && started?.continuedExecutionRunId)
        firstInputs.push(JSON.parse(Buffer.from(payload).toString()) as (typeof firstInputs)[number]);
    }
    assert.ok(firstInputs.length >= 1, 'a continued run asked the model');
    for (const input of firstInputs) {
      assert.ok(input.continues, "the continued run's first request names the stored one");
      assert.ok(input.messages.length <= 2, `it sends ${input.messages.length} messages, not the transcript`);
    }

    // The last run's model request carried the whole transcript from the first run.
    const last = scripted.requests.at(-1);
    assert.equal(last?.body.messages?.length, 1 + 2 * 12);
    assert.match(JSON.stringify(last?.body.messages?.[0]), /GOAL-LONG/);
  },
);
