import type { Stats } from 'node:fs';
import { chmod, lstat, readdir, readlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceEffects } from '../../../workflows/tools/tool-outcome';
import {
  changesNeedingApproval,
  type ChangeRefusal,
  type WorkspaceChange,
} from '../../../workflows/tools/workspace-change-policy';
import { SKIPPED_DIRECTORIES } from '../walk-files';
import { readRegularFile, typeOf } from '../workspace-access/open-beneath';
import type { BaselineEntry, Fingerprint, LayerOperation } from './layer-operations';

/** Paths named per kind of effect; the rest are counted (a call may create thousands of files). */
export const EFFECT_PATHS_KEPT = 200;
/** Files of the same size larger than this are taken as changed without reading both. */
const COMPARED_MAX_BYTES = 16 * 1024 * 1024;

/** Everything keel knows of a layer once its command ended: what it changed, and how to apply it. */
export interface CapturedLayer {
  readonly operations: LayerOperation[];
  readonly baseline: BaselineEntry[];
  readonly effects: WorkspaceEffects;
  /** Changes a call no human approved may not make (workspace-change-policy.ts). */
  readonly refusals: ChangeRefusal[];
}

/**
 * Takes stock of an overlay's upper directory against the workspace beneath it. Runs on the host
 * while the command is over (its pid namespace, and everything in it, is gone), so the layer no
 * longer changes; it reads entries with lstat and never follows a link the command made.
 *
 * - a character device 0/0 is a whiteout: the lower entry was deleted;
 * - a directory that exists below is merged: its lower children missing from the merged view were
 *   deleted (overlayfs marks a directory deleted and made again "opaque", and says so only in an
 *   xattr node cannot read, so the merged view is what tells);
 * - anything else replaces or adds the entry at its path.
 */
export async function captureLayer(options: {
  upper: string;
  workspace: string;
  /** The merged view of the same layer, reachable through the launcher's /proc/PID/root. */
  merged: string;
}): Promise<CapturedLayer> {
  const capture = new Capture(options.upper, options.workspace, options.merged);
  await capture.directory('');
  return capture.result();
}

class Capture {
  private readonly operations: LayerOperation[] = [];
  private readonly baseline: BaselineEntry[] = [];
  private readonly noted = new Set<string>();
  private readonly changes: WorkspaceChange[] = [];
  private readonly kept = { created: [] as string[], modified: [] as string[], deleted: [] as string[] };
  private readonly omitted = { created: 0, modified: 0, deleted: 0 };
  private readonly collapsed: Record<string, number> = {};

  constructor(
    private readonly upper: string,
    private readonly workspace: string,
    private readonly merged: string,
  ) {}

  result(): CapturedLayer {
    const omitted = this.omitted.created + this.omitted.modified + this.omitted.deleted;
    return {
      operations: this.operations,
      baseline: this.baseline,
      effects: {
        ...this.kept,
        ...(omitted > 0 ? { omitted: { ...this.omitted } } : {}),
        ...(Object.keys(this.collapsed).length > 0 ? { collapsed: { ...this.collapsed } } : {}),
      },
      refusals: changesNeedingApproval(this.changes),
    };
  }

  /** A directory of the upper layer that also exists (as a directory) in the workspace, or the root. */
  async directory(relative: string): Promise<void> {
    const names = await listForcing(path.join(this.upper, relative));
    const inUpper = new Set(names);
    const below = await listOrNothing(path.join(this.workspace, relative));
    // Read, never guessed: a merged view that cannot be listed must fail the capture, or every
    // lower entry would look deleted.
    const visible = new Set(await readdir(path.join(this.merged, relative)));
    for (const name of below) {
      // Hidden in the merged view without a whiteout of its own: an opaque directory's doing.
      if (!inUpper.has(name) && !visible.has(name)) await this.removed(join(relative, name));
    }
    for (const name of names) await this.entry(join(relative, name));
  }

  private async entry(relative: string): Promise<void> {
    const layer = await lstat(path.join(this.upper, relative));
    const below = await lstatOrNothing(path.join(this.workspace, relative));
    if (isWhiteout(layer)) {
      if (below !== undefined) await this.removed(relative, below);
      return;
    }
    if (layer.isDirectory() && below?.isDirectory()) {
      this.note(relative, below);
      await this.directory(relative);
      if ((layer.mode & 0o7777) !== (below.mode & 0o7777)) this.effect('modified', `${relative}/`);
      this.operations.push({ op: 'directory', path: relative, mode: layer.mode & 0o7777 });
      return;
    }
    if (below !== undefined && (below.isDirectory() || typeOf(below) !== typeOf(layer))) {
      // A directory replaced by a file (or the other way round): the old entry goes first.
      await this.removed(relative, below);
    }
    if (layer.isDirectory()) {
      this.note(relative, undefined);
      await this.newTree(relative);
      this.operations.push({ op: 'move', path: relative });
      return;
    }
    const type = typeOf(layer);
    this.changes.push({ path: relative, change: below === undefined ? 'created' : 'modified', type });
    if (['fifo', 'socket', 'device', 'other'].includes(type)) return; // never applied
    if (below === undefined || below.isDirectory() || typeOf(below) !== typeOf(layer)) {
      if (below === undefined || below.isDirectory()) this.note(relative, undefined);
      this.effect('created', relative);
    } else {
      this.note(relative, below);
      if (await this.differs(relative, layer, below)) this.effect('modified', relative);
    }
    this.operations.push({ op: 'move', path: relative });
  }

  /** A directory the command made: everything in it is created (and checked against the policy). */
  private async newTree(relative: string): Promise<void> {
    this.changes.push({ path: relative, change: 'created', type: 'directory' });
    for (const name of await listForcing(path.join(this.upper, relative))) {
      const child = join(relative, name);
      const info = await lstat(path.join(this.upper, child));
      if (info.isDirectory()) {
        await this.newTree(child);
        continue;
      }
      const type = typeOf(info);
      if (isWhiteout(info) || ['fifo', 'socket', 'device', 'other'].includes(type)) {
        // Moved with its tree otherwise: a special file is never applied, approved or not.
        if (!isWhiteout(info)) this.changes.push({ path: child, change: 'created', type });
        await unlink(path.join(this.upper, child));
        continue;
      }
      this.changes.push({ path: child, change: 'created', type });
      this.effect('created', child);
    }
  }

  private async removed(relative: string, below?: Stats): Promise<void> {
    const info = below ?? (await lstatOrNothing(path.join(this.workspace, relative)));
    if (info === undefined) return;
    this.note(relative, info);
    const type = typeOf(info);
    this.changes.push({ path: relative, change: 'deleted', type });
    this.effect('deleted', type === 'directory' ? `${relative}/` : relative);
    this.operations.push({ op: 'remove', path: relative });
  }

  /** Same type, mode and bytes (or link target) is no change worth reporting, whatever the times say. */
  private async differs(relative: string, layer: Stats, below: Stats): Promise<boolean> {
    if ((layer.mode & 0o7777) !== (below.mode & 0o7777) || layer.size !== below.size) return true;
    if (layer.size > COMPARED_MAX_BYTES) return true;
    const upperPath = path.join(this.upper, relative);
    const lowerPath = path.join(this.workspace, relative);
    try {
      if (layer.isSymbolicLink()) return (await readlink(upperPath)) !== (await readlink(lowerPath));
      return !(await readRegularFile(upperPath, COMPARED_MAX_BYTES)).equals(
        await readRegularFile(lowerPath, COMPARED_MAX_BYTES),
      );
    } catch {
      return true;
    }
  }

  private note(relative: string, below: Stats | undefined): void {
    if (this.noted.has(relative)) return;
    this.noted.add(relative);
    this.baseline.push({ path: relative, fingerprint: fingerprint(below) });
  }

  private effect(kind: 'created' | 'modified' | 'deleted', relative: string): void {
    const inside = collapsingDirectory(relative);
    if (inside !== undefined) this.collapsed[inside] = (this.collapsed[inside] ?? 0) + 1;
    else if (this.kept[kind].length < EFFECT_PATHS_KEPT) this.kept[kind].push(relative);
    else this.omitted[kind] += 1;
  }
}

/** `.git/` for `.git/objects/ab/cd`, `web/node_modules/` for `web/node_modules/x/y.js`; else undefined. */
function collapsingDirectory(relative: string): string | undefined {
  const segments = relative.split('/');
  const at = segments.findIndex((segment) => SKIPPED_DIRECTORIES.has(segment));
  if (at < 0 || at === segments.length - 1) return undefined;
  return `${segments.slice(0, at + 1).join('/')}/`;
}

export function fingerprint(info: Stats | undefined): Fingerprint {
  if (info === undefined) return null;
  return { type: typeOf(info), size: info.size, mtimeMs: info.mtimeMs, ino: info.ino };
}

/** overlayfs records a deletion as a character device with device number 0/0. */
function isWhiteout(info: Stats): boolean {
  return info.isCharacterDevice() && info.rdev === 0;
}

function join(relative: string, name: string): string {
  return relative === '' ? name : `${relative}/${name}`;
}

async function lstatOrNothing(absolute: string): Promise<Stats | undefined> {
  try {
    return await lstat(absolute);
  } catch {
    return undefined;
  }
}

async function listOrNothing(absolute: string): Promise<string[]> {
  try {
    return (await readdir(absolute)).sort();
  } catch {
    return [];
  }
}

/**
 * The names in a directory of the layer, sorted. The command may have left it unreadable
 * (chmod 000); the worker owns the layer, so it makes it readable to take stock (the mode to
 * apply was read before, with lstat).
 */
async function listForcing(absolute: string): Promise<string[]> {
  try {
    return (await readdir(absolute)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
    await chmod(absolute, 0o700);
    return (await readdir(absolute)).sort();
  }
}
