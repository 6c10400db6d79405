import type { Dirent } from 'node:fs';
import { chmod, lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Why a layer is too large to apply, or undefined when it is within the limits. A file exactly at
 * the file size limit was cut short there (a write past it failed with SIGXFSZ, which a script
 * may have gone on from), so its layer is no more whole than one over the limits.
 */
export async function layerOversize(options: {
  upper: string;
  maxBytes: number;
  maxEntries: number;
  fileSizeLimit: number;
}): Promise<string | undefined> {
  const opened: OpenedDirectory[] = [];
  try {
    return await oversize(options, opened);
  } finally {
    // Deepest first: a parent closed again first would bar the way to its children.
    for (const { directory, mode } of opened.reverse()) await chmod(directory, mode);
  }
}

async function oversize(
  options: { upper: string; maxBytes: number; maxEntries: number; fileSizeLimit: number },
  opened: OpenedDirectory[],
): Promise<string | undefined> {
  let bytes = 0;
  let entries = 0;
  const pending = [options.upper];
  // Stops at the first limit crossed: a layer of a million files is not walked to the end.
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    for (const entry of await listOpening(directory, opened)) {
      entries += 1;
      if (entries > options.maxEntries)
        return `it made more than ${options.maxEntries} files, directories or deletions (the limit per call, KEEL_LAYER_MAX_ENTRIES)`;
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else {
        const size = (await lstat(full)).size;
        if (size >= options.fileSizeLimit)
          return `a file reached the file size limit of ${options.fileSizeLimit} bytes per file (KEEL_COMMAND_MAX_FILE_SIZE) and was cut short there`;
        bytes += size;
      }
      if (bytes > options.maxBytes)
        return `it wrote more than ${options.maxBytes} bytes (the limit per call, KEEL_LAYER_MAX_BYTES)`;
    }
  }
  return undefined;
}

/** A directory of the layer made readable to be measured, and the mode it had. */
interface OpenedDirectory {
  readonly directory: string;
  readonly mode: number;
}

/**
 * The entries of a directory of the layer. The command may have left it unreadable (chmod 000):
 * the worker owns the layer, so it makes it readable, as the capture does (listForcing), rather
 * than discard the layer or leave what is inside unmeasured. The mode is put back afterwards: the
 * capture, which runs next, takes each entry's mode as read with lstat for the one to apply.
 */
async function listOpening(directory: string, opened: OpenedDirectory[]): Promise<Dirent[]> {
  try {
    return await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
    const { mode } = await lstat(directory);
    await chmod(directory, 0o700);
    opened.push({ directory, mode: mode & 0o7777 });
    return await readdir(directory, { withFileTypes: true });
  }
}
