import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/** Directories never descended into: dependencies and version-control internals. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface WalkedFile {
  /** Relative to the walk's root, with "/" separators. */
  readonly relative: string;
  readonly absolute: string;
  /** Symbolic links are reported, never followed: they may point outside the workspace. */
  readonly kind: 'file' | 'symlink';
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * Yields the files under `start` (default: root) depth-first in sorted order, so bounded walks
 * see the same files every time. Unreadable directories are skipped. Stop iterating to bound it.
 */
export async function* walkFiles(options: {
  root: string;
  start?: string;
  signal?: AbortSignal;
}): AsyncGenerator<WalkedFile> {
  const pending = [options.start ?? options.root];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const directory = pending.pop() as string;
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      const absolute = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) subdirectories.push(absolute);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      let info;
      try {
        info = await lstat(absolute);
      } catch {
        continue; // deleted while walking
      }
      yield {
        relative: path.relative(options.root, absolute).split(path.sep).join('/'),
        absolute,
        kind: entry.isSymbolicLink() ? 'symlink' : 'file',
        size: info.size,
        mtimeMs: info.mtimeMs,
      };
    }
    // Reverse so the stack pops them in sorted order.
    pending.push(...subdirectories.reverse());
  }
}
