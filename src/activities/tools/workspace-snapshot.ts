import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import type { WorkspaceEffects } from '../../workflows/tools/tool-outcome';
import { commandEnvironment } from './command-environment';
import { SKIPPED_DIRECTORIES, walkFiles } from './walk-files';

const run = promisify(execFile);

/** Paths recorded at most per snapshot, so a snapshot of a huge tree stays bounded. */
export const SNAPSHOT_MAX_FILES = 5000;
/** Files larger than this are compared by size and mtime only. */
const HASH_MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Bytes hashed at most per snapshot; the rest fall back to size and mtime. */
const HASH_BUDGET_BYTES = 64 * 1024 * 1024;

export const SnapshotKind = { Git: 'git', Files: 'files' } as const;
export type SnapshotKind = (typeof SnapshotKind)[keyof typeof SnapshotKind];

export const snapshotEntrySchema = z.object({
  exists: z.boolean(),
  size: z.number().optional(),
  mtimeMs: z.number().optional(),
  /** sha256 of the content (of the target text, for a symbolic link); absent for big files. */
  hash: z.string().optional(),
  /** Git only: untracked or newly added, i.e. absent from HEAD. */
  isNew: z.boolean().optional(),
});
export type SnapshotEntry = z.infer<typeof snapshotEntrySchema>;

/**
 * The state of the workspace's files at one moment, to diff before/after a command (and later to
 * roll back). Inside a git work tree it records only what `git status` reports as changed or
 * untracked (everything else equals HEAD); elsewhere it records every file, up to a bound.
 */
export const workspaceSnapshotSchema = z.object({
  kind: z.enum([SnapshotKind.Git, SnapshotKind.Files]),
  /** Keyed by workspace-relative path with "/" separators. */
  entries: z.record(z.string(), snapshotEntrySchema),
  /** False when the bound was hit and some paths were not recorded. */
  complete: z.boolean(),
});
export type WorkspaceSnapshot = z.infer<typeof workspaceSnapshotSchema>;

export async function takeWorkspaceSnapshot(options: {
  workspace: string;
  /** Force a kind (the "after" snapshot must match the "before" one); detected by default. */
  kind?: SnapshotKind;
  /** Paths to record even if unlisted: pass the "before" snapshot's keys to see what became of them. */
  alsoInclude?: readonly string[];
  maxFiles?: number;
}): Promise<WorkspaceSnapshot> {
  const maxFiles = options.maxFiles ?? SNAPSHOT_MAX_FILES;
  const kind =
    options.kind ?? ((await inGitWorkTree(options.workspace)) ? SnapshotKind.Git : SnapshotKind.Files);
  const hashBudget = { remaining: HASH_BUDGET_BYTES };
  const entries: Record<string, SnapshotEntry> = {};
  let complete = true;

  if (kind === SnapshotKind.Git) {
    const changed = await gitChangedPaths(options.workspace);
    if (changed.length > maxFiles) complete = false;
    for (const { relative, isNew } of changed.slice(0, maxFiles)) {
      entries[relative] = {
        ...(await describePath(path.join(options.workspace, relative), hashBudget)),
        isNew,
      };
    }
  } else {
    for await (const file of walkFiles({ root: options.workspace })) {
      if (Object.keys(entries).length >= maxFiles) {
        complete = false;
        break;
      }
      entries[file.relative] = await describePath(file.absolute, hashBudget);
    }
  }
  for (const relative of options.alsoInclude ?? []) {
    if (Object.hasOwn(entries, relative)) continue;
    const described = await describePath(path.join(options.workspace, relative), hashBudget);
    // In git mode an unlisted path equals HEAD; it is recorded only to tell what became of it.
    entries[relative] = kind === SnapshotKind.Git ? { ...described, isNew: false } : described;
  }
  return { kind, entries, complete };
}

/**
 * What changed between two snapshots of the same kind. In git mode a path absent from a snapshot
 * equals HEAD: it existed unless the other snapshot says it is new.
 */
export function diffWorkspaceSnapshots(
  before: WorkspaceSnapshot,
  after: WorkspaceSnapshot,
): WorkspaceEffects {
  if (before.kind !== after.kind)
    throw new Error(`Cannot diff a ${before.kind} snapshot with a ${after.kind} one`);
  const git = before.kind === SnapshotKind.Git;
  const effects: WorkspaceEffects = { created: [], modified: [], deleted: [] };
  const paths = [...new Set([...Object.keys(before.entries), ...Object.keys(after.entries)])].sort();
  for (const relative of paths) {
    const previous = Object.hasOwn(before.entries, relative) ? before.entries[relative] : undefined;
    const next = Object.hasOwn(after.entries, relative) ? after.entries[relative] : undefined;
    if (git && next === undefined) continue; // clean now; without alsoInclude nothing more is known
    const existedBefore = previous?.exists ?? (git && next?.isNew !== true);
    const existsAfter = next?.exists ?? false;
    if (!existedBefore && existsAfter) effects.created.push(relative);
    else if (existedBefore && !existsAfter) effects.deleted.push(relative);
    else if (
      existedBefore &&
      existsAfter &&
      (previous === undefined || next === undefined || differs(previous, next))
    ) {
      effects.modified.push(relative);
    }
  }
  return effects;
}

function differs(previous: SnapshotEntry, next: SnapshotEntry): boolean {
  if (previous.hash !== undefined && next.hash !== undefined) return previous.hash !== next.hash;
  return previous.size !== next.size || previous.mtimeMs !== next.mtimeMs;
}

async function describePath(absolute: string, hashBudget: { remaining: number }): Promise<SnapshotEntry> {
  let info;
  try {
    info = await lstat(absolute);
  } catch {
    return { exists: false };
  }
  const entry: SnapshotEntry = { exists: true, size: info.size, mtimeMs: info.mtimeMs };
  try {
    if (info.isSymbolicLink()) {
      entry.hash = sha256(Buffer.from(await readlink(absolute)));
    } else if (info.isFile() && info.size <= HASH_MAX_FILE_BYTES && info.size <= hashBudget.remaining) {
      hashBudget.remaining -= info.size;
      entry.hash = sha256(await readFile(absolute));
    }
  } catch {
    // Unreadable: size and mtime still tell most changes apart.
  }
  return entry;
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

async function git(workspace: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run('git', [...args], {
    cwd: workspace,
    // The worker's GIT_DIR or similar must not redirect git away from the workspace.
    env: commandEnvironment({ idempotencyKey: '' }),
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

async function gitTopLevel(workspace: string): Promise<string | undefined> {
  try {
    return (await git(workspace, ['rev-parse', '--show-toplevel'])).trim();
  } catch {
    return undefined; // not a work tree, or no git installed
  }
}

/**
 * Inside a git work tree and not ignored by it: an ignored workspace (say, under a gitignored
 * state directory) would make `git status` report nothing, so it is walked like a plain one.
 */
async function inGitWorkTree(workspace: string): Promise<boolean> {
  if ((await gitTopLevel(workspace)) === undefined) return false;
  try {
    await git(workspace, ['check-ignore', '-q', '--', workspace]);
    return false; // exit 0: ignored
  } catch (error) {
    return (error as { code?: unknown }).code === 1; // 1: not ignored; anything else: unsure
  }
}

/** Changed and untracked paths under the workspace, from `git status`, workspace-relative. */
async function gitChangedPaths(workspace: string): Promise<{ relative: string; isNew: boolean }[]> {
  const topLevel = await gitTopLevel(workspace);
  if (topLevel === undefined) throw new Error(`${workspace} is no longer inside a git work tree`);
  const output = await git(workspace, [
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    '--',
    '.',
  ]);
  const changed: { relative: string; isNew: boolean }[] = [];
  for (const record of output.split('\0')) {
    if (record.length < 4) continue;
    const status = record.slice(0, 2);
    const relative = path
      .relative(workspace, path.join(topLevel, record.slice(3)))
      .split(path.sep)
      .join('/');
    if (relative.startsWith('..') || relative.split('/').some((segment) => SKIPPED_DIRECTORIES.has(segment)))
      continue;
    changed.push({ relative, isNew: status === '??' || status.includes('A') });
  }
  return changed;
}
