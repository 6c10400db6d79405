import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export /** A Streamable HTTP MCP server on 127.0.0.1 (a free port), one SDK server per session. */
async function serveHttp(makeServer: () => McpServer | Server): Promise<{
  url: string;
  authorizations: (string | undefined)[];
  stop(): Promise<void>;
}> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: (string | undefined)[] = [];
  const server = http.createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    const sessionId = request.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    void (async () => {
      let transport = known;
      if (transport === undefined) {
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, created),
        });
        await makeServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    async stop() {
      for (const transport of transports.values()) await transport.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
