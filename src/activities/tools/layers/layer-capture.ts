import type { Stats } from 'node:fs';
import { chmod, lchown, lstat, readdir, readlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceEffects } from '../../../workflows/tools/tool-outcome';
import {
  changesNeedingApproval,
  GIT_DIRECTORY_NAMES,
  privilegesToApply,
  type ChangeRefusal,
  type DirectoryHolding,
  type WorkspaceChange,
} from '../../../workflows/tools/workspace-change-policy';
import { SKIPPED_DIRECTORIES } from '../walk-files';
import { gitIncludedConfigs } from '../workspace-access/git-included-configs';
import { readRegularFile, typeOf } from '../workspace-access/open-beneath';
import type { BaselineEntry, Fingerprint, LayerOperation } from './layer-operations';

/** Files of the same size larger than this are taken as changed without reading both. */
const COMPARED_MAX_BYTES = 16 * 1024 * 1024;

/** Everything keel knows of a layer once its command ended: what it changed, and how to apply it. */
export interface CapturedLayer {
  readonly operations: LayerOperation[];
  readonly baseline: BaselineEntry[];
  readonly effects: WorkspaceEffects;
  /** Changes a call no human approved may not make (workspace-change-policy.ts). */
  readonly refusals: ChangeRefusal[];
  /**
   * Privileges the command gave its files that were taken away ("setuid bit removed from
   * helper"): the layer itself was changed, so they never reach the workspace, approved or not.
   */
  readonly privilegeNotes: string[];
}

/** Whose files the layer's new entries become: the worker's own by default. */
export interface WorkerIdentity {
  readonly uid: number;
  readonly gid: number;
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
 *
 * It also makes the layer safe to apply: every entry's setuid, setgid and sticky bits and owner
 * are set in the upper directory as the policy says (privilegesToApply), so whatever applies the
 * layer later (now, after an approval, or resuming after a crash) moves only that.
 */
export async function captureLayer(options: {
  upper: string;
  workspace: string;
  /** The merged view of the same layer, reachable through the launcher's /proc/PID/root. */
  merged: string;
  worker?: WorkerIdentity;
}): Promise<CapturedLayer> {
  const worker = options.worker ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const includedConfigs = await gitIncludedConfigs(options.workspace);
  const capture = new Capture(options.upper, options.workspace, options.merged, worker, includedConfigs);
  await capture.directory('');
  return capture.result();
}

class Capture {
  private readonly operations: LayerOperation[] = [];
  private readonly baseline: BaselineEntry[] = [];
  private readonly noted = new Set<string>();
  private readonly changes: WorkspaceChange[] = [];
  // Every path is kept: a held layer's list is what its approver sees and approves, whole. The
  // layer-entries limit bounds it, and change-list-size.ts its bytes (run-in-layer.ts).
  private readonly effects: NotedEffect[] = [];
  private readonly holdings = new Map<string, DirectoryHolding>();
  private readonly privilegeNotes: string[] = [];
  /** Effects noted so far, listed or collapsed: whether a new directory's contents named it. */
  private listed = 0;

  constructor(
    private readonly upper: string,
    private readonly workspace: string,
    private readonly merged: string,
    private readonly worker: WorkerIdentity,
    private readonly includedConfigs: ReadonlySet<string>,
  ) {}

  result(): CapturedLayer {
    const refusals = changesNeedingApproval(this.changes, {
      holdings: this.holdings,
      includedConfigs: this.includedConfigs,
    });
    return {
      operations: this.operations,
      baseline: this.baseline,
      effects: listedEffects(this.effects, new Set(refusals.map((refusal) => refusal.path))),
      refusals,
      privilegeNotes: this.privilegeNotes,
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
    this.hold(relative, below, [...visible]);
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
      // The directory itself is not moved: only its mode is set, so its owner stays.
      const { mode } = this.privileges(relative, layer, { ...below, sameContent: true });
      if (mode !== (below.mode & 0o7777)) this.effect('modified', `${relative}/`);
      this.operations.push({ op: 'directory', path: relative, mode });
      return;
    }
    if (below !== undefined && (below.isDirectory() || typeOf(below) !== typeOf(layer))) {
      // A directory replaced by a file (or the other way round): the old entry goes first.
      await this.removed(relative, below);
    }
    if (layer.isDirectory()) {
      this.note(relative, undefined);
      await this.secure(relative, layer, undefined);
      await this.newTree(relative);
      this.operations.push({ op: 'move', path: relative });
      return;
    }
    const type = typeOf(layer);
    this.changes.push({ path: relative, change: below === undefined ? 'created' : 'modified', type });
    if (['fifo', 'socket', 'device', 'other'].includes(type)) return; // never applied
    if (below === undefined || below.isDirectory() || typeOf(below) !== typeOf(layer)) {
      if (below === undefined || below.isDirectory()) this.note(relative, undefined);
      await this.secure(relative, layer, undefined);
      this.effect('created', relative);
    } else {
      this.note(relative, below);
      const sameContent = !(await this.contentDiffers(relative, layer, below));
      const { mode } = await this.secure(relative, layer, { ...below, sameContent });
      if (!sameContent || mode !== (below.mode & 0o7777)) this.effect('modified', relative);
    }
    this.operations.push({ op: 'move', path: relative });
  }

  /** A directory the command made: everything in it is created (and checked against the policy). */
  private async newTree(relative: string): Promise<void> {
    this.changes.push({ path: relative, change: 'created', type: 'directory' });
    const names = await listForcing(path.join(this.upper, relative));
    this.hold(relative, [], names);
    const listedBefore = this.listed;
    for (const name of names) {
      const child = join(relative, name);
      const info = await lstat(path.join(this.upper, child));
      if (info.isDirectory()) {
        await this.secure(child, info, undefined);
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
      await this.secure(child, info, undefined);
      this.effect('created', child);
    }
    // A new directory is named by what is listed in it; one with nothing listed (empty, or only
    // special files, which never apply) by itself, or nobody would see that it is made.
    if (this.listed === listedBefore) this.effect('created', `${relative}/`);
  }

  /** What the policy needs of a directory to tell a repository being made (GIT_DIRECTORY_NAMES). */
  private hold(relative: string, before: readonly string[], after: readonly string[]): void {
    const gitNames = (names: readonly string[]): string[] =>
      names.filter((name) => GIT_DIRECTORY_NAMES.has(name));
    this.holdings.set(relative, { before: gitNames(before), after: gitNames(after) });
  }

  private privileges(
    relative: string,
    layer: Stats,
    before: (Stats & { sameContent: boolean }) | undefined,
  ): { mode: number; uid: number; gid: number } {
    const applied = privilegesToApply({
      path: relative,
      layer,
      ...(before === undefined ? {} : { before }),
      worker: this.worker,
    });
    this.privilegeNotes.push(...applied.notes);
    return applied;
  }

  /**
   * Sets the layer's entry to the owner and mode it may reach the workspace with. Owner first:
   * a chown clears setuid and setgid itself. A link has no mode of its own (chmod would follow it).
   */
  private async secure(
    relative: string,
    layer: Stats,
    before: (Stats & { sameContent: boolean }) | undefined,
  ): Promise<{ mode: number }> {
    const applied = this.privileges(relative, layer, before);
    const upperPath = path.join(this.upper, relative);
    if (applied.uid !== layer.uid || applied.gid !== layer.gid)
      await lchown(upperPath, applied.uid, applied.gid);
    if (!layer.isSymbolicLink() && applied.mode !== (layer.mode & 0o7777))
      await chmod(upperPath, applied.mode);
    return applied;
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

  /** Same bytes (or link target) is no change of content, whatever the times say. */
  private async contentDiffers(relative: string, layer: Stats, below: Stats): Promise<boolean> {
    if (layer.size !== below.size) return true;
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

  private effect(kind: NotedEffect['kind'], relative: string): void {
    this.listed += 1;
    this.effects.push({ kind, path: relative });
  }
}

/** One entry the layer changes, as its approver reads it (a directory ends with `/`). */
interface NotedEffect {
  readonly kind: 'created' | 'modified' | 'deleted';
  readonly path: string;
}

/**
 * The effects as listed to the model and to an approver. Bookkeeping under `.git/` or
 * `node_modules/` is folded into a count per directory (an install or a commit writes thousands
 * of entries nobody reads); a path that needs approval never is, whatever it is under: the
 * approver has to see by name the hook or config they let through (the refusals' reasons name
 * only a few), and the change set's digest has to cover that name, not a count.
 */
function listedEffects(
  effects: readonly NotedEffect[],
  needingApproval: ReadonlySet<string>,
): WorkspaceEffects {
  const kept = { created: [] as string[], modified: [] as string[], deleted: [] as string[] };
  const collapsed: Record<string, number> = {};
  for (const { kind, path: relative } of effects) {
    const refused = needingApproval.has(relative.endsWith('/') ? relative.slice(0, -1) : relative);
    const inside = refused ? undefined : collapsingDirectory(relative);
    if (inside !== undefined) collapsed[inside] = (collapsed[inside] ?? 0) + 1;
    else kept[kind].push(relative);
  }
  return { ...kept, ...(Object.keys(collapsed).length > 0 ? { collapsed } : {}) };
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
