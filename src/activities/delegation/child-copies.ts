import { createHash } from 'node:crypto';
import { cp, lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from '../../workflows/common/failure-types';
import { parseHostActivityInput, workspacePathSchema } from '../hosts/host-activity-input';
import { workspaceStateDirectory, workspaceStateRoot } from '../hosts/workspace-state-directory';
import { copyManifestSchema, manifestOf, type CopyManifest } from './copy-manifest';
import { BeneathError, openDirectoryBeneath, segmentsOf } from '../tools/workspace-access/open-beneath';
import { mergeCopy, type MergeOutcome } from './merge-copy';
import { noteKeelWriteOn } from '../lineage/turn-checkpoints';

/**
 * A delegated child's own copy of its parent's workspace (issue 47, workspace "copy"): made when
 * the child starts, merged back when it completes, dropped after. The child works beside its
 * siblings and its parent without racing them; what it changed comes back only where the parent's
 * file is still what the child started from (merge-copy.ts), never over a change made since.
 *
 * The copy lies beside the workspace (`/work/app.keel-copy-<hash>` for `/work/app`), under the
 * same workspace root: inside the workspace a running goal's claim would refuse it (one workspace
 * inside another), and inside keel's state directory no goal may work. Its manifest — each file's
 * hash as the child found it — lies in the parent's state directory.
 */

export const childCopyInputSchema = z.object({
  workspace: workspacePathSchema,
  childWorkflowId: z.string().min(1),
  /** Only this folder of the workspace is copied, and merged back into it (relative, no ".."). */
  folder: z
    .string()
    .refine(
      (folder) =>
        !folder.startsWith('/') && !segmentsOf(folder).includes('..') && segmentsOf(folder).length > 0,
      {
        message: 'folder must be relative to the workspace, without ".."',
      },
    )
    .optional(),
});
export type ChildCopyInput = z.infer<typeof childCopyInputSchema>;

function keyOf(childWorkflowId: string): string {
  return createHash('sha256').update(childWorkflowId).digest('hex').slice(0, 12);
}

/** Where the child's copy of `workspace` lies: beside it, named after the child. */
export function childCopyPath(workspace: string, childWorkflowId: string): string {
  const resolved = path.resolve(workspace);
  return path.join(path.dirname(resolved), `${path.basename(resolved)}.keel-copy-${keyOf(childWorkflowId)}`);
}

function manifestPath(input: ChildCopyInput): string {
  return path.join(
    workspaceStateDirectory(input.workspace, 'copies'),
    `${keyOf(input.childWorkflowId)}.json`,
  );
}

export function createChildCopyActivities() {
  return {
    /**
     * Copies the workspace for the child, whole (links as links), and records what it holds.
     * Safe to repeat: a copy with its manifest is complete and kept; one without is made again.
     */
    async copyWorkspaceForChild(raw: ChildCopyInput): Promise<{ copy: string; files: number }> {
      const input = parseHostActivityInput(childCopyInputSchema, raw, 'copyWorkspaceForChild');
      const copy = childCopyPath(input.workspace, input.childWorkflowId);
      const manifestFile = manifestPath(input);
      const existing = await readManifest(manifestFile);
      if (existing && (await lstat(copy).catch(() => undefined))?.isDirectory()) {
        return { copy, files: Object.keys(existing.files).length };
      }
      if (!(await lstat(input.workspace).catch(() => undefined))?.isDirectory()) {
        throw ApplicationFailure.nonRetryable(
          `the workspace ${input.workspace} is not a directory on this host`,
          FailureType.WorkspaceMissing,
        );
      }
      await rm(copy, { recursive: true, force: true });
      const partial = `${copy}.partial`;
      await rm(partial, { recursive: true, force: true });
      await withFolder(input, (source) =>
        cp(source, partial, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true }),
      );
      const files = await manifestOf(partial).catch(async (error: unknown) => {
        await rm(partial, { recursive: true, force: true });
        throw error;
      });
      await rename(partial, copy);
      await mkdir(path.dirname(manifestFile), { recursive: true });
      // The manifest is written last: a copy without one is incomplete and is made again.
      const manifest: CopyManifest = { version: 1, files };
      await writeFile(manifestFile, JSON.stringify(manifest));
      return { copy, files: Object.keys(files).length };
    },

    /**
     * Brings the child's changes into the workspace where they do not overlap a change made there
     * since the copy (merge-copy.ts). Safe to repeat: a change already there counts as applied.
     */
    async mergeChildCopy(raw: ChildCopyInput): Promise<MergeOutcome> {
      const input = parseHostActivityInput(childCopyInputSchema, raw, 'mergeChildCopy');
      const manifest = await readManifest(manifestPath(input));
      const copy = childCopyPath(input.workspace, input.childWorkflowId);
      if (!manifest || !(await lstat(copy).catch(() => undefined))?.isDirectory()) {
        throw ApplicationFailure.nonRetryable(
          `the child's copy of ${input.workspace} is gone from this host: its changes cannot be merged`,
          FailureType.WorkspaceMissing,
        );
      }
      const outcome = await withFolder(input, (target) =>
        mergeCopy({ workspace: target, lockKey: input.workspace, copy, base: manifest.files }),
      );
      await noteKeelWriteOn(input.workspace); // keel's write: not a change made outside it
      return input.folder === undefined ? outcome : inFolder(outcome, segmentsOf(input.folder).join('/'));
    },

    /** Removes the child's copy, its manifest and what the child's goal kept beside it; nothing there is no error. */
    async dropChildCopy(raw: ChildCopyInput): Promise<void> {
      const input = parseHostActivityInput(childCopyInputSchema, raw, 'dropChildCopy');
      const copy = childCopyPath(input.workspace, input.childWorkflowId);
      await rm(copy, { recursive: true, force: true });
      await rm(`${copy}.partial`, { recursive: true, force: true });
      await rm(manifestPath(input), { force: true });
      await rm(workspaceStateRoot(copy), { recursive: true, force: true });
    },
  };
}

/**
 * Runs `work` on the directory the child's copy is of: the workspace, or its folder opened
 * beneath it without following a link (a folder the model swapped for a link to /etc since must
 * not be copied from, nor merged into), by a path through the open descriptor.
 */
async function withFolder<T>(input: ChildCopyInput, work: (directory: string) => Promise<T>): Promise<T> {
  if (input.folder === undefined) return work(input.workspace);
  let directory;
  try {
    directory = await openDirectoryBeneath(input.workspace, segmentsOf(input.folder));
  } catch (error) {
    if (!(error instanceof BeneathError)) throw error;
    throw ApplicationFailure.nonRetryable(
      `${input.folder} is not a folder of the workspace (${error.refusal.kind} at ${error.refusal.at})`,
      FailureType.WorkspaceUnpreparable,
    );
  }
  try {
    // "/." so that copying it copies the directory, not the descriptor's link to it.
    return await work(`/proc/self/fd/${directory.fd}/.`);
  } finally {
    await directory.close();
  }
}

/** The outcome's paths as the parent names them: inside the folder. */
function inFolder(outcome: MergeOutcome, folder: string): MergeOutcome {
  const within = <E extends { path: string }>(entries: E[]) =>
    entries.map((entry) => ({ ...entry, path: `${folder}/${entry.path}` }));
  return {
    ...outcome,
    applied: within(outcome.applied),
    overlaps: within(outcome.overlaps),
    notMerged: within(outcome.notMerged),
  };
}

async function readManifest(file: string): Promise<CopyManifest | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = copyManifestSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // cut short: the copy is made again
  }
}
