/**
 * A full picture of a directory tree (`.git` included) to compare before and after a call: every
 * entry's type, mode, content hash, size and mtime (files) or target (symlinks). Links are never
 * followed: a planted `root -> /` must not make the harness walk the host.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';

export type EntryType =
  'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'character-device' | 'block-device' | 'unknown';

export interface TreeEntry {
  readonly type: EntryType;
  /** Permission bits (and setuid/setgid/sticky). */
  readonly mode: number;
  readonly size?: number;
  readonly mtimeMs?: number;
  /** sha256 of the content, for files up to HASH_MAX_BYTES. */
  readonly hash?: string;
  readonly target?: string;
}

export interface TreeSnapshot {
  /** Keyed by path relative to the root, "/" separated. */
  readonly entries: ReadonlyMap<string, TreeEntry>;
  /** False when the entry bound was hit. */
  readonly complete: boolean;
}

export interface TreeChange {
  readonly path: string;
  readonly change: 'created' | 'deleted' | 'modified';
  readonly before?: TreeEntry;
  readonly after?: TreeEntry;
}

const MAX_ENTRIES = 20_000;
const HASH_MAX_BYTES = 8 * 1024 * 1024;

/** Devices and FIFOs: what a workspace must never hold. */
export const SPECIAL_TYPES: ReadonlySet<EntryType> = new Set([
  'fifo',
  'socket',
  'character-device',
  'block-device',
]);

export function snapshotTree(root: string, options: { exclude?: readonly string[] } = {}): TreeSnapshot {
  const entries = new Map<string, TreeEntry>();
  const excluded = new Set(options.exclude ?? []);
  const pending = [''];
  let complete = true;
  while (pending.length > 0) {
    const relative = pending.pop() as string;
    let names: string[];
    try {
      names = readdirSync(path.join(root, relative));
    } catch {
      continue; // unreadable, or replaced since it was listed
    }
    for (const name of names) {
      const child = relative === '' ? name : `${relative}/${name}`;
      if (excluded.has(child)) continue;
      if (entries.size >= MAX_ENTRIES) {
        complete = false;
        break;
      }
      const entry = describeEntry(path.join(root, child));
      if (entry === undefined) continue;
      entries.set(child, entry);
      if (entry.type === 'directory') pending.push(child);
    }
  }
  return { entries, complete };
}

export function diffTrees(before: TreeSnapshot, after: TreeSnapshot): TreeChange[] {
  const changes: TreeChange[] = [];
  const paths = [...new Set([...before.entries.keys(), ...after.entries.keys()])].sort();
  for (const relative of paths) {
    const previous = before.entries.get(relative);
    const next = after.entries.get(relative);
    if (previous === undefined && next !== undefined)
      changes.push({ path: relative, change: 'created', after: next });
    else if (previous !== undefined && next === undefined)
      changes.push({ path: relative, change: 'deleted', before: previous });
    else if (previous !== undefined && next !== undefined && differences(previous, next).length > 0)
      changes.push({ path: relative, change: 'modified', before: previous, after: next });
  }
  return changes;
}

/** "deleted victim.txt (file)", "modified .git/config (content)", "created root (symlink → /)". */
export function describeChange(change: TreeChange): string {
  if (change.change === 'modified' && change.before !== undefined && change.after !== undefined)
    return `modified ${change.path} (${differences(change.before, change.after).join(', ')})`;
  const entry = change.after ?? change.before;
  return `${change.change} ${change.path} (${entry === undefined ? '?' : describeEntryShort(entry)})`;
}

function describeEntryShort(entry: TreeEntry): string {
  if (entry.type === 'symlink') return `symlink → ${entry.target ?? '?'}`;
  return `${entry.type} ${entry.mode.toString(8).padStart(4, '0')}`;
}

function differences(previous: TreeEntry, next: TreeEntry): string[] {
  const found: string[] = [];
  if (previous.type !== next.type) found.push(`${previous.type} → ${next.type}`);
  if (previous.mode !== next.mode) found.push(`mode ${previous.mode.toString(8)} → ${next.mode.toString(8)}`);
  if (previous.target !== next.target) found.push(`target ${previous.target ?? '-'} → ${next.target ?? '-'}`);
  if (previous.type === 'file' && next.type === 'file') {
    if (previous.hash !== next.hash || previous.size !== next.size) found.push('content');
    else if (previous.mtimeMs !== next.mtimeMs) found.push('mtime');
  }
  return found;
}

function describeEntry(absolute: string): TreeEntry | undefined {
  let info: Stats;
  try {
    info = lstatSync(absolute);
  } catch {
    return undefined; // gone since the listing
  }
  const type = entryType(info);
  const mode = info.mode & 0o7777;
  if (type === 'symlink') return { type, mode, target: readTarget(absolute) };
  if (type !== 'file') return { type, mode };
  return { type, mode, size: info.size, mtimeMs: info.mtimeMs, ...hashOf(absolute, info.size) };
}

function readTarget(absolute: string): string {
  try {
    return readlinkSync(absolute);
  } catch {
    return '?';
  }
}

function hashOf(absolute: string, size: number): { hash?: string } {
  if (size > HASH_MAX_BYTES) return {};
  let descriptor: number | undefined;
  try {
    // Non-blocking and not following links: a FIFO or link swapped in since the lstat must not hang the harness.
    descriptor = openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    if (!fstatSync(descriptor).isFile()) return {};
    return { hash: createHash('sha256').update(readFileSync(descriptor)).digest('hex') };
  } catch {
    return {};
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

function entryType(info: Stats): EntryType {
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'directory';
  if (info.isSymbolicLink()) return 'symlink';
  if (info.isFIFO()) return 'fifo';
  if (info.isSocket()) return 'socket';
  if (info.isCharacterDevice()) return 'character-device';
  if (info.isBlockDevice()) return 'block-device';
  return 'unknown';
}
