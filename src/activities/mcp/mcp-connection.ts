import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolLogger } from '../tools/define-tool';
import type { McpServerConfig } from './mcp-config';
import { describeError, isServerAnswer, isTimeout, McpServerError } from './mcp-errors';
import { StdioTransport } from './stdio-transport';

const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
const CLIENT_INFO = { name: 'keel', version: '0.1.0' };

interface Session {
  readonly client: Client;
  readonly transport: Transport;
  /** Set when the transport closed (a stdio server exited) or a call found the connection broken. */
  broken: boolean;
}

/**
 * One MCP server: connected at start, re-listed when it says its tools changed, and reconnected
 * on the next call after its connection broke (a stdio server that exited is started again).
 */
export class McpConnection {
  private active: Session | undefined;
  private opening: Promise<Session> | undefined;
  private closed = false;

  constructor(
    private readonly options: {
      readonly name: string;
      readonly config: McpServerConfig;
      readonly env: Readonly<Record<string, string | undefined>>;
      readonly log: ToolLogger;
      /** The server's whole tool list after it changed (list_changed, or a reconnect). */
      readonly onToolsChanged: (tools: Tool[]) => void;
    },
  ) {}

  get name(): string {
    return this.options.name;
  }

  /** Connects and lists the tools; every failure is one McpServerError line, never a hang. */
  async start(): Promise<Tool[]> {
    this.opening = this.open();
    try {
      this.active = await this.opening;
    } finally {
      this.opening = undefined;
    }
    const tools = await this.listTools(this.active);
    if (tools.length === 0) throw new McpServerError(this.name, 'lists no tools');
    return tools;
  }

  /** The pid of a stdio server's process while it runs (for diagnostics and tests). */
  get pid(): number | undefined {
    const transport = this.active?.transport;
    return transport instanceof StdioTransport ? transport.pid : undefined;
  }

  async callTool(
    name: string,
    input: Record<string, unknown>,
    options: Pick<RequestOptions, 'signal' | 'timeout' | 'onprogress'>,
  ): Promise<CallToolResult> {
    const session = await this.current();
    try {
      return (await session.client.callTool(
        { name, arguments: input },
        undefined,
        options,
      )) as CallToolResult;
    } catch (error) {
      // A refused request, a timeout or a cancellation leaves the connection usable; anything
      // else (the process exited, the HTTP server is gone) broke it: the next call reconnects.
      if (!isServerAnswer(error) && !isTimeout(error) && options.signal?.aborted !== true) {
        session.broken = true;
      }
      throw error;
    }
  }

  /** Ends the server (a stdio child process is stopped) and refuses further calls. */
  async close(): Promise<void> {
    this.closed = true;
    await this.opening?.catch(() => undefined);
    const session = this.active;
    this.active = undefined;
    if (session) await closeSession(session);
  }

  /** The open session, or a new one when the last broke; concurrent callers share one reconnect. */
  private current(): Promise<Session> {
    if (this.closed) return Promise.reject(new Error(`MCP server "${this.name}" is closed`));
    if (this.active && !this.active.broken) return Promise.resolve(this.active);
    this.opening ??= this.reopen().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async reopen(): Promise<Session> {
    const stale = this.active;
    this.active = undefined;
    if (stale) await closeSession(stale); // a stdio server that hangs is stopped, not orphaned
    this.options.log.info(`MCP server "${this.name}": reconnecting`);
    const session = await this.open();
    if (this.closed) {
      await closeSession(session);
      throw new Error(`MCP server "${this.name}" is closed`);
    }
    this.active = session;
    // The server may have changed while it was away: the registry gets what it lists now.
    this.relist(session, 'reconnecting');
    return session;
  }

  private async open(): Promise<Session> {
    const timeout = this.options.config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const transport = this.transport();
    let session: Session | undefined = undefined;
    const client = new Client(CLIENT_INFO, {
      listChanged: {
        tools: {
          autoRefresh: false, // the SDK's refresh reads one page only; keel follows nextCursor
          debounceMs: 50,
          onChanged: () => {
            if (session) this.relist(session, 'list_changed');
          },
        },
      },
    });
    const opened: Session = { client, transport, broken: false };
    session = opened;
    client.onclose = () => {
      opened.broken = true;
    };
    try {
      await client.connect(transport, { timeout, signal: AbortSignal.timeout(timeout) });
    } catch (error) {
      await transport.close().catch(() => undefined);
      throw new McpServerError(this.name, `failed to start: ${this.startupProblem(error, transport)}`);
    }
    return opened;
  }

  private async listTools(session: Session): Promise<Tool[]> {
    const timeout = this.options.config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const tools: Tool[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    try {
      do {
        const page = await session.client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
        tools.push(...page.tools);
        cursor = page.nextCursor;
        if (cursor !== undefined && cursors.has(cursor)) throw new Error(`cursor "${cursor}" repeats`);
        if (cursor !== undefined) cursors.add(cursor);
      } while (cursor !== undefined);
    } catch (error) {
      throw new McpServerError(this.name, `failed to list its tools: ${describeError(error)}`);
    }
    return tools;
  }

  private relist(session: Session, after: string): void {
    if (this.closed || session.broken) return;
    this.listTools(session).then(
      (tools) => {
        if (!this.closed) this.options.onToolsChanged(tools);
      },
      (error: unknown) => this.warn(`re-listing tools after ${after} failed: ${describeError(error)}`),
    );
  }

  private transport(): Transport {
    const { config, env, name } = this.options;
    if (config.url !== undefined) {
      const headers: Record<string, string> = {};
      for (const [header, variable] of Object.entries(config.headers ?? {})) {
        const value = env[variable];
        if (value === undefined || value === '') {
          throw new McpServerError(name, `header ${header}: environment variable ${variable} is not set`);
        }
        headers[header] = value;
      }
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers } });
    }
    return new StdioTransport({
      command: config.command ?? '',
      args: config.args ?? [],
      env: serverEnvironment(name, config.env ?? [], env, (message) => this.warn(message)),
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      onStderrLine: (line) => this.options.log.info(`MCP server "${name}": ${line}`),
    });
  }

  private startupProblem(error: unknown, transport: Transport): string {
    const problem = describeError(error);
    const stderr = transport instanceof StdioTransport ? transport.stderrExplanation : '';
    return stderr === '' || problem.includes(stderr) ? problem : `${problem}; it wrote: ${stderr}`;
  }

  private warn(message: string): void {
    this.options.log.warn(`MCP server "${this.name}": ${message}`);
  }
}

/** PATH and the allowlisted variables that are set: never the worker's whole environment. */
export function serverEnvironment(
  server: string,
  allowlist: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  warn: (message: string) => void = () => undefined,
): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const variable of ['PATH', ...allowlist]) {
    if (variable === 'ANTHROPIC_API_KEY') continue; // refused by the config schema; never, even if given programmatically unchecked
    const value = env[variable];
    if (value !== undefined) passed[variable] = value;
    else if (variable !== 'PATH')
      warn(`${variable} is not set in the worker's environment, so ${server} does not get it`);
  }
  return passed;
}

async function closeSession(session: Session): Promise<void> {
  await session.client.close().catch(() => undefined);
  await session.transport.close().catch(() => undefined);
}
