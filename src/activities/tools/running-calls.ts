/**
 * Which calls are running on a workspace now, across every worker process of its host (issue 48).
 *
 * A rewind ends the run it replaces (terminated by `keel rewind`, cancelled by the rewindGoal
 * Update) without waiting for that run's tool call to stop: Temporal tells the call at its next
 * heartbeat, and a tool may take its time, or never look. Restoring the files before it stops
 * would let it write into the restored workspace. So every call that may change the files marks
 * itself here while it runs, and a restore in place waits until no marked call is left.
 *
 * A marker is a small file beside the workspace (not in it), so the host's other processes see
 * it too. One whose process is gone, or that outlived its activity's deadline, is stale and is
 * removed: a worker killed mid-call never makes a restore wait.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { workspaceStateDirectory } from '../hosts/workspace-state-directory';

const runningCallSchema = z.object({
  pid: z.number().int().positive(),
  workflowId: z.string(),
  callId: z.string(),
  since: z.string(),
  /** When the call's activity times out at the latest: a marker past it (and a grace) is stale. */
  deadline: z.string(),
});
export type RunningCall = z.infer<typeof runningCallSchema>;

/** How long past its activity's deadline a marker is still believed: the tool's own ending. */
const DEADLINE_GRACE_MS = 30_000;

const directoryOf = (workspace: string) => workspaceStateDirectory(workspace, 'running');
/** Folders made by this process: a call's marker costs a write and a removal, no mkdir. */
const madeDirectories = new Set<string>();

/** Marks a call running on `workspace`; the answer unmarks it (call it in a finally). */
export async function markCallRunning(
  workspace: string,
  call: Omit<RunningCall, 'pid' | 'since'>,
  now: Date = new Date(),
): Promise<() => Promise<void>> {
  const directory = directoryOf(workspace);
  if (!madeDirectories.has(directory)) {
    await mkdir(directory, { recursive: true });
    madeDirectories.add(directory);
  }
  const file = path.join(directory, `${process.pid}-${randomUUID()}.json`);
  const marker: RunningCall = { pid: process.pid, since: now.toISOString(), ...call };
  try {
    await writeFile(file, JSON.stringify(marker));
  } catch (error) {
    // The folder went (the workspace's state removed meanwhile): made again once.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(directory, { recursive: true });
    await writeFile(file, JSON.stringify(marker));
  }
  return () => rm(file, { force: true });
}

/** The calls running on `workspace` now; stale markers are removed on the way. */
export async function runningCalls(
  workspace: string,
  options: { now?: Date; isAlive?: (pid: number) => boolean } = {},
): Promise<RunningCall[]> {
  return (await scanMarkers(workspace, options)).running;
}

/**
 * How many calls on `workspace` ended without unmarking: their process was killed (mid-call, or
 * between its answer and the note of what it left) or they outlived their deadline. Their markers
 * are removed, so each is counted once. What such a call changed was never noted as keel's
 * (after-keel-calls.ts), so the next checkpoint cannot tell it from a change made outside keel.
 */
export async function callsCutOff(
  workspace: string,
  options: { now?: Date; isAlive?: (pid: number) => boolean } = {},
): Promise<number> {
  return (await scanMarkers(workspace, options)).stale;
}

async function scanMarkers(
  workspace: string,
  options: { now?: Date; isAlive?: (pid: number) => boolean },
): Promise<{ running: RunningCall[]; stale: number }> {
  const directory = directoryOf(workspace);
  const isAlive = options.isAlive ?? processIsAlive;
  const now = (options.now ?? new Date()).getTime();
  const names = await readdir(directory).catch(() => [] as string[]);
  const running: RunningCall[] = [];
  let stale = 0;
  for (const name of names) {
    const file = path.join(directory, name);
    const marker = runningCallSchema.safeParse(
      await readFile(file, 'utf8')
        .then(JSON.parse, () => undefined)
        .catch(() => undefined),
    );
    // Unreadable (half written by a process killed then) or stale: no call is behind it.
    const isStale =
      !marker.success ||
      !isAlive(marker.data.pid) ||
      Date.parse(marker.data.deadline) + DEADLINE_GRACE_MS < now;
    if (!isStale) running.push(marker.data);
    // Counted by whoever removed it: two scans never both count one marker, and a marker its
    // call removed meanwhile (read as unreadable) is not counted at all.
    else if (await removed(file)) stale += 1;
  }
  return { running, stale };
}

/** Removes `file`; false when another process removed it first. */
async function removed(file: string): Promise<boolean> {
  try {
    await unlink(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Resolves once no call runs on `workspace`, checking every `pollMs`; `waiting` hears what it
 * waits for (each time the list changes), so the activity can heartbeat and log it.
 */
export async function untilNoCallRuns(
  workspace: string,
  options: {
    pollMs?: number;
    waiting?: (calls: readonly RunningCall[]) => void;
    isAlive?: (pid: number) => boolean;
    signal?: AbortSignal;
  } = {},
): Promise<{ waitedForCalls: number }> {
  const seen = new Set<string>();
  for (;;) {
    const calls = await runningCalls(workspace, { isAlive: options.isAlive });
    if (calls.length === 0) return { waitedForCalls: seen.size };
    for (const call of calls) seen.add(`${call.workflowId}/${call.callId}`);
    options.waiting?.(calls);
    options.signal?.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
  }
}

/** Whether a process of this machine still runs (EPERM: it does, another user's). */
function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
