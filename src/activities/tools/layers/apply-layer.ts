import type { Stats } from 'node:fs';
import { chmod, cp, lstat, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  BeneathError,
  entryPath,
  lstatBeneath,
  openDirectoryBeneath,
  segmentsOf,
  typeOf,
} from '../workspace-access/open-beneath';
import { PRIVILEGE_BITS } from '../../../workflows/tools/workspace-change-policy';
import type { BaselineEntry, Fingerprint, LayerOperation } from './layer-operations';

/**
 * The paths someone else changed since the layer was taken (the workspace no longer holds what
 * the layer's changes were made against). Applying over them would silently undo their change,
 * so a layer with any is not applied at all.
 */
export async function changedSinceCapture(
  workspace: string,
  baseline: readonly BaselineEntry[],
): Promise<string[]> {
  const changed: string[] = [];
  for (const entry of baseline) {
    let now: Stats | undefined;
    try {
      now = await lstatBeneath(workspace, segmentsOf(entry.path));
    } catch (error) {
      if (!(error instanceof BeneathError) || error.refusal.kind !== 'missing') {
        changed.push(entry.path); // a link or a file now stands where a directory was
        continue;
      }
    }
    if (!sameEntry(entry.fingerprint, now)) changed.push(entry.path);
  }
  return changed;
}

function sameEntry(before: Fingerprint, now: Stats | undefined): boolean {
  if (before === null || now === undefined) return before === null && now === undefined;
  if (before.type !== typeOf(now) || before.ino !== now.ino) return false;
  // A directory's size and times change with what happens inside it, which the children's own
  // entries cover; a file's do not change unless the file does.
  return before.type === 'directory' || (before.size === now.size && before.mtimeMs === now.mtimeMs);
}

/**
 * Carries out a layer's operations on the workspace (layer-operations.ts), in order. Every path
 * is reached through directory descriptors opened without following links, so a link planted in
 * the workspace cannot carry a move or a removal outside it. Moves are renames from the layer
 * (same file system: the layer lives beside the workspace), copies where that fails. Safe to run
 * again after a crash: each operation skips what is already done.
 */
export async function applyOperations(options: {
  workspace: string;
  upper: string;
  operations: readonly LayerOperation[];
}): Promise<void> {
  for (const operation of options.operations) {
    const segments = segmentsOf(operation.path);
    const name = segments.pop();
    if (name === undefined) continue; // the root itself is never replaced or removed
    const parent = await openDirectoryBeneath(options.workspace, segments);
    try {
      const target = entryPath(parent, name);
      switch (operation.op) {
        case 'remove':
          await rm(target, { recursive: true, force: true });
          break;
        case 'move':
          await move(path.join(options.upper, operation.path), target);
          break;
        case 'directory':
          await chmod(target, await modeKeepingNoNewPrivileges(target, operation.mode));
          break;
      }
    } finally {
      await parent.close();
    }
  }
}

/**
 * The capture already took away what the policy does not grant (privilegesToApply); here a
 * directory's recorded mode still may not add setuid, setgid or sticky bits the directory lacks
 * now, so a record written by an older keel (or tampered with) cannot grant them either.
 */
async function modeKeepingNoNewPrivileges(target: string, mode: number): Promise<number> {
  const current = await lstat(target);
  return (mode & ~PRIVILEGE_BITS) | (mode & current.mode & PRIVILEGE_BITS);
}

async function move(source: string, target: string): Promise<void> {
  try {
    await lstat(source);
  } catch {
    return; // moved by an earlier attempt
  }
  try {
    await rename(source, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // The layer is on another file system than the workspace (a workspace that is a mount of
    // its own): copy, keeping links as links, then drop the source so a repeat skips it.
    await cp(source, target, {
      recursive: true,
      force: true,
      verbatimSymlinks: true,
      preserveTimestamps: true,
    });
    await rm(source, { recursive: true, force: true });
  }
}
