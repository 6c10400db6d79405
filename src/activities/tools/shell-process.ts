import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { CappedText } from './capped-text';

/** After SIGTERM, how long a process group gets before SIGKILL. */
const KILL_GRACE_MILLISECONDS = 2000;
/** After the shell exits, how long to wait for its pipes to close before giving up on them. */
const CLOSE_WAIT_MILLISECONDS = 2000;

export interface ShellProcessResult {
  /** Undefined when the process was ended by a signal (timeout, cancellation, crash). */
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly stdout: CappedText;
  readonly stderr: CappedText;
  /** Bytes the command printed in total, including any omitted from stdout/stderr. */
  readonly outputBytes: number;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly durationMilliseconds: number;
}

/**
 * Runs `/bin/sh -c command` in its own process group, so a timeout or cancellation can kill
 * everything it started (pipelines, background jobs), not just the shell. Never rejects for what
 * the command does; only for failing to start a shell at all.
 */
export function runShellProcess(options: {
  command: string;
  /** A program (and its arguments) that runs the shell, e.g. bwrap …; the shell runs directly otherwise. */
  launcher?: readonly string[];
  /**
   * Keep stdin, a pipe, open for the command's life: the launcher reads it to notice the worker
   * dying (end of file) and kill the group. Otherwise the command reads end of file at once.
   */
  holdStdinOpen?: boolean;
  cwd: string;
  environment: Record<string, string>;
  timeoutMilliseconds: number;
  outputLimitPerStream: number;
  signal: AbortSignal;
  heartbeat: () => void;
  heartbeatIntervalMilliseconds: number;
  /**
   * A launcher that talks back (the copy-on-write layer's, see sandbox/layer-launcher.ts): each
   * line it writes on fd 3 is handed to `onLine`, in order; it waits for end of file on fd 4,
   * which comes once fd 3 is closed and every `onLine` has finished. So the launcher's namespace,
   * and the layer mounted in it, outlive the command until the worker has looked at them.
   */
  control?: { onLine(line: string, launcherPid: number): Promise<void> };
}): Promise<ShellProcessResult> {
  const started = Date.now();
  const stdout = new CappedText(options.outputLimitPerStream);
  const stderr = new CappedText(options.outputLimitPerStream);
  let outputBytes = 0;
  let timedOut = false;
  let cancelled = false;

  return new Promise((resolve, reject) => {
    const [program, ...launcherArguments] = [...(options.launcher ?? []), '/bin/sh', '-c', options.command];
    const child = spawn(program ?? '/bin/sh', launcherArguments, {
      cwd: options.cwd,
      env: options.environment,
      detached: true, // leader of a new process group: kill(-pid) reaches all of it
      stdio: options.control ? ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
    });
    if (options.control) listenForControl(child, options.control);
    child.stdin.on('error', () => {}); // EPIPE once the launcher is gone; nothing is ever written
    if (options.holdStdinOpen !== true) child.stdin.end(); // the command reads end of file at once
    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const timers: NodeJS.Timeout[] = [];
    const stop = (): void => {
      killGroup('SIGTERM');
      timers.push(setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MILLISECONDS));
    };
    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, options.timeoutMilliseconds),
    );
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
    options.heartbeat();
    const heartbeats = setInterval(options.heartbeat, options.heartbeatIntervalMilliseconds);

    for (const [stream, text] of [
      [child.stdout, stdout],
      [child.stderr, stderr],
    ] as const) {
      stream.setEncoding('utf8'); // decodes characters split across chunks correctly
      stream.on('data', (chunk: string) => {
        outputBytes += Buffer.byteLength(chunk, 'utf8');
        text.append(chunk);
      });
    }

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const finish = (): void => {
      if (settled || exit === undefined) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      clearInterval(heartbeats);
      options.signal.removeEventListener('abort', onAbort);
      resolve({
        exitCode: exit.code ?? undefined,
        signal: exit.signal ?? undefined,
        stdout,
        stderr,
        outputBytes,
        timedOut,
        cancelled,
        durationMilliseconds: Date.now() - started,
      });
    };
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      clearInterval(heartbeats);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      child.stdin.destroy();
      for (const extra of child.stdio.slice(3)) extra?.destroy();
      // Background jobs would keep the pipes open; the command is over, so they go too.
      killGroup('SIGKILL');
      timers.push(
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, CLOSE_WAIT_MILLISECONDS),
      );
    });
    child.on('close', finish);
  });
}

/** Reads fd 3 line by line, awaiting each handler, then closes fd 4 to let the launcher go. */
function listenForControl(
  child: ChildProcess,
  control: NonNullable<Parameters<typeof runShellProcess>[0]['control']>,
) {
  const lines = child.stdio[3] as Readable;
  const release = child.stdio[4] as Writable;
  release.on('error', () => {}); // EPIPE once the launcher is gone
  lines.setEncoding('utf8');
  let buffered = '';
  let handled = Promise.resolve();
  lines.on('data', (chunk: string) => {
    buffered += chunk;
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    for (const line of complete) {
      handled = handled.then(() => control.onLine(line, child.pid ?? 0)).catch(() => undefined);
    }
  });
  lines.on('close', () => {
    void handled.finally(() => release.end());
  });
}
