import os from 'node:os';
import type { LocalMachine } from './claim-decision';

/** This machine as the claim sees it: its name as worker identities carry it, and its processes. */
export function localMachine(): LocalMachine {
  return { machine: os.hostname(), pid: process.pid, running: processRunning };
}

/** Whether a process with this pid exists here (signal 0 only asks; EPERM: it exists, another user's). */
export function processRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false; // 0 and negatives would name process groups
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
