import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { findTemporalBinary } from './temporal-binary';
import { KEEL_SEARCH_ATTRIBUTES } from './search-attributes';

export interface DevServerOptions {
  /** Keep no state file: workflows vanish with the process (tests). */
  ephemeral?: boolean;
  /** SQLite state file, so goals survive a server restart (demo). */
  dbFile?: string;
  /** gRPC port; a free one when omitted. */
  port?: number;
  /** Web UI port; none (headless) when omitted. */
  uiPort?: number;
  /** The Web UI's remote codec endpoint (a `keel codec-server`), so it shows decrypted payloads. */
  uiCodecEndpoint?: string;
  /**
   * Register keel's search attributes at start (default true). false gives a plain dev server,
   * like one a user already runs, on which the worker must register them itself.
   */
  searchAttributes?: boolean;
  /** Extra dynamic config, e.g. { 'limit.historyCount.suggestContinueAsNew': 40 }. */
  dynamicConfig?: Record<string, unknown>;
  /** Where the server's own log goes; discarded when omitted. */
  logFile?: number;
  readyTimeoutMs?: number;
}

export interface DevServer {
  readonly address: string;
  readonly uiUrl: string | undefined;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `temporal server start-dev` bound to 127.0.0.1 (with keel's search attributes unless told not to),
 * and resolves once its frontend answers. The child is stopped when this process exits, so a
 * crashed test run never leaves a server behind.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const binary = findTemporalBinary();
  const port = options.port ?? (await freePort());
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn'];
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.uiPort && options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (!options.ephemeral && options.dbFile) args.push('--db-filename', options.dbFile);
  if (options.searchAttributes !== false) {
    for (const [name, type] of Object.entries(KEEL_SEARCH_ATTRIBUTES))
      args.push('--search-attribute', `${name}=${type}`);
  }
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {})) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  const output = options.logFile ?? 'ignore';
  const child = spawn(binary, args, { stdio: ['ignore', output, output], detached: false });
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  const address = `127.0.0.1:${port}`;
  try {
    await waitUntilReady(address, child, options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    address,
    uiUrl: options.uiPort ? `http://localhost:${options.uiPort}` : undefined,
    pid: child.pid ?? -1,
    stop: async () => {
      process.removeListener('exit', stopOnExit);
      await stopChild(child);
    },
  };
}

async function waitUntilReady(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`temporal dev server exited during start-up (address ${address})`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`temporal dev server did not answer on ${address} within ${timeoutMs} ms`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** A port the OS says is free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
