import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { serveHttp } from '../support/mcp-http-server';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

// Real MCP servers in a goal driven by the scripted model: the reference filesystem server from
// npm over stdio (confined to a temporary folder), and a Streamable HTTP server written here with
// the official SDK, stopped in the middle of the goal.
let harness: Harness;
let served: Awaited<ReturnType<typeof serveHttp>>;
let lookups = 0;
const files = tempDirectory('keel-mcp-files-');
const workspace = tempDirectory('keel-mcp-workspace-');

before(async () => {
  writeFileSync(path.join(files, 'notes.md'), 'MCP-NOTES-MARKER: the price is 42\n');
  served = await serveHttp(() => {
    const server = new McpServer({ name: 'tickets', version: '1.0.0' });
    server.registerTool(
      'lookup',
      {
        description: 'Look a ticket up.',
        inputSchema: { id: z.string() },
        annotations: { readOnlyHint: true },
      },
      ({ id }) => {
        lookups += 1;
        return { content: [{ type: 'text', text: `ticket ${id}: TICKET-MARKER open` }] };
      },
    );
    return server;
  });
  harness = await createHarness({
    mcpServers: {
      files: {
        command: process.execPath,
        args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), files],
      },
      tickets: { url: served.url },
    },
    scenarios: [
      {
        name: 'mcp',
        match: 'GOAL-MCP',
        turns: [
          { toolCalls: [{ name: 'files__read_text_file', input: { path: path.join(files, 'notes.md') } }] },
          {
            toolCalls: [
              {
                name: 'files__write_file',
                input: { path: path.join(files, 'answer.md'), content: 'price 42\n' },
              },
            ],
          },
          { toolCalls: [{ name: 'tickets__lookup', input: { id: 'T-1' } }] },
          { delayMs: 3000, toolCalls: [{ name: 'tickets__lookup', input: { id: 'T-2' } }] },
          { text: 'Read the notes, wrote the answer; the ticket server went away.' },
        ],
      },
    ],
  });
});

after(async () => {
  await served.stop().catch(() => undefined);
  await harness.close();
  await stopOwnServer();
});

test(
  'MCP tools in a goal: tiers from annotations, results to the model, a server gone mid-goal',
  { timeout: 180_000 },
  async () => {
    await harness.withWorker(async () => {
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId: `mcp-${Date.now()}`,
        args: [{ goal: 'GOAL-MCP: answer from the notes', workspace, tools: ['files__*', 'tickets__*'] }],
      });
      // read_text_file is readOnlyHint (ran at once); write_file is destructive: it waits.
      const write = await eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]);
      assert.match(write.summary, /^files__write_file: /);
      assert.equal(write.reversibility, 'irreversible');
      await handle.signal(approveSignal, { callId: write.callId, approver: 'test' });

      // Stop the HTTP server while the model "thinks" about the turn that calls it again.
      await eventually(async () =>
        Promise.resolve(harness.scripted.requests.some((request) => request.turnIndex === 3)),
      );
      await served.stop();

      const result = await handle.result();
      assert.equal(result.status, 'completed');
      assert.equal(readFileSync(path.join(files, 'answer.md'), 'utf8'), 'price 42\n');
      assert.equal(lookups, 1);

      const sent = harness.scripted.requests.map((request) => JSON.stringify(request.body.messages));
      assert.match(sent[1] ?? '', /MCP-NOTES-MARKER: the price is 42/);
      assert.match(sent[3] ?? '', /ticket T-1: TICKET-MARKER open/);
      const last = sent[4] ?? '';
      assert.match(last, /tickets__lookup could not|tickets__lookup.*(failed|unreachable|refused)/i);
      assert.match(last, /Candidate next actions/);

      const offered = (harness.scripted.requests[0]?.body.tools as Array<{ name: string }>).map(
        (tool) => tool.name,
      );
      assert.ok(offered.includes('files__read_text_file') && offered.includes('tickets__lookup'));
      assert.ok(!offered.includes('read_file'), 'the goal picked only MCP tools');
      const requested = (await handle.query(ledgerQuery, {})).filter(
        (event) => event.kind === 'approval.requested',
      );
      assert.equal(requested.length, 1, 'only the destructive write asked for a human');
    });
  },
);
