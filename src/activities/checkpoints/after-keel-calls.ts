/**
 * The workspace as keel's last change left it (issue 48): after each call that may change the
 * files (and each other write keel makes: held changes applied, a rollback, a restore, a child's
 * merge), the stat fingerprints of every file are kept beside the checkpoints. The next checkpoint
 * compares the files with them: whatever differs changed between keel's writes, outside keel — a
 * person's editor, a build running on its own, another program — and the checkpoint records
 * those paths as such, apart from the changes keel's calls made.
 *
 * Stats only, no reading: the cost is one walk of the workspace per changing call. A change in
 * the same timestamp tick as keel's last write can go unseen (it is then counted as keel's).
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { walkFiles } from '../tools/walk-files';

const statSchema = z.object({
  size: z.number(),
  mtimeMs: z.number(),
  ctimeMs: z.number(),
  ino: z.number(),
  mode: z.number(),
});
export type FileStat = z.infer<typeof statSchema>;

const afterKeelSchema = z.object({
  schemaVersion: z.literal(1),
  /** When the walk began: a walk that began earlier never replaces one that began later. */
  startedAtMs: z.number(),
  files: z.record(z.string(), statSchema),
});

/** Paths named in a checkpoint's record of outside changes; the count says how many there were. */
export const OUTSIDE_PATHS_KEPT = 50;

/** The checkpoint store's own bound (checkpoint-store.ts). */
const MAX_FILES = 50_000;

const fileOf = (store: string) => path.join(store, 'after-keel.json');

export function statOf(info: FileStat): FileStat {
  const { size, mtimeMs, ctimeMs, ino, mode } = info;
  return { size, mtimeMs, ctimeMs, ino, mode };
}

/** Records the workspace's files as keel's write just left them; nothing when it keeps no checkpoints. */
export async function noteKeelWrite(store: string, workspace: string): Promise<void> {
  if (!existsSync(store)) return;
  const startedAtMs = Date.now();
  const files: Record<string, FileStat> = {};
  let count = 0;
  for await (const file of walkFiles({ root: workspace })) {
    // A workspace too large to checkpoint is not walked after every call either.
    count += 1;
    if (count > MAX_FILES) {
      await rm(fileOf(store), { force: true });
      return;
    }
    files[file.relative] = statOf(file);
  }
  const earlier = await readAfterKeel(store);
  if (earlier !== undefined && earlier.startedAtMs > startedAtMs) return;
  // Whole or not at all: a reader never sees half a file.
  const temporary = `${fileOf(store)}.${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, JSON.stringify({ schemaVersion: 1, startedAtMs, files }));
  await rename(temporary, fileOf(store));
}

/**
 * Drops the note of keel's last write: a write of keel's went unnoted (its worker was killed), so
 * the files no longer show what keel left. Until keel's next write is noted, nothing is reported
 * as changed outside keel, rather than that write's changes.
 */
export async function forgetKeelWrite(store: string): Promise<void> {
  await rm(fileOf(store), { force: true });
}

/**
 * The paths whose files differ from keel's last write (changed, added or removed), given the
 * files now; undefined when keel has written nothing here yet (nothing to compare with).
 */
export async function changedOutsideKeel(
  store: string,
  now: ReadonlyMap<string, FileStat>,
): Promise<{ count: number; paths: string[] } | undefined> {
  const after = await readAfterKeel(store);
  if (after === undefined) return undefined;
  const changed: string[] = [];
  for (const [relative, stat] of now) {
    const then = after.files[relative];
    if (then === undefined || !sameStat(then, stat)) changed.push(relative);
  }
  for (const relative of Object.keys(after.files)) if (!now.has(relative)) changed.push(relative);
  changed.sort();
  return { count: changed.length, paths: changed.slice(0, OUTSIDE_PATHS_KEPT) };
}

/** The same size, times, inode and mode: taken for the same file, unchanged (no read). */
export function sameStat(left: FileStat, right: FileStat): boolean {
  return (
    left.size === right.size &&
    left.mtimeMs === right.mtimeMs &&
    left.ctimeMs === right.ctimeMs &&
    left.ino === right.ino &&
    left.mode === right.mode
  );
}

async function readAfterKeel(store: string): Promise<z.infer<typeof afterKeelSchema> | undefined> {
  const raw = await readFile(fileOf(store), 'utf8').catch(() => undefined);
  if (raw === undefined) return undefined;
  try {
    const parsed = afterKeelSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // unreadable: as if keel had written nothing yet
  }
}
