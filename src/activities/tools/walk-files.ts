import { lstat, readdir, type FileHandle } from 'node:fs/promises';
import {
  entryPath,
  openChildDirectory,
  openDirectoryBeneath,
  segmentsOf,
} from './workspace-access/open-beneath';

/** Directories never descended into: dependencies and version-control internals. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface WalkedFile {
  /** Relative to the walk's root, with "/" separators. */
  readonly relative: string;
  /**
   * Where to read it while this step of the walk lasts: a path through its directory's open
   * descriptor (see entryPath), so a directory swapped for a symlink mid-walk cannot redirect it.
   */
  readonly path: string;
  /** Symbolic links are reported, never followed: they may point outside the workspace. */
  readonly kind: 'file' | 'symlink';
  readonly size: number;
  readonly mtimeMs: number;
  /** The rest of its stat fingerprint (checkpoints tell changed files by it without another lstat). */
  readonly ctimeMs: number;
  readonly ino: number;
  readonly mode: number;
}

/**
 * Yields the files under `start` (workspace-relative, default the root) depth-first in sorted
 * order, so bounded walks see the same files every time. Every directory is opened through its
 * parent's descriptor without following links, so nothing a parallel command swaps in can lead
 * the walk outside the root. Unreadable directories are skipped. Stop iterating to bound it.
 */
export async function* walkFiles(options: {
  root: string;
  start?: string;
  signal?: AbortSignal;
}): AsyncGenerator<WalkedFile> {
  let directory: FileHandle;
  try {
    directory = await openDirectoryBeneath(options.root, segmentsOf(options.start ?? '.'));
  } catch {
    return;
  }
  yield* walkDirectory(directory, segmentsOf(options.start ?? '.').join('/'), options.signal);
}

async function* walkDirectory(
  directory: FileHandle,
  relative: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<WalkedFile> {
  try {
    signal?.throwIfAborted();
    let entries;
    try {
      entries = await readdir(`/proc/self/fd/${directory.fd}`, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      const childRelative = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) subdirectories.push(entry.name);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      const path = entryPath(directory, entry.name);
      let info;
      try {
        info = await lstat(path);
      } catch {
        continue; // deleted while walking
      }
      if (!info.isFile() && !info.isSymbolicLink()) continue; // replaced while walking
      yield {
        relative: childRelative,
        path,
        kind: info.isSymbolicLink() ? 'symlink' : 'file',
        size: info.size,
        mtimeMs: info.mtimeMs,
        ctimeMs: info.ctimeMs,
        ino: info.ino,
        mode: info.mode,
      };
    }
    for (const name of subdirectories) {
      let child: FileHandle;
      try {
        child = await openChildDirectory(directory, name);
      } catch {
        continue; // gone, unreadable, or swapped for a link since it was listed
      }
      yield* walkDirectory(child, relative === '' ? name : `${relative}/${name}`, signal);
    }
  } finally {
    await directory.close();
  }
}
