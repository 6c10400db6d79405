import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { codeOf } from '../tools/workspace-access/open-beneath';
import { CheckpointError } from './records';

/**
 * The store's content-addressed objects: each file content once, at objects/<2 hex>/<sha256>,
 * whichever turn or goal wrote it. An object is never changed once there, so a name that exists
 * is never written again: that is the deduplication across turns and goals.
 */

export function hashOf(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

const objectsDirectory = (store: string) => path.join(store, 'objects');
const objectPath = (store: string, hash: string) =>
  path.join(objectsDirectory(store), hash.slice(0, 2), hash);

export async function hasObject(store: string, hash: string): Promise<boolean> {
  try {
    return (await lstat(objectPath(store, hash))).isFile();
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Stores `content` (whose hash is `hash`) unless the store has it; the bytes newly written (0 when
 * it was there). Temp name then rename: a reader never sees half an object under its hash.
 */
export async function putObject(store: string, hash: string, content: Buffer): Promise<number> {
  if (await hasObject(store, hash)) return 0;
  const file = objectPath(store, hash);
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(temp, content, { flag: 'wx' });
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
  return content.length;
}

/** An object's content, checked against its name: a damaged object is an error, never restored. */
export async function readObject(store: string, hash: string): Promise<Buffer> {
  let content: Buffer;
  try {
    content = await readFile(objectPath(store, hash));
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
    throw new CheckpointError('corrupt', `checkpoint object ${hash} is missing from ${store}`);
  }
  if (hashOf(content) !== hash)
    throw new CheckpointError(
      'corrupt',
      `checkpoint object ${hash} in ${store} is damaged (its content has another hash)`,
    );
  return content;
}

/** Each object file (and temp file) under the objects directory: its name, path and size. */
async function objectFiles(store: string): Promise<Array<{ name: string; file: string; size: number }>> {
  const files: Array<{ name: string; file: string; size: number }> = [];
  let prefixes: string[];
  try {
    prefixes = await readdir(objectsDirectory(store));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return files;
    throw error;
  }
  for (const prefix of prefixes) {
    const directory = path.join(objectsDirectory(store), prefix);
    const names = await readdir(directory).catch(() => []);
    for (const name of names) {
      const file = path.join(directory, name);
      const info = await lstat(file).catch(() => undefined);
      if (info?.isFile() === true) files.push({ name, file, size: info.size });
    }
  }
  return files;
}

/** Total bytes of the store's object directory. */
export async function objectBytes(store: string): Promise<number> {
  return (await objectFiles(store)).reduce((total, object) => total + object.size, 0);
}

/**
 * Removes the objects not in `referenced`. The caller holds the store exclusively: a take running
 * meanwhile could have written an object its record does not name yet, or counted on one being there.
 * Temp files are left (a writer in another process may still rename one).
 */
export async function removeUnreferenced(
  store: string,
  referenced: ReadonlySet<string>,
): Promise<{ objects: number; bytes: number }> {
  const removed = { objects: 0, bytes: 0 };
  for (const object of await objectFiles(store)) {
    if (!/^[0-9a-f]{64}$/.test(object.name) || referenced.has(object.name)) continue;
    await rm(object.file, { force: true });
    removed.objects += 1;
    removed.bytes += object.size;
  }
  return removed;
}
