import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  connectMcpServers,
  type McpServers,
  type McpToolsChange,
} from '../../src/activities/mcp/mcp-servers';
import type { ToolExecutionContext } from '../../src/activities/tools/define-tool';
import type { RegisteredTool } from '../../src/activities/tools/registered-tool';
import { serveHttp } from '../support/mcp-http-server';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function context(): ToolExecutionContext {
  return {
    workspace: os.tmpdir(),
    goalId: 'goal',
    callId: 'call',
    idempotencyKey: undefined,
    reversibility: 'read-only',
    approved: false,
    network: false,
    signal: new AbortController().signal,
    heartbeat: () => undefined,
    log: quiet,
  };
}

describe('MCP over Streamable HTTP: a server written with the SDK', () => {
  let tickets: McpServer | undefined;
  let served: Awaited<ReturnType<typeof serveHttp>>;
  let servers: McpServers;
  const changes: McpToolsChange[] = [];
  const tool = (name: string): RegisteredTool => {
    const found = servers.tools.find((candidate) => candidate.name === name);
    assert.ok(found, `${name} is offered`);
    return found;
  };

  before(async () => {
    served = await serveHttp(() => {
      const server = new McpServer({ name: 'tickets', version: '1.0.0' });
      server.registerTool(
        'get_ticket',
        {
          description: 'Reads a ticket',
          inputSchema: { id: z.number() },
          annotations: { readOnlyHint: true },
        },
        ({ id }) => ({ content: [{ type: 'text', text: `ticket ${id}: printer on fire` }] }),
      );
      server.registerTool(
        'close_ticket',
        { description: 'Closes a ticket', inputSchema: { id: z.number() } },
        ({ id }) => ({
          content: [{ type: 'text', text: `ticket ${id} does not exist` }],
          isError: true,
        }),
      );
      server.registerTool(
        'screenshot',
        { description: 'A picture', annotations: { readOnlyHint: true } },
        () => ({
          content: [{ type: 'image', data: PIXEL, mimeType: 'image/png' }],
        }),
      );
      server.registerTool(
        'wait_forever',
        { description: 'Never answers', annotations: { readOnlyHint: true } },
        () => new Promise<never>(() => undefined),
      );
      tickets = server;
      return server;
    });
    servers = await connectMcpServers({
      servers: { tickets: { url: served.url, headers: { Authorization: 'TICKETS_AUTH' }, timeoutMs: 500 } },
      env: { TICKETS_AUTH: 'Bearer s3cret' },
      log: quiet,
    });
    servers.onToolsChanged((change) => changes.push(change));
  });

  after(async () => {
    await servers.close();
    await served.stop();
  });

  test('tools and tiers: readOnlyHint is read-only, no hints is irreversible (MCP assumes destructive)', () => {
    assert.deepEqual(servers.tools.map((candidate) => candidate.name).sort(), [
      'tickets__close_ticket',
      'tickets__get_ticket',
      'tickets__screenshot',
      'tickets__wait_forever',
    ]);
    assert.deepEqual(tool('tickets__get_ticket').tier, { kind: 'fixed', tier: 'read-only' });
    assert.deepEqual(tool('tickets__close_ticket').tier, { kind: 'fixed', tier: 'irreversible' });
    assert.equal(
      tool('tickets__get_ticket').timeoutMs,
      5500,
      'the activity outlasts the 500 ms request timeout',
    );
  });

  test('the Authorization header comes from the environment variable the config names', async () => {
    const outcome = await tool('tickets__get_ticket').execute({ id: 7 }, context());
    assert.deepEqual([outcome.ok, outcome.content], [true, 'ticket 7: printer on fire']);
    assert.ok(served.authorizations.length > 0);
    assert.ok(served.authorizations.every((value) => value === 'Bearer s3cret'));
  });

  test('an image content reaches the outcome as an image plus a note', async () => {
    const outcome = await tool('tickets__screenshot').execute({}, context());
    assert.equal(outcome.ok, true);
    assert.deepEqual(outcome.images, [{ mediaType: 'image/png', data: PIXEL }]);
    assert.match(outcome.content, /^\[image image\/png, \d+ bytes, attached\]$/);
  });

  test('isError is a failure outcome with candidates', async () => {
    const outcome = await tool('tickets__close_ticket').execute({ id: 7 }, context());
    assert.equal(outcome.ok, false);
    assert.equal(outcome.content, 'tickets__close_ticket failed: ticket 7 does not exist');
    assert.equal(outcome.candidates.length, 3);
    assert.match(outcome.candidates[0] ?? '', /input schema \(required: id\)/);
    assert.match(
      outcome.candidates[1] ?? '',
      /tickets__screenshot \{\}|tickets__wait_forever \{\}|tickets__get_ticket/,
    );
  });

  test('a call that never answers is cut by the timeout and comes back as a failure', async () => {
    const started = Date.now();
    const outcome = await tool('tickets__wait_forever').execute({}, context());
    assert.ok(Date.now() - started < 3000);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.content, 'tickets__wait_forever did not answer within 500 ms and was cut off.');
    assert.ok(outcome.candidates.length >= 2);
  });

  test('a tool registered after connect reaches the listener (list_changed, re-listed)', async () => {
    assert.ok(tickets);
    tickets.registerTool(
      'reopen_ticket',
      { description: 'Reopens', annotations: { destructiveHint: false } },
      () => ({
        content: [{ type: 'text', text: 'reopened' }],
      }),
    );
    for (let waited = 0; changes.length === 0 && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const change = changes.at(-1);
    assert.ok(change, 'the listener was called');
    assert.equal(change.source, 'mcp:tickets');
    const reopen = change.tools.find((candidate) => candidate.name === 'tickets__reopen_ticket');
    assert.deepEqual(reopen?.tier, { kind: 'fixed', tier: 'mutating' });
    assert.ok(servers.tools.some((candidate) => candidate.name === 'tickets__reopen_ticket'));
    const outcome = await reopen.execute({}, context());
    assert.equal(outcome.content, 'reopened');
  });

  test('the server gone mid-use is a failure outcome with candidates, not a throw', async () => {
    await served.stop();
    const outcome = await tool('tickets__get_ticket').execute({ id: 7 }, context());
    assert.equal(outcome.ok, false);
    assert.match(outcome.content, /^tickets__get_ticket failed: /);
    assert.match(outcome.candidates[0] ?? '', /reconnects to the MCP server "tickets"/);
  });
});

describe('MCP over Streamable HTTP: pagination and header checks', () => {
  test('tools are listed across every page (nextCursor)', async () => {
    // McpServer lists every tool in one page, so this server is the SDK's low-level Server.
    const served = await serveHttp(() => {
      const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, (request) => {
        const page = Number(request.params?.cursor ?? '0');
        const tools = [0, 1].map((index) => ({
          name: `tool_${page}_${index}`,
          inputSchema: { type: 'object' as const },
          annotations: { readOnlyHint: true },
        }));
        return page < 2 ? { tools, nextCursor: String(page + 1) } : { tools };
      });
      server.setRequestHandler(CallToolRequestSchema, (request) => ({
        content: [{ type: 'text', text: `called ${request.params.name}` }],
      }));
      return server;
    });
    const servers = await connectMcpServers({ servers: { paged: { url: served.url } }, env: {}, log: quiet });
    try {
      assert.deepEqual(
        servers.tools.map((candidate) => candidate.name),
        [
          'paged__tool_0_0',
          'paged__tool_0_1',
          'paged__tool_1_0',
          'paged__tool_1_1',
          'paged__tool_2_0',
          'paged__tool_2_1',
        ],
      );
      const last = servers.tools.at(-1) as RegisteredTool;
      assert.equal((await last.execute({}, context())).content, 'called tool_2_1');
    } finally {
      await servers.close();
      await served.stop();
    }
  });

  test('a header whose variable is not set, or a server not listening, is one startup line', async () => {
    await assert.rejects(
      connectMcpServers({
        servers: { tickets: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'TICKETS_AUTH' } } },
        env: {},
        log: quiet,
      }),
      { message: 'MCP server "tickets": header Authorization: environment variable TICKETS_AUTH is not set' },
    );
    const closed = await serveHttp(() => new McpServer({ name: 'gone', version: '1.0.0' }));
    await closed.stop(); // its port is free now: nothing listens there
    await assert.rejects(
      connectMcpServers({ servers: { tickets: { url: closed.url } }, env: {}, log: quiet }),
      /^McpServerError: MCP server "tickets": failed to start: .*ECONNREFUSED/,
    );
  });
});
