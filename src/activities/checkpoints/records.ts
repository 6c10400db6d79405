import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { codeOf } from '../tools/workspace-access/open-beneath';

/**
 * What a checkpoint store keeps per goal, as JSON beside the objects: one small delta per
 * checkpoint and a fingerprint index. Everything read back is parsed with these schemas; a record
 * that does not parse is an error, never a guess (a wrong guess would restore the wrong files).
 *
 *   store/goals/<goal>/checkpoints/<turn>.json   one delta per checkpoint
 *   store/goals/<goal>/fingerprints.json         path → stat and hash, so unchanged files are not read
 */

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  constructor(
    readonly reason: 'too-large' | 'turn-not-kept' | 'turn-out-of-order' | 'corrupt' | 'target-not-empty',
    message: string,
  ) {
    super(message);
  }
}

const hashSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** "a/b/c" as the walk gives it: no empty, "." or ".." segment, so a tampered record cannot point outside. */
const relativePathSchema = z
  .string()
  .refine((relative) => relative.split('/').every((segment) => !['', '.', '..'].includes(segment)), {
    message: 'not a plain relative path',
  });

const entrySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), hash: hashSchema, mode: z.number().int().min(0).max(0o777) }),
  z.object({ kind: z.literal('symlink'), target: z.string().min(1) }),
  z.object({ kind: z.literal('deleted') }),
]);
export type DeltaEntry = z.infer<typeof entrySchema>;
export type TreeEntry = Exclude<DeltaEntry, { kind: 'deleted' }>;
/** The workspace's files at one checkpoint: relative path → file or link. */
export type Tree = Map<string, TreeEntry>;

export const checkpointSchema = z.object({
  schemaVersion: z.literal(1),
  goalId: z.string(),
  turn: z.number().int().nonnegative(),
  at: z.string(),
  changedFiles: z.number().int().nonnegative(),
  /** Bytes of objects this checkpoint wrote (content the store did not hold yet). */
  storedBytes: z.number().int().nonnegative(),
  /**
   * Set on a checkpoint that older ones were folded into (retainTurns): its entries are then the
   * whole tree, not a delta, and no turn up to this label can be restored any more.
   */
  foldedThrough: z.number().int().nonnegative().optional(),
  /** Relative to the previous checkpoint (the first, and a folded one: relative to nothing). */
  entries: z.record(relativePathSchema, entrySchema),
  /** Paths changed outside keel since its last write (after-keel-calls.ts): how many, and the first of them. */
  outside: z.object({ count: z.number().int().positive(), paths: z.array(z.string()) }).optional(),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

const fingerprintSchema = z.object({
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  ctimeMs: z.number(),
  ino: z.number(),
  mode: z.number().int(),
  hash: hashSchema,
});
export type Fingerprint = z.infer<typeof fingerprintSchema>;

export const fingerprintsSchema = z.object({
  schemaVersion: z.literal(1),
  files: z.record(z.string(), fingerprintSchema),
});
export type Fingerprints = z.infer<typeof fingerprintsSchema>;

/**
 * A goal's folder in the store: its id made safe for a file name, plus a hash of the id so two ids
 * that sanitise alike ("a/b", "a_b") never share a folder.
 */
export function goalDirectory(store: string, goalId: string): string {
  const readable = goalId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 48);
  const hash = createHash('sha256').update(goalId).digest('hex').slice(0, 16);
  return path.join(store, 'goals', `${readable}-${hash}`);
}

export function goalDirectories(store: string): Promise<string[]> {
  return readdir(path.join(store, 'goals')).then(
    (names) => names.map((name) => path.join(store, 'goals', name)),
    (error: unknown) => {
      if (codeOf(error) === 'ENOENT') return [];
      throw error;
    },
  );
}

const checkpointFile = (goal: string, turn: number) => path.join(goal, 'checkpoints', `${turn}.json`);

/**
 * A goal's checkpoints, oldest first. Leftovers of a fold interrupted before it removed what it
 * folded (labels up to a later checkpoint's foldedThrough) are not checkpoints any more.
 */
export async function readCheckpoints(goal: string, goalId?: string): Promise<Checkpoint[]> {
  let names: string[];
  try {
    names = await readdir(path.join(goal, 'checkpoints'));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return [];
    throw error;
  }
  const turns = names
    .map((name) => /^(\d+)\.json$/.exec(name)?.[1])
    .filter((turn) => turn !== undefined)
    .map(Number)
    .sort((left, right) => left - right);
  const checkpoints: Checkpoint[] = [];
  for (const turn of turns) {
    const file = checkpointFile(goal, turn);
    const parsed = checkpointSchema.safeParse(await readJson(file));
    if (
      !parsed.success ||
      parsed.data.turn !== turn ||
      (goalId !== undefined && parsed.data.goalId !== goalId)
    )
      throw new CheckpointError('corrupt', `checkpoint record ${file} is not a checkpoint of this goal`);
    checkpoints.push(parsed.data);
  }
  const foldedThrough = Math.max(-1, ...checkpoints.map((checkpoint) => checkpoint.foldedThrough ?? -1));
  return checkpoints.filter(
    (checkpoint) => checkpoint.turn > foldedThrough || checkpoint.foldedThrough !== undefined,
  );
}

/**
 * Writes a checkpoint record atomically. `exclusive`: only if none has that label yet (link(2)
 * fails on an existing name), so of two takes of one label — in this process or another — exactly
 * one is recorded; false when it lost. Otherwise it replaces the record (a fold).
 */
export async function writeCheckpoint(
  goal: string,
  checkpoint: Checkpoint,
  options: { exclusive: boolean },
): Promise<boolean> {
  return writeJson(checkpointFile(goal, checkpoint.turn), checkpoint, options.exclusive);
}

export async function removeCheckpoint(goal: string, turn: number): Promise<void> {
  await rm(checkpointFile(goal, turn), { force: true });
}

/** The index, or an empty one when there is none yet or it cannot be read (it is only a cache). */
export async function readFingerprints(goal: string): Promise<Fingerprints> {
  const raw = await readJson(path.join(goal, 'fingerprints.json')).catch(() => undefined);
  const parsed = fingerprintsSchema.safeParse(raw);
  return parsed.success ? parsed.data : { schemaVersion: 1, files: {} };
}

export async function writeFingerprints(goal: string, fingerprints: Fingerprints): Promise<void> {
  await writeJson(path.join(goal, 'fingerprints.json'), fingerprints, false, { cache: true });
}

/** The labels the goal's records carry, oldest first: names only, no record read. */
export async function checkpointLabels(goal: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(path.join(goal, 'checkpoints'));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return [];
    throw error;
  }
  return names
    .map((name) => /^(\d+)\.json$/.exec(name)?.[1])
    .filter((turn) => turn !== undefined)
    .map(Number)
    .sort((left, right) => left - right);
}

/** One record, checked as readCheckpoints checks each. */
export async function readCheckpoint(goal: string, turn: number, goalId: string): Promise<Checkpoint> {
  const file = checkpointFile(goal, turn);
  const parsed = checkpointSchema.safeParse(await readJson(file));
  if (!parsed.success || parsed.data.turn !== turn || parsed.data.goalId !== goalId)
    throw new CheckpointError('corrupt', `checkpoint record ${file} is not a checkpoint of this goal`);
  return parsed.data;
}

const headSchema = z.object({
  schemaVersion: z.literal(1),
  turn: z.number().int().nonnegative(),
  entries: z.record(relativePathSchema, entrySchema),
});

/**
 * The tree at the newest checkpoint, kept so a take need not fold every record of a long goal
 * (a 1,000-turn goal would read 1,000 records per changing call). A cache: absent, unreadable or
 * of another turn, the caller folds the records instead.
 */
export async function readHead(goal: string, turn: number): Promise<Tree | undefined> {
  const raw = await readJson(path.join(goal, 'head.json')).catch(() => undefined);
  const parsed = headSchema.safeParse(raw);
  if (!parsed.success || parsed.data.turn !== turn) return undefined;
  return new Map(
    Object.entries(parsed.data.entries).filter(
      (entry): entry is [string, TreeEntry] => entry[1].kind !== 'deleted',
    ),
  );
}

export async function writeHead(goal: string, turn: number, tree: Tree): Promise<void> {
  const head = { schemaVersion: 1, turn, entries: Object.fromEntries(tree) };
  await writeJson(path.join(goal, 'head.json'), head, false, { cache: true });
}

/** The tree at the last of `checkpoints` (oldest first): each delta applied over the previous tree. */
export function foldTree(checkpoints: readonly Checkpoint[]): Tree {
  const tree: Tree = new Map();
  for (const checkpoint of checkpoints) {
    if (checkpoint.foldedThrough !== undefined) tree.clear(); // a whole tree, not a delta
    for (const [relative, entry] of Object.entries(checkpoint.entries)) {
      if (entry.kind === 'deleted') tree.delete(relative);
      else tree.set(relative, entry);
    }
  }
  return tree;
}

/** What changed from `before` to `after`, as a checkpoint's entries. */
export function deltaOf(before: Tree, after: Tree): Record<string, DeltaEntry> {
  const entries: Record<string, DeltaEntry> = {};
  for (const [relative, entry] of after) {
    const previous = before.get(relative);
    if (previous === undefined || !sameEntry(previous, entry)) entries[relative] = entry;
  }
  for (const relative of before.keys()) if (!after.has(relative)) entries[relative] = { kind: 'deleted' };
  return entries;
}

function sameEntry(left: TreeEntry, right: TreeEntry): boolean {
  if (left.kind === 'file' && right.kind === 'file')
    return left.hash === right.hash && left.mode === right.mode;
  if (left.kind === 'symlink' && right.kind === 'symlink') return left.target === right.target;
  return false;
}

async function readJson(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CheckpointError('corrupt', `${file} is not JSON`);
  }
}

/**
 * Temp file, synced, then renamed (or linked) into place: a reader sees the whole record or none.
 * A cache (the index, the head tree) is not synced: lost in a crash, it is only rebuilt.
 */
async function writeJson(
  file: string,
  value: unknown,
  exclusive: boolean,
  options: { cache?: boolean } = {},
): Promise<boolean> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(JSON.stringify(value));
    if (options.cache !== true) await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (!exclusive) {
      await rename(temp, file);
      return true;
    }
    try {
      await link(temp, file);
      return true;
    } catch (error) {
      if (codeOf(error) === 'EEXIST') return false;
      throw error;
    }
  } finally {
    await rm(temp, { force: true });
  }
}
