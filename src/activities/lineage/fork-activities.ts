/**
 * A fork's or a rewind's first step (issue 48), on the workspace's host: the files as they were
 * at the turn it continues from, written into the fork's new workspace or over the rewound
 * goal's own. From the first checkpoint at or after that turn; when there is none (no call
 * changed anything since), from the source workspace as it is now, and the answer says so.
 */
import { chmod, cp, lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from '../../workflows/common/failure-types';
import { parseHostActivityInput, workspacePathSchema } from '../hosts/host-activity-input';
import { workspaceState } from '../hosts/probe-workspace';
import { WorkspaceProbeState } from '../../workflows/hosts/host-queues';
import { workspaceStateDirectory, workspaceStateRoot } from '../hosts/workspace-state-directory';
import { SKIPPED_DIRECTORIES, walkFiles } from '../tools/walk-files';
import { CheckpointError, restoreCheckpoint } from '../checkpoints/checkpoint-store';
import { checkpointStoreOf, noteKeelWriteOn } from './turn-checkpoints';
import { untilNoCallRuns } from '../tools/running-calls';
import { activityContextOrUndefined } from '../activity-context';

export const restoreForkInputSchema = z.object({
  /** The original goal's workspace (its checkpoints lie beside it). */
  source: workspacePathSchema,
  /** The fork's workspace, or the rewound goal's own (in place). */
  target: workspacePathSchema,
  key: z.string().min(1),
  turn: z.number().int().positive(),
  /** The label of the checkpoint that holds the turn's files, as the history says (checkpoint-home.ts). */
  expectTurn: z.number().int().positive().optional(),
  mode: z.enum(['new', 'in-place']),
});
export type RestoreForkInput = z.infer<typeof restoreForkInputSchema>;

export interface RestoreForkOutcome {
  /** The checkpoint the files came from; absent: the source as it was when the fork began. */
  fromTurn?: number;
  written: number;
  removed: number;
  /** Calls of the run it replaced that were still running on the workspace, waited for first. */
  waitedForCalls?: number;
}

/** `workspaceRoots`: what this host serves (empty: any path); a fork reads and writes nowhere else. */
export function createForkActivities(host: { workspaceRoots: readonly string[] }) {
  const refused = (reason: string) =>
    ApplicationFailure.nonRetryable(reason, FailureType.WorkspaceUnpreparable);
  return {
    async restoreForkWorkspace(raw: RestoreForkInput): Promise<RestoreForkOutcome> {
      const input = parseHostActivityInput(restoreForkInputSchema, raw, 'restoreForkWorkspace');
      // Carried state names both paths: a client could name any; the host's roots bound them as they bound goals.
      const [from, to] = await Promise.all([
        workspaceState(input.source, host.workspaceRoots),
        workspaceState(input.target, host.workspaceRoots),
      ]);
      if (from !== WorkspaceProbeState.Present)
        throw refused(`the original's workspace ${input.source} is ${from} here`);
      if (to === WorkspaceProbeState.OutsideRoots || to === WorkspaceProbeState.NotADirectory)
        throw refused(`the fork's workspace ${input.target} is ${to} here`);
      const target = path.resolve(input.target);
      if (target === path.resolve(input.source) && input.mode === 'new') {
        throw ApplicationFailure.nonRetryable(
          'a fork needs a workspace of its own',
          'InvalidHostActivityInput',
        );
      }
      const mode = input.mode === 'new' ? await newTargetMode(input, target) : input.mode;
      // In place, the run it replaces may still have a call writing there: restore after it ends.
      const waitedForCalls = mode === 'in-place' ? await untilCallsEnd(target) : 0;
      const waited = waitedForCalls === 0 ? {} : { waitedForCalls };
      let restored;
      try {
        restored = await restoreCheckpoint({
          store: checkpointStoreOf(input.source),
          goalId: input.key,
          turn: input.turn,
          ...(input.expectTurn === undefined ? {} : { expectTurn: input.expectTurn }),
          target,
          mode,
        });
      } catch (error) {
        // A disk that failed for a moment is tried again; checkpoints gone or damaged are so for good.
        if (!(error instanceof CheckpointError)) throw error;
        throw ApplicationFailure.nonRetryable(
          `the files of turn ${input.turn} cannot be restored: ${error instanceof Error ? error.message : String(error)}`,
          FailureType.CheckpointUnavailable,
        );
      }
      const outcome =
        restored !== undefined
          ? { ...restored, ...waited }
          : input.mode === 'in-place'
            ? { written: 0, removed: 0, ...waited }
            : { written: await copyAsItIs(input.source, target), removed: 0 };
      await noteKeelWriteOn(target); // keel's write: not a change made outside it
      return outcome;
    },
  };
}

/**
 * Waits for the calls still running on a workspace restored in place: a rewound run's call learns
 * that its run ended at its next heartbeat, and a tool that does not look runs to its end. The
 * wait is heartbeated and logged; the activity's own timeout bounds it (a retry waits again).
 */
async function untilCallsEnd(workspace: string): Promise<number> {
  const activity = activityContextOrUndefined();
  let said = '';
  const { waitedForCalls } = await untilNoCallRuns(workspace, {
    ...(activity === undefined ? {} : { signal: activity.cancellationSignal }),
    waiting: (calls) => {
      activity?.heartbeat({ waitingFor: calls.length });
      const now = calls.map((call) => `${call.workflowId} ${call.callId}`).join(', ');
      if (now === said) return;
      said = now;
      activity?.log.info(`restore of ${workspace} waits for the call(s) still running there: ${now}`);
    },
  });
  return waitedForCalls;
}

/**
 * A new fork's workspace is written only if it is empty, or if this same restore began it: a
 * retry after a lost completion finds it written, maybe half, and makes it equal again (in place).
 * Anything else there is someone's folder (the client checked the path on its own machine, not
 * on this host) and is refused, never emptied. The claim is written before the first file.
 */
async function newTargetMode(input: RestoreForkInput, target: string): Promise<'new' | 'in-place'> {
  const claim = path.join(workspaceStateDirectory(target, 'forks'), 'restore.json');
  const ours = JSON.stringify({ source: path.resolve(input.source), key: input.key, turn: input.turn });
  if (await hasEntries(target)) {
    const found = await readFile(claim, 'utf8').catch(() => undefined);
    if (found === ours) return 'in-place';
    throw ApplicationFailure.nonRetryable(
      `the fork's workspace ${target} exists and is not empty`,
      FailureType.WorkspaceUnpreparable,
    );
  }
  await mkdir(path.dirname(claim), { recursive: true });
  await writeFile(claim, ours);
  return 'new';
}

async function hasEntries(directory: string): Promise<boolean> {
  try {
    return (await readdir(directory)).length > 0;
  } catch {
    return false;
  }
}

/** The source as it is, without what checkpoints leave out (node_modules, .git) or keel's own state. */
async function copyAsItIs(source: string, target: string): Promise<number> {
  await mkdir(target, { recursive: true });
  const stateRoot = workspaceStateRoot(source);
  await cp(source, target, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (from) => from !== stateRoot && !SKIPPED_DIRECTORIES.has(path.basename(from)),
  });
  let files = 0;
  for await (const file of walkFiles({ root: target })) {
    files += 1;
    if (file.kind !== 'file') continue;
    // Never setuid, setgid or sticky: a fork's files carry their permissions only.
    const { mode } = await lstat(file.path);
    if ((mode & 0o7000) !== 0) await chmod(file.path, mode & 0o777);
  }
  return files;
}
