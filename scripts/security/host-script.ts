/**
 * Shell loops the harness runs itself during a race step: a change to the workspace from outside
 * keel (an editor, a build watcher, an approved command still running). Each runs in a process
 * group of its own so that stopping it stops everything it started; none outlives the harness.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();

export interface HostScript {
  stop(): Promise<void>;
}

export function startHostScript(script: string, cwd: string): HostScript {
  const child = spawn('/bin/sh', ['-c', script], { cwd, detached: true, stdio: 'ignore' });
  running.add(child);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  return {
    async stop() {
      killGroup(child);
      await exited;
      running.delete(child);
    },
  };
}

/** For exit and signal handlers: kills every script still running, synchronously. */
export function killHostScripts(): void {
  for (const child of running) killGroup(child);
  running.clear();
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
