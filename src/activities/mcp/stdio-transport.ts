import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { explainingStderr } from './stderr-explanation';

/** What is kept of a server's stderr: its start (where a dying server says why) and its end. */
const STDERR_HEAD_CHARS = 8000;
const STDERR_TAIL_CHARS = 2000;

/**
 * The MCP stdio transport, with the server's environment exactly as given. The SDK's own
 * StdioClientTransport always adds HOME, USER, SHELL, … from the worker's environment; keel
 * passes PATH and the variables the config allowlists, nothing else.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private stderrHead = '';
  private stderrTail = '';

  constructor(
    private readonly options: {
      command: string;
      args: readonly string[];
      env: Record<string, string>;
      cwd?: string;
      /** Each line the server writes to stderr (its logs). */
      onStderrLine?: (line: string) => void;
    },
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The line (or two) of the server's stderr that says why it exited (stderr-explanation.ts). */
  get stderrExplanation(): string {
    return explainingStderr(
      this.stderrTail === '' ? this.stderrHead : `${this.stderrHead}\n${this.stderrTail}`,
    );
  }

  start(): Promise<void> {
    if (this.child) throw new Error('stdio transport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        env: this.options.env,
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      this.child = child;
      child.once('spawn', () => resolve());
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('close', () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      let pending = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => {
        const room = STDERR_HEAD_CHARS - this.stderrHead.length;
        if (room > 0) this.stderrHead += text.slice(0, room);
        if (text.length > room)
          this.stderrTail = (this.stderrTail + text.slice(Math.max(room, 0))).slice(-STDERR_TAIL_CHARS);
        const lines = (pending + text).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') this.options.onStderrLine?.(line);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error('the server process is not running'));
        return;
      }
      // write's callback reports the error too; 'drain' is not needed for request-sized messages.
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends the server: stdin closed first (the polite MCP way), then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.stdin?.end();
    if (!(await settlesWithin(exited, 2000))) {
      child.kill('SIGTERM');
      if (!(await settlesWithin(exited, 2000))) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    this.buffer.clear();
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) {
        this.onmessage?.(message);
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

async function settlesWithin(promise: Promise<void>, milliseconds: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), milliseconds);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
