import { createHash } from 'node:crypto';
import { lstat, readlink } from 'node:fs/promises';
import { z } from 'zod';
import type { WorkspaceEffects } from '../../workflows/tools/tool-outcome';
import { walkFiles } from './walk-files';
import {
  entryPath,
  openDirectoryBeneath,
  readRegularFile,
  segmentsOf,
} from './workspace-access/open-beneath';

/** Paths recorded at most per snapshot, so a snapshot of a huge tree stays bounded. */
export const SNAPSHOT_MAX_FILES = 5000;
/** Files larger than this are compared by size and mtime only. */
const HASH_MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Bytes hashed at most per snapshot; the rest fall back to size and mtime. */
const HASH_BUDGET_BYTES = 64 * 1024 * 1024;

export const snapshotEntrySchema = z.object({
  exists: z.boolean(),
  size: z.number().optional(),
  mtimeMs: z.number().optional(),
  /** sha256 of the content (of the target text, for a symbolic link); absent for big files. */
  hash: z.string().optional(),
});
export type SnapshotEntry = z.infer<typeof snapshotEntrySchema>;

/**
 * The workspace's files at one moment, walked (node_modules and .git skipped, up to a bound), to
 * diff before/after a command that ran straight on the workspace: only where no copy-on-write
 * layer could be used (an approved call on a worker without overlayfs, or without a sandbox).
 * It reads files and nothing else: no git, nor any program that runs configuration the
 * workspace holds, ever runs on the host against it.
 */
export const workspaceSnapshotSchema = z.object({
  /** Keyed by workspace-relative path with "/" separators. */
  entries: z.record(z.string(), snapshotEntrySchema),
  /** False when the bound was hit and some paths were not recorded. */
  complete: z.boolean(),
});
export type WorkspaceSnapshot = z.infer<typeof workspaceSnapshotSchema>;

export async function takeWorkspaceSnapshot(options: {
  workspace: string;
  /** Paths to record even if unlisted: pass the "before" snapshot's keys to see what became of them. */
  alsoInclude?: readonly string[];
  maxFiles?: number;
}): Promise<WorkspaceSnapshot> {
  const maxFiles = options.maxFiles ?? SNAPSHOT_MAX_FILES;
  const hashBudget = { remaining: HASH_BUDGET_BYTES };
  const entries: Record<string, SnapshotEntry> = {};
  let complete = true;
  for await (const file of walkFiles({ root: options.workspace })) {
    if (Object.keys(entries).length >= maxFiles) {
      complete = false;
      break;
    }
    entries[file.relative] = await describePath(file.path, hashBudget);
  }
  for (const relative of options.alsoInclude ?? []) {
    if (Object.hasOwn(entries, relative)) continue;
    entries[relative] = await describeBeneath(options.workspace, relative, hashBudget);
  }
  return { entries, complete };
}

/** What changed between two snapshots of the same workspace. */
export function diffWorkspaceSnapshots(
  before: WorkspaceSnapshot,
  after: WorkspaceSnapshot,
): WorkspaceEffects {
  const effects: WorkspaceEffects = { created: [], modified: [], deleted: [] };
  const paths = [...new Set([...Object.keys(before.entries), ...Object.keys(after.entries)])].sort();
  for (const relative of paths) {
    const previous = Object.hasOwn(before.entries, relative) ? before.entries[relative] : undefined;
    const next = Object.hasOwn(after.entries, relative) ? after.entries[relative] : undefined;
    const existedBefore = previous?.exists ?? false;
    const existsAfter = next?.exists ?? false;
    if (!existedBefore && existsAfter) effects.created.push(relative);
    else if (existedBefore && !existsAfter) effects.deleted.push(relative);
    else if (existedBefore && existsAfter && previous && next && differs(previous, next)) {
      effects.modified.push(relative);
    }
  }
  return effects;
}

function differs(previous: SnapshotEntry, next: SnapshotEntry): boolean {
  if (previous.hash !== undefined && next.hash !== undefined) return previous.hash !== next.hash;
  return previous.size !== next.size || previous.mtimeMs !== next.mtimeMs;
}

/** A path by name, through descriptors that follow no link (it may be gone, or a link now). */
async function describeBeneath(
  workspace: string,
  relative: string,
  hashBudget: { remaining: number },
): Promise<SnapshotEntry> {
  const segments = segmentsOf(relative);
  const name = segments.pop();
  if (name === undefined) return { exists: false };
  let directory;
  try {
    directory = await openDirectoryBeneath(workspace, segments);
  } catch {
    return { exists: false };
  }
  try {
    return await describePath(entryPath(directory, name), hashBudget);
  } finally {
    await directory.close();
  }
}

/** `entry` is a path through a directory descriptor (entryPath): its last component is not followed. */
async function describePath(entry: string, hashBudget: { remaining: number }): Promise<SnapshotEntry> {
  let info;
  try {
    info = await lstat(entry);
  } catch {
    return { exists: false };
  }
  const described: SnapshotEntry = { exists: true, size: info.size, mtimeMs: info.mtimeMs };
  try {
    if (info.isSymbolicLink()) {
      described.hash = sha256(Buffer.from(await readlink(entry)));
    } else if (info.isFile() && info.size <= HASH_MAX_FILE_BYTES && info.size <= hashBudget.remaining) {
      hashBudget.remaining -= info.size;
      described.hash = sha256(await readRegularFile(entry, HASH_MAX_FILE_BYTES));
    }
  } catch {
    // Unreadable: size and mtime still tell most changes apart.
  }
  return described;
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}
