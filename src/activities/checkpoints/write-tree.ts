import { lstat, mkdir, readdir, readlink, rm, rmdir, symlink, type FileHandle } from 'node:fs/promises';
import { walkFiles } from '../tools/walk-files';
import {
  BeneathError,
  codeOf,
  entryPath,
  openChildDirectory,
  openDirectoryBeneath,
  openFileBeneath,
  segmentsOf,
} from '../tools/workspace-access/open-beneath';
import { hashOf, readObject } from './objects';
import { CheckpointError, type Tree, type TreeEntry } from './records';

/**
 * Makes `target` hold a checkpoint's tree. Everything is written beneath the target without
 * following a link at any component (a link the agent left, or a directory swapped for one, cannot
 * send a write outside). Each object is checked against its hash before a byte of it is written.
 * - `new`: the target must be absent or empty; it is created.
 * - `in-place`: files and links not in the tree are removed, the rest rewritten only where they
 *   differ. node_modules and .git are left as they are: the walk skips them, as the take did.
 */
export async function writeTree(options: {
  store: string;
  tree: Tree;
  target: string;
  mode: 'new' | 'in-place';
}): Promise<{ written: number; removed: number }> {
  const { store, tree, target } = options;
  if (options.mode === 'new') await makeEmptyTarget(target);
  else await mkdir(target, { recursive: true });
  let removed = 0;
  if (options.mode === 'in-place') {
    const emptied = new Set<string>();
    for await (const file of walkFiles({ root: target })) {
      const wanted = tree.get(file.relative);
      if (wanted?.kind === file.kind) continue; // same kind: compared (and rewritten if need be) below
      await rm(file.path, { force: true }); // the entry itself, through its directory's descriptor
      if (wanted === undefined) removed += 1;
      for (let folder = parentOf(file.relative); folder !== ''; folder = parentOf(folder))
        emptied.add(folder);
    }
    await removeEmptied(target, emptied, tree);
  }
  let written = 0;
  const paths = [...tree.keys()].sort();
  for (const relative of paths) {
    const entry = tree.get(relative) as TreeEntry;
    const changed =
      entry.kind === 'file'
        ? await writeFile(store, target, relative, entry)
        : await writeLink(target, relative, entry.target);
    if (changed) written += 1;
  }
  return { written, removed };
}

async function makeEmptyTarget(target: string): Promise<void> {
  const info = await lstat(target).catch((error: unknown) => {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  });
  if (info === undefined) {
    await mkdir(target, { recursive: true });
    return;
  }
  if (!info.isDirectory() || (await readdir(target)).length > 0)
    throw new CheckpointError(
      'target-not-empty',
      `cannot restore a checkpoint into ${target}: it is not an empty directory`,
    );
}

/** Writes one file unless it is there already with that content and mode; whether it wrote. */
async function writeFile(
  store: string,
  target: string,
  relative: string,
  entry: { hash: string; mode: number },
): Promise<boolean> {
  const segments = segmentsOf(relative);
  const { file, info, created } = await openForWriting(target, segments);
  try {
    const sameContent = !created && hashOf(await file.readFile()) === entry.hash;
    // Permission bits only: a setuid, setgid or sticky bit found on the file is dropped too.
    if (sameContent && (info.mode & 0o7777) === entry.mode) return false;
    if (!sameContent) {
      const content = await readObject(store, entry.hash); // verified before anything is written
      await file.truncate(0);
      await file.write(content, 0, content.length, 0);
    }
    await file.chmod(entry.mode);
    return true;
  } finally {
    await file.close();
  }
}

/** openFileBeneath for writing; an empty directory tree where the file belongs is removed first. */
async function openForWriting(target: string, segments: string[]) {
  try {
    return await openFileBeneath(target, segments, 'write');
  } catch (error) {
    if (!(error instanceof BeneathError && error.refusal.kind === 'not-a-file')) throw error;
    if (error.refusal.type !== 'directory') throw error;
    await removeDirectoryInTheWay(target, segments);
    return openFileBeneath(target, segments, 'write');
  }
}

/** Makes a link unless the same one is there; whether it made it. */
async function writeLink(target: string, relative: string, linkTarget: string): Promise<boolean> {
  const segments = segmentsOf(relative);
  const name = segments.at(-1) ?? '';
  const parent = await openDirectoryBeneath(target, segments.slice(0, -1), { create: true });
  try {
    const at = entryPath(parent, name);
    const existing = await lstat(at).catch((error: unknown) => {
      if (codeOf(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (existing?.isSymbolicLink() === true && (await readlink(at)) === linkTarget) return false;
    if (existing?.isDirectory() === true) await removeEmptyDirectories(parent, name, relative);
    else if (existing !== undefined) await rm(at, { force: true });
    await symlink(linkTarget, at);
    return true;
  } finally {
    await parent.close();
  }
}

async function removeDirectoryInTheWay(target: string, segments: string[]): Promise<void> {
  const parent = await openDirectoryBeneath(target, segments.slice(0, -1));
  try {
    await removeEmptyDirectories(parent, segments.at(-1) ?? '', segments.join('/'));
  } finally {
    await parent.close();
  }
}

/**
 * Removes a directory that stands where the checkpoint has a file or link. The files in it that
 * were checkpointed are gone by now (in-place removed what the tree does not have); anything left
 * is in node_modules or .git, which a checkpoint does not hold, so it is refused, not deleted.
 */
async function removeEmptyDirectories(parent: FileHandle, name: string, relative: string): Promise<void> {
  const directory = await openChildDirectory(parent, name, relative);
  try {
    for (const entry of await readdir(`/proc/self/fd/${directory.fd}`, { withFileTypes: true })) {
      if (!entry.isDirectory())
        throw new CheckpointError(
          'target-not-empty',
          `cannot restore ${relative}: a directory is there holding files no checkpoint has (node_modules or .git); remove it or restore into a new directory`,
        );
      await removeEmptyDirectories(directory, entry.name, `${relative}/${entry.name}`);
    }
  } finally {
    await directory.close();
  }
  await rmdir(entryPath(parent, name));
}

function parentOf(relative: string): string {
  const slash = relative.lastIndexOf('/');
  return slash < 0 ? '' : relative.slice(0, slash);
}

/**
 * The folders whose files the in-place pass removed, deepest first, removed too when nothing is
 * left in them and the tree puts nothing there (a build's output folder, gone with its files). A
 * folder with anything else in it stays; so does an empty folder the restore did not empty.
 */
async function removeEmptied(target: string, emptied: ReadonlySet<string>, tree: Tree): Promise<void> {
  const needed = new Set([...tree.keys()].flatMap((relative) => ancestorsOf(relative)));
  const deepestFirst = [...emptied].sort((left, right) => right.split('/').length - left.split('/').length);
  for (const folder of deepestFirst) {
    if (needed.has(folder)) continue;
    const segments = segmentsOf(folder);
    const name = segments.pop();
    if (name === undefined) continue;
    let parent: FileHandle;
    try {
      parent = await openDirectoryBeneath(target, segments);
    } catch {
      continue; // gone, or a link now: nothing of ours to remove
    }
    try {
      await rmdir(entryPath(parent, name));
    } catch (error) {
      if (!['ENOTEMPTY', 'EEXIST', 'ENOENT', 'ENOTDIR'].includes(codeOf(error) ?? '')) throw error;
    } finally {
      await parent.close();
    }
  }
}

function ancestorsOf(relative: string): string[] {
  const folders: string[] = [];
  for (let folder = parentOf(relative); folder !== ''; folder = parentOf(folder)) folders.push(folder);
  return folders;
}
