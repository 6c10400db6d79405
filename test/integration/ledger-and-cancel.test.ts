import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookSink } from '../../src/activities/ledger-sinks';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { goalResult } from '../../src/client/goal-client';
import { KeelSearchAttributes } from '../../src/workflows/goal/views/search-attribute-values';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

interface Delivered {
  workflowId: string;
  events: Array<{ sequence: number; kind: string }>;
}

let harness: Harness;
let webhook: Server;
const delivered: Delivered[] = [];

before(async () => {
  webhook = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      delivered.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivered);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/events`;
  harness = await createHarness({
    ledgerSinks: [createWebhookSink({ url })],
    scenarios: [
      {
        name: 'ledger',
        match: 'GOAL-LEDGER',
        turns: [{ toolCalls: [{ name: 'list_dir', input: { path: '.' } }] }, { text: 'listed' }],
      },
      {
        name: 'cancel',
        match: 'GOAL-CANCEL',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo never > never.txt' } }] },
          { text: 'x' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await new Promise((resolve) => webhook.close(resolve));
  await stopOwnServer();
});

test('ledger events reach a webhook listener in order, the last one before the goal closes', async () => {
  const workflowId = `ledger-${Date.now()}`;
  const result = await harness.withWorker(() =>
    harness.client.workflow.execute(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: 'GOAL-LEDGER: list', workspace: tempDirectory() }],
    }),
  );
  assert.equal(result.status, 'completed');
  const events = delivered
    .filter((batch) => batch.workflowId === workflowId)
    .flatMap((batch) => batch.events);
  assert.equal(events[0]?.kind, 'goal.started');
  assert.equal(events.at(-1)?.kind, 'goal.completed');
  const sequences = events.map((event) => event.sequence);
  assert.deepEqual(
    sequences,
    [...sequences].sort((a, b) => a - b),
    'in order',
  );
  assert.equal(new Set(sequences).size, sequences.length, 'each once');
});

test('a cancelled goal ends with status cancelled, its pending call never run', async () => {
  const workspace = tempDirectory();
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `cancel-${Date.now()}`,
      // With network allowed every run_command is irreversible: it waits for a human.
      args: [{ goal: 'GOAL-CANCEL: wait forever', workspace, sandbox: { network: true } }],
    });
    await eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals.length === 1);
    await handle.cancel();
    // Temporal's own Canceled status; the structured result comes from the status query.
    await assert.rejects(
      handle.result(),
      (error: unknown) => error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure,
    );
    assert.equal((await handle.describe()).status.name, 'CANCELLED');
    const result = await goalResult(handle);
    assert.equal(result.status, 'cancelled');
    assert.equal(result.reason, 'cancelled by request');
    assert.equal(result.counters.toolCalls, 0);
    // Nothing waits for a human any more: the query, the search attributes and the ledger agree.
    const view = await handle.query(goalStatusQuery);
    assert.deepEqual([view.status, view.phase, view.pendingApprovals.length], ['cancelled', 'done', 0]);
    const attributes = (await handle.describe()).typedSearchAttributes;
    assert.equal(attributes.get(KeelSearchAttributes.status), 'cancelled');
    assert.equal(attributes.get(KeelSearchAttributes.phase), 'done');
    assert.equal(attributes.get(KeelSearchAttributes.pendingApprovals), 0);
    const ledger = await handle.query(ledgerQuery, {});
    assert.equal(ledger.at(-1)?.kind, 'goal.cancelled');
  });
});
