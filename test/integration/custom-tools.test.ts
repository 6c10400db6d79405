import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  workflowBundle,
  type Harness,
} from '../support/temporal';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

// The example worker (examples/custom-tools) as its own process: user-defined tools through the
// public API, one of them with a tier that depends on its input. The goal is driven by the
// scripted model; the worker is killed -9 while the per-call tier waits for a human.
const PRICE_LIST = path.resolve(__dirname, '../../examples/custom-tools/data/price-list.md');
let harness: Harness;
let worker: WorkerProcess | undefined;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'custom-tools',
        match: 'GOAL-CUSTOM-TOOLS',
        turns: [
          {
            toolCalls: [
              { name: 'lookup_customer', input: { customerId: 'acme' } },
              // from the MCP server in the example's keel.config.yaml
              { name: 'files__read_text_file', input: { path: PRICE_LIST } },
            ],
          },
          {
            toolCalls: [
              { name: 'refund', input: { customerId: 'acme', amount: 20, reason: 'late delivery' } },
              { name: 'refund', input: { customerId: 'acme', amount: 500, reason: 'broken order' } },
            ],
          },
          { toolCalls: [{ name: 'send_invoice', input: { customerId: 'acme', amount: 120.5 } }] },
          { toolCalls: [{ name: 'launch_rocket', input: {} }] },
          { text: 'Refunds made and the invoice sent.' },
        ],
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
  'user-defined tools run with approvals per tier; a per-call tier survives kill -9 and replays identically',
  { timeout: 240_000 },
  async () => {
    const address = await temporalAddress();
    const startWorker = () =>
      startWorkerProcess({
        address,
        taskQueue: harness.taskQueue,
        modelBaseUrl: harness.scripted.url,
        journalDirectory: harness.journalDirectory,
        entry: 'examples/custom-tools/worker.ts',
      });
    const workspace = tempDirectory('keel-custom-tools-');
    writeFileSync(
      path.join(workspace, 'customers.json'),
      JSON.stringify([{ id: 'acme', name: 'ACME', email: 'billing@acme.test', balance: 120.5 }]),
    );
    const workflowId = `custom-tools-${Date.now()}`;
    worker = await startWorker();
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-CUSTOM-TOOLS: settle ACME',
          workspace,
          tools: ['lookup_customer', 'send_*', 'refund', 'files__read_*'],
          timing: { heartbeatTimeoutMs: 2000 },
        },
      ],
    });
    const pending = () =>
      eventually(async () => {
        const [first] = (await handle.query(goalStatusQuery)).pendingApprovals;
        return first;
      });

    // The large refund waits for a human; the small one (same tool) has already run.
    const largeRefund = await pending();
    assert.match(largeRefund.summary, /refund: acme 500\.00/);
    assert.equal(largeRefund.reversibility, 'irreversible');
    await worker.kill9();
    worker = await startWorker();
    await handle.signal(approveSignal, { callId: largeRefund.callId, approver: 'test' });

    const invoice = await pending();
    assert.match(invoice.summary, /send_invoice: acme 120\.50 EUR/);
    await handle.signal(approveSignal, { callId: invoice.callId, approver: 'test' });
    const result = await handle.result();
    assert.equal(result.status, 'completed');

    const refunds = readFileSync(path.join(workspace, 'outbox/refunds.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(
      refunds.map((line) => (JSON.parse(line) as { amount: number }).amount),
      [20, 500],
    );
    const invoices = readFileSync(path.join(workspace, 'outbox/invoices.jsonl'), 'utf8').trim().split('\n');
    assert.equal(invoices.length, 1);

    // What the model saw: the read-only lookup's JSON, and a tool outside the catalogue refused.
    const toolResults = harness.scripted.requests.map((request) => JSON.stringify(request.body)).join('\n');
    assert.match(toolResults, /billing@acme\.test/);
    assert.match(toolResults, /support hour/);
    assert.match(toolResults, /Unknown tool \\"launch_rocket\\": it is not among this goal's tools/);
    const offered = (harness.scripted.requests[0]?.body.tools as Array<{ name: string }> | undefined)?.map(
      (tool) => tool.name,
    );
    assert.deepEqual(offered?.slice(0, 3), ['lookup_customer', 'send_invoice', 'refund']);
    assert.ok(offered?.includes('files__read_text_file'));
    assert.ok(!offered?.includes('files__write_file'), 'the goal picked only the reading MCP tools');

    // Approvals per tier: only the large refund and the invoice were asked for, with the reason.
    const ledger = await handle.query(ledgerQuery, {});
    const requested = ledger.filter((event) => event.kind === 'approval.requested');
    assert.deepEqual(
      requested.map((event) => event.summary),
      ['approval requested: refund: acme 500.00', 'approval requested: send_invoice: acme 120.50 EUR'],
    );
    assert.match(String(requested[0]?.data.tierReason), /over 50/);

    // The whole history, crash included, replays against the workflow code without the tools.
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowId);
  },
);
