import { rm } from 'node:fs/promises';
import path from 'node:path';
import { contentHash, manifestOf } from './copy-manifest';
import { BoundedDiff, HELD_DIFF_MAX_CHARS, patchOf, sideOf } from '../tools/layers/held-diff';
import {
  BeneathError,
  entryPath,
  lstatBeneath,
  openDirectoryBeneath,
  openFileBeneath,
  readRegularFile,
  segmentsOf,
} from '../tools/workspace-access/open-beneath';
import { withWorkspaceLock } from '../tools/workspace-access/workspace-lock';

/**
 * A three-way merge by whole files: the copy's manifest (what the child started from), the copy
 * now (what it left) and the workspace now (what the parent and its other children made since).
 * A path the child changed is brought over when the workspace still has what the child started
 * from; when the workspace changed it too, to something else, the two overlap and the workspace
 * keeps its own — the parent's model is shown both (a diff) and decides. Never overwritten
 * silently. Symbolic links are not carried back (a link a child made may point anywhere).
 */

export type CopyChange = 'added' | 'changed' | 'removed';

export interface MergeOutcome {
  /** What the workspace now has of the child's (at most MAX_LISTED; `appliedCount` counts all). */
  applied: Array<{ path: string; change: CopyChange }>;
  appliedCount: number;
  /** Paths the child changed that the workspace changed too since the copy: not applied. */
  overlaps: Array<{ path: string; change: CopyChange }>;
  /** Paths not carried back, and why (a link, a directory in the way). */
  notMerged: Array<{ path: string; why: string }>;
  /** Each overlap as a diff from the workspace's version to the child's, cut short. */
  overlapDiff?: string;
}

const MAX_LISTED = 200;

/** Only a file's permission bits come back: setuid, setgid and sticky never do (a child's file may be anything). */
const PERMISSION_BITS = 0o777;

export async function mergeCopy(options: {
  /** Where the changes go: the workspace, or the folder the copy is of. */
  workspace: string;
  /** The workspace whose writers this merge waits for (workspace-lock.ts); `workspace` by default. */
  lockKey?: string;
  copy: string;
  base: Record<string, string>;
}): Promise<MergeOutcome> {
  const { workspace, copy, base } = options;
  const now = await manifestOf(copy);
  const changed = [...new Set([...Object.keys(base), ...Object.keys(now)])]
    .filter((relative) => base[relative] !== now[relative])
    .sort();
  const outcome: MergeOutcome = { applied: [], appliedCount: 0, overlaps: [], notMerged: [] };
  const diff = new BoundedDiff(HELD_DIFF_MAX_CHARS);
  await withWorkspaceLock(options.lockKey ?? workspace, async () => {
    for (const relative of changed) {
      const before = base[relative];
      const after = now[relative];
      const change: CopyChange = before === undefined ? 'added' : after === undefined ? 'removed' : 'changed';
      if (before?.startsWith('link:') || after?.startsWith('link:')) {
        outcome.notMerged.push({ path: relative, why: 'a symbolic link (links are not carried back)' });
        continue;
      }
      const current = await fingerprint(workspace, relative);
      if (current === after) {
        applied(outcome, relative, change); // already there: a repeated merge, or the same change made twice
      } else if (current === before) {
        const refusal = await apply(workspace, copy, relative, after);
        if (refusal === undefined) applied(outcome, relative, change);
        else outcome.notMerged.push({ path: relative, why: refusal });
      } else {
        outcome.overlaps.push({ path: relative, change });
        diff.add(
          patchOf(
            relative,
            await sideOf(path.join(workspace, relative)),
            await sideOf(path.join(copy, relative)),
          ),
        );
      }
    }
  });
  const shown = diff.text();
  return shown === undefined ? outcome : { ...outcome, overlapDiff: shown };
}

function applied(outcome: MergeOutcome, relative: string, change: CopyChange): void {
  outcome.appliedCount += 1;
  if (outcome.applied.length < MAX_LISTED) outcome.applied.push({ path: relative, change });
}

/** What the workspace has at the path now, in the manifest's terms; a directory or device is neither. */
async function fingerprint(workspace: string, relative: string): Promise<string | undefined> {
  try {
    const { file } = await openFileBeneath(workspace, segmentsOf(relative), 'read');
    try {
      return contentHash(await file.readFile());
    } finally {
      await file.close();
    }
  } catch (error) {
    if (!(error instanceof BeneathError)) throw error;
    if (error.refusal.kind === 'missing') return undefined;
    return `other:${error.refusal.kind}`;
  }
}

/** Writes the child's file (or removes it) without following a link anywhere; the refusal when it cannot. */
async function apply(
  workspace: string,
  copy: string,
  relative: string,
  after: string | undefined,
): Promise<string | undefined> {
  const segments = segmentsOf(relative);
  try {
    if (after === undefined) {
      const info = await lstatBeneath(workspace, segments, { refuseLink: true });
      if (!info.isFile()) return 'not a regular file in the workspace';
      // Removed through its directory's descriptor: no link on the way is followed.
      const directory = await openDirectoryBeneath(workspace, segments.slice(0, -1));
      try {
        await rm(entryPath(directory, segments.at(-1) ?? ''), { force: true });
      } finally {
        await directory.close();
      }
      return undefined;
    }
    const source = path.join(copy, relative);
    const content = await readRegularFile(source);
    const { mode } = await lstatBeneath(copy, segments, { refuseLink: true });
    const { file } = await openFileBeneath(workspace, segments, 'write');
    try {
      await file.truncate(0);
      await file.write(content, 0, content.length, 0);
      await file.chmod(mode & PERMISSION_BITS);
    } finally {
      await file.close();
    }
    return undefined;
  } catch (error) {
    if (error instanceof BeneathError) return `${error.refusal.kind} at ${error.refusal.at}`;
    throw error;
  }
}
