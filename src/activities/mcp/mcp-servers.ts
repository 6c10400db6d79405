import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolLogger } from '../tools/define-tool';
import type { RegisteredTool } from '../tools/registered-tool';
import type { McpServersConfig } from './mcp-config';
import { McpConnection } from './mcp-connection';
import { McpServerError } from './mcp-errors';
import { mcpSource, registeredMcpTools } from './mcp-tool';

/** A server's new tool list, for `registry.replaceSource(change.source, change.tools)`. */
export interface McpToolsChange {
  readonly server: string;
  /** `mcp:<server>` */
  readonly source: string;
  readonly tools: readonly RegisteredTool[];
}

/** The worker's MCP servers, connected. */
export interface McpServers {
  /** Every server's tools as they are now. */
  readonly tools: readonly RegisteredTool[];
  /** Called when a server re-lists its tools (list_changed, or after a reconnect). Returns unsubscribe. */
  onToolsChanged(listener: (change: McpToolsChange) => void): () => void;
  /** The pid of a stdio server's process while it runs. */
  pid(server: string): number | undefined;
  /** Ends every server this started; no child process outlives it. */
  close(): Promise<void>;
}

/**
 * Starts (stdio) or connects to (HTTP) every configured server and lists its tools. Any server
 * that cannot start, list, or lists nothing fails the whole start with one McpServerError line
 * naming it, after every server already started has been stopped.
 */
export async function connectMcpServers(options: {
  servers: McpServersConfig | undefined;
  /** The worker's environment: the source of allowlisted variables and header values. */
  env?: Readonly<Record<string, string | undefined>>;
  log: ToolLogger;
}): Promise<McpServers> {
  const { log } = options;
  const env = options.env ?? process.env;
  const listeners = new Set<(change: McpToolsChange) => void>();
  const toolsByServer = new Map<string, readonly RegisteredTool[]>();
  const connections: McpConnection[] = [];

  for (const [server, config] of Object.entries(options.servers ?? {})) {
    const connection: McpConnection = new McpConnection({
      name: server,
      config,
      env,
      log,
      onToolsChanged: (listed: Tool[]) => {
        const tools = registeredMcpTools({ server, config, tools: listed, connection, log });
        toolsByServer.set(server, tools);
        const change = { server, source: mcpSource(server), tools };
        for (const listener of listeners) {
          try {
            listener(change);
          } catch (error) {
            log.error(`MCP server "${server}": applying its new tool list failed`, { error: String(error) });
          }
        }
      },
    });
    connections.push(connection);
  }

  const started = await Promise.allSettled(connections.map((connection) => connection.start()));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(connections.map((connection) => connection.close()));
    throw failed.reason instanceof McpServerError ? failed.reason : new Error(String(failed.reason));
  }
  try {
    started.forEach((result, index) => {
      const connection = connections[index];
      if (result.status !== 'fulfilled' || connection === undefined) return;
      const config = options.servers?.[connection.name] ?? {};
      checkOverrides(connection.name, Object.keys(config.tools ?? {}), result.value);
      const tools = registeredMcpTools({
        server: connection.name,
        config,
        tools: result.value,
        connection,
        log,
      });
      toolsByServer.set(connection.name, tools);
      log.info(`MCP server "${connection.name}": ${tools.length} tools`);
    });
  } catch (error) {
    await Promise.all(connections.map((connection) => connection.close()));
    throw error;
  }

  return {
    get tools() {
      return [...toolsByServer.values()].flat();
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    pid: (server) => connections.find((connection) => connection.name === server)?.pid,
    async close() {
      listeners.clear();
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}

/** An override for a tool the server does not have is a typo that would silently do nothing. */
function checkOverrides(server: string, overridden: readonly string[], tools: readonly Tool[]): void {
  const names = new Set(tools.map((tool) => tool.name));
  const unknown = overridden.find((name) => !names.has(name));
  if (unknown !== undefined) {
    throw new McpServerError(
      server,
      `tools.${unknown}: the server has no such tool (it has: ${[...names].join(', ')})`,
    );
  }
}
