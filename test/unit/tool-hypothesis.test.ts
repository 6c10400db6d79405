import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { defineTool } from '../../src/activities/tools/define-tool';
import { createToolActivities } from '../../src/activities/tools/tool-activities';
import { connectMcpServers } from '../../src/activities/mcp/mcp-servers';
import { hypothesisField } from '../../src/workflows/tools/hypothesis-field';
import { createToolRegistry } from '../../src/worker';
import { serveHttp } from '../support/mcp-http-server';
import { makeWorkspace } from './tools-test-helpers';

// Principle 1 holds for every tool: the model is offered `hypothesis` on the user's tools and on
// MCP servers' tools as on the built-ins, and the tool's own code (or server) never receives it.

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function properties(schema: Record<string, unknown>): Record<string, { description?: string }> {
  return schema.properties as Record<string, { description?: string }>;
}

test('a custom tool is offered the hypothesis field like a built-in; its own code never sees it', async () => {
  const received: unknown[] = [];
  const tiers: unknown[] = [];
  const invoice = defineTool({
    name: 'send_invoice',
    description: 'Send an invoice.',
    // strict: a tool that refuses unknown fields still accepts a hypothesis
    input: z.strictObject({ customer: z.string(), amount: z.number() }),
    reversibility: (input) => {
      tiers.push(input);
      return input.amount > 100 ? 'irreversible' : 'mutating';
    },
    summarize: (input) => `send_invoice: ${JSON.stringify(input)}`,
    execute: async (input) => {
      received.push(input);
      return Promise.resolve('sent');
    },
  });
  const registry = createToolRegistry({ tools: [invoice] });
  const selection = registry.catalogue(['send_invoice', 'read_file']);
  assert.ok(selection.ok);
  const [builtin, custom] = [
    selection.catalogue.find((entry) => entry.name === 'read_file'),
    selection.catalogue.find((entry) => entry.name === 'send_invoice'),
  ];
  assert.ok(builtin && custom);
  assert.deepEqual(properties(custom.inputSchema).hypothesis, properties(builtin.inputSchema).hypothesis);
  assert.equal(properties(custom.inputSchema).hypothesis?.description, hypothesisField.description);
  assert.deepEqual(custom.inputSchema.required, ['customer', 'amount'], 'the hypothesis stays optional');

  const { prepareToolCalls, executeTool } = createToolActivities({
    registry,
    journalDirectory: makeWorkspace('keel-journal-'),
  });
  const input = { customer: 'ACME', amount: 12, hypothesis: 'I expect the invoice to be sent' };
  const [prepared] = await prepareToolCalls({ calls: [{ callId: 'c1', toolName: 'send_invoice', input }] });
  assert.ok(prepared?.ok);
  // The workflow reads the hypothesis from the prepared input (principle 1's comparison) ...
  assert.deepEqual(prepared.input, input);
  assert.equal(prepared.summary, 'send_invoice: {"customer":"ACME","amount":12}');
  // ... and the tool's tier function and execute get the input as the tool declared it.
  const outcome = await executeTool({
    toolName: 'send_invoice',
    input: prepared.input,
    workspace: makeWorkspace(),
    callId: 'c1',
    idempotencyKey: 'goal/c1',
    reversibility: prepared.tier,
  });
  assert.equal(outcome.content, 'sent');
  assert.deepEqual(received, [{ customer: 'ACME', amount: 12 }]);
  assert.ok(tiers.length > 0);
  for (const seen of tiers) assert.deepEqual(seen, { customer: 'ACME', amount: 12 });

  const [wrong] = await prepareToolCalls({
    calls: [
      { callId: 'c2', toolName: 'send_invoice', input: { customer: 'ACME', amount: 1, hypothesis: 3 } },
    ],
  });
  assert.equal(wrong?.ok, false);
  assert.match(
    wrong?.ok === false ? wrong.error : '',
    /Invalid input for send_invoice: hypothesis: expected a string/,
  );
});

test("hypothesis: false leaves a custom tool's schema as written; a schema with its own hypothesis is kept", () => {
  const plain = defineTool({
    name: 'ping',
    description: 'Ping.',
    input: z.object({ host: z.string() }),
    reversibility: 'read-only',
    hypothesis: false,
    execute: async () => Promise.resolve('pong'),
  });
  const own = defineTool({
    name: 'guess',
    description: 'Guess.',
    input: z.object({ hypothesis: z.string().describe('the guess itself') }),
    reversibility: 'read-only',
    execute: async (input) => Promise.resolve(input.hypothesis),
  });
  const selection = createToolRegistry({ tools: [plain, own], builtinTools: false }).catalogue();
  assert.ok(selection.ok);
  const [ping, guess] = selection.catalogue;
  assert.deepEqual(Object.keys(properties(ping?.inputSchema ?? {})), ['host']);
  assert.equal(properties(guess?.inputSchema ?? {}).hypothesis?.description, 'the guess itself');
  assert.throws(
    () => defineTool({ ...plain, hypothesis: 'no' as never }),
    /tool "ping" has hypothesis no: use true or false/,
  );
});

test("an MCP server's tools are offered the hypothesis too, and the server is never sent it", async () => {
  const sent: unknown[] = [];
  const served = await serveHttp(() => {
    const server = new Server({ name: 'tickets', version: '1.0.0' }, { capabilities: { tools: {} } });
    const strict = {
      type: 'object' as const,
      properties: { id: { type: 'number' } },
      additionalProperties: false,
    };
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: 'get_ticket', inputSchema: strict, annotations: { readOnlyHint: true } },
        {
          name: 'count_tickets',
          inputSchema: { type: 'object' as const },
          annotations: { readOnlyHint: true },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      sent.push(request.params.arguments);
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    return server;
  });
  const servers = await connectMcpServers({
    servers: { tickets: { url: served.url, tools: { count_tickets: { hypothesis: false } } } },
    env: {},
    log: quiet,
  });
  try {
    const get = servers.tools.find((tool) => tool.name === 'tickets__get_ticket');
    const count = servers.tools.find((tool) => tool.name === 'tickets__count_tickets');
    assert.ok(get && count);
    assert.equal(properties(get.inputJsonSchema).hypothesis?.description, hypothesisField.description);
    assert.equal(
      get.inputJsonSchema.additionalProperties,
      false,
      "the server's schema is otherwise as given",
    );
    assert.equal(count.inputJsonSchema.properties, undefined, 'opted out in the config');
    const input = { id: 7, hypothesis: 'I expect ticket 7 to be open' };
    const parsed = get.parse(input);
    assert.deepEqual(parsed, { ok: true, input }, 'the workflow keeps the hypothesis');
    const context = {
      workspace: makeWorkspace(),
      goalId: 'goal',
      callId: 'c1',
      idempotencyKey: undefined,
      reversibility: 'read-only' as const,
      approved: false,
      network: false,
      signal: new AbortController().signal,
      heartbeat: () => undefined,
      log: quiet,
    };
    assert.equal((await get.execute(input, context)).content, 'ok');
    assert.deepEqual(sent, [{ id: 7 }]);
    assert.equal(get.parse({ id: 7, hypothesis: ['x'] }).ok, false);
  } finally {
    await servers.close();
    await served.stop();
  }
});
