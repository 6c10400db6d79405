import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../src/activities/tools/define-tool';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { denySignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import { hypothesisField } from '../../src/workflows/tools/hypothesis-field';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { startWorkerProcess } from '../support/worker-process';

// `keel tools` against a real worker on the shared dev server: the built-ins, a tool of the
// user's own whose tier depends on its input, and the reference filesystem MCP server over stdio.
// The CLI reads them through Temporal (workerToolsWorkflow), as it would from any other machine.
const KEEL = path.resolve(__dirname, '../../bin/keel.js');
const files = tempDirectory('keel-tools-files-');
let harness: Harness;
let address: string;

const sendInvoice = defineTool({
  name: 'send_invoice',
  description: 'Send an invoice to a customer.',
  input: z.object({ customer: z.string(), amount: z.number() }),
  reversibility: (input) => (input.amount > 100 ? 'irreversible' : 'mutating'),
  execute: async () => Promise.resolve('sent'),
});
const lookupCustomer = defineTool({
  name: 'lookup_customer',
  description: 'Look a customer up.',
  input: z.object({ customer: z.string() }),
  reversibility: 'read-only',
  execute: async (input) => Promise.resolve(`${input.customer}: billing@acme.test`),
});
const ping = defineTool({
  name: 'ping',
  description: 'Ping a host.',
  input: z.object({ host: z.string() }),
  reversibility: 'read-only',
  hypothesis: false,
  execute: async () => Promise.resolve('pong'),
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

function keel(args: string[]): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [KEEL, '--address', address, ...args],
      { env: process.env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

interface ListedTool {
  name: string;
  description: string;
  source: string;
  tier: { kind: string; tier?: string };
  approval: string;
  inputSchema: { type: string; properties?: Record<string, { description?: string }>; required?: string[] };
}

before(async () => {
  address = await temporalAddress();
  writeFileSync(path.join(files, 'prices.md'), 'ACME pays 500\n');
  harness = await createHarness({
    tools: [sendInvoice, lookupCustomer, ping],
    mcpServers: {
      files: {
        command: process.execPath,
        args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), files],
      },
    },
    scenarios: [
      {
        name: 'tools-denial',
        match: 'GOAL-TOOLS-DENIAL',
        turns: [
          {
            toolCalls: [
              {
                name: 'send_invoice',
                input: { customer: 'ACME', amount: 500, hypothesis: 'I expect the invoice to be sent' },
              },
            ],
          },
          { text: 'The invoice was not sent: a human denied it.' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test(
  'keel tools --json lists a worker’s tools: names, sources, tiers, approval and input schemas',
  { timeout: 120_000 },
  async () => {
    await harness.withWorker(async () => {
      const run = await keel(['--task-queue', harness.taskQueue, 'tools', '--json']);
      assert.equal(run.code, 0, run.stderr);
      const tools = JSON.parse(run.stdout) as ListedTool[];
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      const tool = (name: string): ListedTool => {
        const found = byName.get(name);
        assert.ok(found, `${name} is listed (got ${[...byName.keys()].join(', ')})`);
        return found;
      };

      // keel's own, with its fixed and per-call tiers
      assert.equal(tool('read_file').source, 'builtin');
      assert.deepEqual(tool('read_file').tier, { kind: 'fixed', tier: 'read-only' });
      assert.equal(tool('read_file').approval, 'never');
      assert.deepEqual(tool('run_command').tier, { kind: 'per-call' });
      assert.equal(tool('write_file').approval, 'policy-ask');

      // the user's own: a tier that depends on the input, a schema with keel's hypothesis added
      const invoice = tool('send_invoice');
      assert.equal(invoice.source, 'worker');
      assert.equal(invoice.description, 'Send an invoice to a customer.');
      assert.deepEqual(invoice.tier, { kind: 'per-call' });
      assert.equal(invoice.approval, 'per-call');
      assert.deepEqual(Object.keys(invoice.inputSchema.properties ?? {}), [
        'customer',
        'amount',
        'hypothesis',
      ]);
      assert.deepEqual(invoice.inputSchema.required, ['customer', 'amount']);
      assert.equal(invoice.inputSchema.properties?.hypothesis?.description, hypothesisField.description);
      assert.deepEqual(Object.keys(tool('ping').inputSchema.properties ?? {}), ['host'], 'opted out');

      // the MCP server's, named by server, tiers from its annotations, its schema plus the hypothesis
      const read = tool('files__read_text_file');
      assert.equal(read.source, 'mcp:files');
      assert.deepEqual(read.tier, { kind: 'fixed', tier: 'read-only' });
      assert.ok(read.inputSchema.properties?.path, 'the server’s own schema');
      assert.ok(read.inputSchema.properties?.hypothesis);

      // The table: one row per tool with its source, the input fields under it.
      const table = await keel(['--task-queue', harness.taskQueue, 'tools']);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^TOOL\s+TIER\s+APPROVAL\s+SOURCE$/m);
      assert.match(
        table.stdout,
        /^send_invoice\s+per call \(decided from the input\)\s+asks as its tier for the call says\s+yours$/m,
      );
      assert.match(table.stdout, /^files__read_text_file\s+read-only\s+never asks\s+MCP server "files"$/m);
      assert.match(table.stdout, /^ {2}input: customer\*, amount\*, hypothesis$/m);
    });
  },
);

test(
  'keel tools with no worker on the task queue fails at once, in one line',
  { timeout: 60_000 },
  async () => {
    const queue = `keel-tools-nobody-${Date.now()}`;
    const run = await keel(['--task-queue', queue, 'tools', '--json']);
    assert.equal(run.code, 3);
    assert.equal(run.stdout, '');
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] ?? '', new RegExp(`^keel: no worker polls task queue ${queue}: `));
    assert.ok(run.ms < 10_000, `answered in ${run.ms} ms`);
  },
);

test(
  'a goal without the built-ins: after a denial its next actions name only its own tools; keel tools <goal> lists them',
  { timeout: 120_000 },
  async () => {
    const workspace = tempDirectory('keel-tools-goal-');
    const workflowId = `tools-denial-${Date.now()}`;
    await harness.withWorker(async () => {
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [
          {
            goal: 'GOAL-TOOLS-DENIAL: invoice ACME',
            workspace,
            tools: ['send_invoice', 'lookup_customer', 'files__read_text_file', 'files__list_directory'],
          },
        ],
      });
      const waiting = await eventually(async () => {
        const [first] = (await handle.query(goalStatusQuery)).pendingApprovals;
        return first;
      });
      assert.equal(waiting.reversibility, 'irreversible');

      const listed = await keel(['tools', workflowId]);
      assert.equal(listed.code, 0, listed.stderr);
      const names = [...listed.stdout.matchAll(/^(\S+)\s{2,}/gm)].map((match) => match[1]);
      assert.deepEqual(names, [
        'TOOL',
        'send_invoice',
        'lookup_customer',
        'files__read_text_file',
        'files__list_directory',
      ]);

      await handle.signal(denySignal, { callId: waiting.callId, approver: 'ann', reason: 'not this month' });
      assert.equal((await handle.result()).status, 'completed');
    });

    const offered = harness.scripted.requests[0]?.body.tools as Array<{
      name: string;
      input_schema: { properties?: object };
    }>;
    for (const tool of offered)
      assert.ok('hypothesis' in (tool.input_schema.properties ?? {}), `${tool.name} offers a hypothesis`);
    const afterDenial = JSON.stringify(harness.scripted.requests[1]?.body.messages);
    assert.match(afterDenial, /Not run: denied by ann/);
    assert.match(
      afterDenial,
      /Inspect first with read-only calls \(lookup_customer, files__read_text_file, files__list_directory\)/,
    );
    assert.doesNotMatch(afterDenial, /\b(list_dir|read_file|search|write_file|edit_file|run_command)\b/);
  },
);

test(
  "a worker's start log lists its tools by source, and keel tools reads the same from its process",
  { timeout: 120_000 },
  async () => {
    // The example worker as a user runs it: runWorker with three tools of its own, and the
    // filesystem MCP server its keel.config.yaml declares.
    const taskQueue = `keel-tools-example-${Date.now()}`;
    const worker = await startWorkerProcess({
      address,
      taskQueue,
      modelBaseUrl: harness.scripted.url,
      entry: 'examples/custom-tools/worker.ts',
    });
    try {
      const startLine = worker.output().match(/^keel worker: \d+ tools — .*$/m)?.[0] ?? '';
      assert.match(
        startLine,
        /^keel worker: 23 tools — built-in: read_file, list_dir, search, write_file, edit_file, run_command; yours: lookup_customer, send_invoice, refund; MCP server "files": files__read_file, .*, … 6 more \(keel tools lists them\)$/,
        worker.output(),
      );
      const run = await keel(['--task-queue', taskQueue, 'tools', '--json']);
      assert.equal(run.code, 0, run.stderr);
      const tools = JSON.parse(run.stdout) as ListedTool[];
      assert.equal(tools.length, 23);
      const write = tools.find((tool) => tool.name === 'files__write_file');
      assert.deepEqual(
        write?.tier,
        { kind: 'fixed', tier: 'mutating' },
        'the config overrides the annotation',
      );
    } finally {
      await worker.stop();
    }
  },
);
