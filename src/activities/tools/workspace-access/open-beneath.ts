import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, type FileHandle } from 'node:fs/promises';

const { O_RDONLY, O_RDWR, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * Why a workspace path could not be opened, and the workspace-relative prefix where the walk
 * stopped. A symbolic link anywhere on the path is a refusal, never followed.
 */
export type BeneathRefusal =
  | { readonly kind: 'missing'; readonly at: string }
  | { readonly kind: 'symlink'; readonly at: string; readonly target: string }
  | { readonly kind: 'not-a-directory'; readonly at: string }
  | { readonly kind: 'not-a-file'; readonly at: string; readonly type: EntryType };

export type EntryType = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'device' | 'other';

export class BeneathError extends Error {
  override readonly name = 'BeneathError';
  constructor(readonly refusal: BeneathRefusal) {
    super(`${refusal.kind} at ${refusal.at}`);
  }
}

/**
 * The path of an entry inside an open directory that the kernel resolves through the directory's
 * file descriptor (a magic link to the directory itself), not through the names above it. This
 * is openat(2) for node, which has no openat: a parent swapped for a symlink after it was opened
 * cannot redirect the lookup, because the lookup never passes through the parent's name again.
 */
export function entryPath(directory: FileHandle, name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/'))
    throw new Error(`not a single path segment: ${JSON.stringify(name)}`);
  return `/proc/self/fd/${directory.fd}/${name}`;
}

/** Workspace-relative "a/b/c" as segments; "." and "" are the root. */
export function segmentsOf(relative: string): string[] {
  return relative.split('/').filter((segment) => segment !== '' && segment !== '.');
}

export function typeOf(info: Stats): EntryType {
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'directory';
  if (info.isSymbolicLink()) return 'symlink';
  if (info.isFIFO()) return 'fifo';
  if (info.isSocket()) return 'socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'device';
  return 'other';
}

/**
 * Opens a directory beneath `root` one segment at a time, each with O_NOFOLLOW through the
 * previous one's descriptor: no symbolic link is followed at any component, and nothing can be
 * swapped in between check and use (the race a parallel command won against path checks).
 * With `create`, missing directories are made on the way. The caller closes the handle.
 */
export async function openDirectoryBeneath(
  root: string,
  segments: readonly string[],
  options: { create?: boolean } = {},
): Promise<FileHandle> {
  let directory = await open(root, O_RDONLY | O_DIRECTORY);
  try {
    for (let index = 0; index < segments.length; index += 1) {
      const name = segments[index] ?? '';
      const at = segments.slice(0, index + 1).join('/');
      const next = await openChildDirectory(directory, name, at, options.create === true);
      await directory.close();
      directory = next;
    }
    return directory;
  } catch (error) {
    await directory.close().catch(() => undefined);
    throw error;
  }
}

/** Opens one subdirectory of an open directory without following a link (see openDirectoryBeneath). */
export async function openChildDirectory(
  parent: FileHandle,
  name: string,
  at: string = name,
  create = false,
): Promise<FileHandle> {
  const child = entryPath(parent, name);
  try {
    return await open(child, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    if (create && codeOf(error) === 'ENOENT') {
      await mkdir(child).catch((mkdirError: unknown) => {
        if (codeOf(mkdirError) !== 'EEXIST') throw mkdirError;
      });
      return openChildDirectory(parent, name, at, false);
    }
    throw await refusalFor(error, child, at, 'directory');
  }
}

/**
 * Opens a regular file beneath `root` (no link followed anywhere; see openDirectoryBeneath).
 * O_NONBLOCK keeps a FIFO from blocking the open; the file's type is then checked on the open
 * descriptor itself, so a FIFO, socket or device is refused without ever being read or written.
 * - `read`: an existing file, read-only;
 * - `update`: an existing file, read-write;
 * - `write`: read-write, created (with missing parent directories) when absent; `created` says
 *   which. Nothing is truncated here: the caller writes after the type check.
 * The caller closes the file.
 */
export async function openFileBeneath(
  root: string,
  segments: readonly string[],
  access: 'read' | 'update' | 'write',
): Promise<{ file: FileHandle; info: Stats; created: boolean }> {
  const name = segments.at(-1);
  if (name === undefined) throw new BeneathError({ kind: 'not-a-file', at: '.', type: 'directory' });
  const at = segments.join('/');
  const parent = await openDirectoryBeneath(root, segments.slice(0, -1), { create: access === 'write' });
  try {
    const child = entryPath(parent, name);
    let file: FileHandle | undefined;
    let created = false;
    try {
      if (access === 'write') {
        // O_EXCL with O_CREAT never follows a link: an existing entry of any kind is EEXIST.
        file = await open(child, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0o666).catch(
          (error: unknown) => {
            if (codeOf(error) !== 'EEXIST') throw error;
            return undefined;
          },
        );
        created = file !== undefined;
      }
      file ??= await open(child, (access === 'read' ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      throw await refusalFor(error, child, at, 'file');
    }
    const info = await file.stat();
    if (!info.isFile()) {
      await file.close();
      throw new BeneathError({ kind: 'not-a-file', at, type: typeOf(info) });
    }
    return { file, info, created };
  } finally {
    await parent.close();
  }
}

/**
 * What is at a workspace path, without following a link at any component. A link at the end is
 * described (lstat) or, with `refuseLink`, refused with its target like a link on the way.
 */
export async function lstatBeneath(
  root: string,
  segments: readonly string[],
  options: { refuseLink?: boolean } = {},
): Promise<Stats> {
  const name = segments.at(-1);
  if (name === undefined) return lstat(root);
  const at = segments.join('/');
  const parent = await openDirectoryBeneath(root, segments.slice(0, -1));
  try {
    const child = entryPath(parent, name);
    let info: Stats;
    try {
      info = await lstat(child);
    } catch (error) {
      throw await refusalFor(error, child, at, 'file');
    }
    if (options.refuseLink === true && info.isSymbolicLink())
      throw new BeneathError({ kind: 'symlink', at, target: await readlink(child).catch(() => '?') });
    return info;
  } finally {
    await parent.close();
  }
}

/**
 * The content of an entry (a path through a directory descriptor, see entryPath) if it is a
 * regular file when opened: no link followed, and a FIFO swapped in since it was listed is
 * refused instead of blocking the read. `maxBytes` is checked on the open descriptor too: a file
 * grown or swapped since it was listed cannot make the worker read gigabytes.
 */
export async function readRegularFile(entry: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
  const file = await open(entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const info = await file.stat();
    if (!info.isFile()) throw new Error(`${entry} is not a regular file`);
    if (info.size > maxBytes) throw new Error(`${entry} is larger than ${maxBytes} bytes`);
    return await file.readFile();
  } finally {
    await file.close();
  }
}

/** Turns a failed open into the refusal it means: a symlink, a file where a directory was wanted, a missing entry. */
async function refusalFor(
  error: unknown,
  child: string,
  at: string,
  wanted: 'file' | 'directory',
): Promise<unknown> {
  const code = codeOf(error);
  if (code === 'ENOENT') return new BeneathError({ kind: 'missing', at });
  if (code !== 'ELOOP' && code !== 'ENOTDIR' && code !== 'ENXIO' && code !== 'EISDIR') return error;
  let info: Stats;
  try {
    info = await lstat(child);
  } catch {
    return new BeneathError({ kind: 'missing', at });
  }
  if (info.isSymbolicLink())
    return new BeneathError({ kind: 'symlink', at, target: await readlink(child).catch(() => '?') });
  if (wanted === 'directory') return new BeneathError({ kind: 'not-a-directory', at });
  return new BeneathError({ kind: 'not-a-file', at, type: typeOf(info) });
}

export function codeOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
