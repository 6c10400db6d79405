import { readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { walkFiles } from '../tools/walk-files';
import { codeOf, readRegularFile } from '../tools/workspace-access/open-beneath';
import { hasObject, hashOf, objectBytes, putObject, removeUnreferenced } from './objects';
import {
  CheckpointError,
  checkpointLabels,
  deltaOf,
  foldTree,
  goalDirectories,
  goalDirectory,
  readCheckpoint,
  readCheckpoints,
  readFingerprints,
  readHead,
  removeCheckpoint,
  writeCheckpoint,
  writeFingerprints,
  writeHead,
  type Checkpoint,
  type Fingerprints,
  type Tree,
} from './records';
import { checkedRetention, foldedCount, type Retention } from './retention';
import { changedOutsideKeel, sameStat, statOf, type FileStat } from './after-keel-calls';
import { writeTree } from './write-tree';

/**
 * Per-turn checkpoints of a workspace's files (issue 48: rewind and fork), so a goal can be put
 * back, or a fork started, as the files were at an earlier turn. Storage follows what changed:
 * file contents are objects named by their hash, shared by every turn and every goal of the store,
 * and each checkpoint is a small delta (path → file, link or deleted) from the one before.
 *
 * node_modules and .git are not checkpointed (walkFiles skips them): they are rebuilt or are the
 * user's own history, and they would dwarf everything else. Links are recorded as links (their
 * target text), never followed. Only a file's permission bits are kept, never setuid, setgid or sticky.
 *
 * The store is a directory beside the workspace, never inside it:
 * workspaceStateDirectory(workspace, 'checkpoints').
 */

export { CheckpointError, foldedCount, type Retention };

export interface CheckpointRef {
  store: string;
  goalId: string;
}

const MAX_FILES = 50_000;
const MAX_NEW_BYTES = 2 * 1024 * 1024 * 1024;
/**
 * A file changed this close to the take (or after it began) keeps no fingerprint: a write in the
 * same timestamp tick, after it was read, would leave size and times as recorded ("racy git").
 * Two seconds covers the coarsest timestamps (FAT); such files are simply read again next time.
 */
const RACY_MS = 2000;

export interface TakenCheckpoint {
  taken: boolean;
  turn: number;
  /** Paths added, changed (content or mode, a link's target) or removed since the previous checkpoint. */
  changedFiles: number;
  /** Bytes of content the store did not hold yet (object files written). */
  storedBytes: number;
  /** Files read and hashed: the rest were known unchanged by their fingerprints. 0 when not taken. */
  readFiles: number;
  /** Paths changed outside keel since its last write, when any (after-keel-calls.ts). */
  outside?: { count: number; paths: string[] };
}

/**
 * Takes the checkpoint labelled `turn` for goalId unless one with that label exists (idempotent:
 * then taken:false, with the figures of the checkpoint already there, so a retried activity
 * returns what the first attempt did). Labels only grow: a new label below the newest is refused.
 */
export async function takeCheckpoint(
  input: CheckpointRef & { workspace: string; turn: number } & Retention,
): Promise<TakenCheckpoint> {
  const { store, turn } = input;
  checkLabel(turn);
  const retention = checkedRetention(input);
  return inGoalOrder(input, async () => {
    const outcome = await withStore(store, 'shared', () => take(input));
    if (retention !== undefined && (await withStore(store, 'shared', () => fold(input, retention))))
      await withStore(store, 'exclusive', () => collectGarbage(store));
    return outcome;
  });
}

/**
 * Writes the files as they were at `turn` into `target`, from the first checkpoint whose label is
 * >= turn; undefined when the goal has none (the caller then uses the workspace as it is). A turn
 * folded away by retainTurns is an error naming the oldest label kept. `expectTurn`: the label
 * the goal's history says that checkpoint has; a store without it (the goal moved here without
 * its checkpoints) is an error, never the files of another turn.
 */
export async function restoreCheckpoint(
  input: CheckpointRef & { turn: number; target: string; mode: 'new' | 'in-place'; expectTurn?: number },
): Promise<{ fromTurn: number; written: number; removed: number } | undefined> {
  const { store, goalId, turn } = input;
  checkLabel(turn);
  return inGoalOrder(input, () =>
    withStore(store, 'shared', async () => {
      const checkpoints = await readCheckpoints(goalDirectory(store, goalId), goalId);
      const oldest = checkpoints[0];
      if (oldest?.foldedThrough !== undefined && turn <= oldest.foldedThrough)
        throw new CheckpointError(
          'turn-not-kept',
          `turn ${turn} of goal ${goalId} is older than the checkpoints kept: the oldest kept is turn ${oldest.turn}`,
        );
      const index = checkpoints.findIndex((checkpoint) => checkpoint.turn >= turn);
      const found = checkpoints[index]?.turn;
      if (input.expectTurn !== undefined && found !== input.expectTurn)
        throw new CheckpointError(
          'turn-not-kept',
          `the checkpoint of turn ${input.expectTurn} of goal ${goalId} is not in this store (${found === undefined ? 'none at or after turn ' + turn : 'the next is turn ' + found}): it stayed on the host that took it`,
        );
      if (index < 0) return undefined;
      const tree = foldTree(checkpoints.slice(0, index + 1));
      const outcome = await writeTree({ store, tree, target: input.target, mode: input.mode });
      return { fromTurn: checkpoints[index]?.turn ?? turn, ...outcome };
    }),
  );
}

/** The goal's checkpoints, oldest first: label, files changed, bytes newly stored, ISO time taken. */
export async function listCheckpoints(
  input: CheckpointRef,
): Promise<Array<{ turn: number; changedFiles: number; storedBytes: number; at: string }>> {
  const checkpoints = await inGoalOrder(input, () =>
    readCheckpoints(goalDirectory(input.store, input.goalId), input.goalId),
  );
  return checkpoints.map(({ turn, changedFiles, storedBytes, at }) => ({
    turn,
    changedFiles,
    storedBytes,
    at,
  }));
}

/** Total bytes of the store's object directory (for the benchmark). */
export async function storeBytes(store: string): Promise<number> {
  return objectBytes(store);
}

function checkLabel(turn: number): void {
  if (!Number.isSafeInteger(turn) || turn < 0)
    throw new Error(`a checkpoint label is a whole number of at least 0, not ${turn}`);
}

async function take(input: CheckpointRef & { workspace: string; turn: number }): Promise<TakenCheckpoint> {
  const { store, goalId, turn } = input;
  const goal = goalDirectory(store, goalId);
  // By name first: the other changing calls of a turn find its checkpoint without reading the rest.
  const labels = await checkpointLabels(goal);
  if (labels.includes(turn)) return notTaken(await readCheckpoint(goal, turn, goalId));
  const newest = labels.at(-1);
  if (newest !== undefined && turn < newest)
    throw new CheckpointError(
      'turn-out-of-order',
      `cannot take checkpoint ${turn} of goal ${goalId}: its newest is ${newest} and labels only grow`,
    );
  // A workspace that is not there is an error, not an empty checkpoint (restoring that would empty it).
  if (!(await stat(input.workspace)).isDirectory()) throw new Error(`${input.workspace} is not a directory`);
  const previous: Tree =
    newest === undefined
      ? foldTree([])
      : ((await readHead(goal, newest)) ?? foldTree(await readCheckpoints(goal, goalId)));
  const scan = await scanWorkspace(store, input.workspace, await readFingerprints(goal), previous);
  const entries = deltaOf(previous, scan.tree);
  const outside = await changedOutsideKeel(store, scan.stats);
  const checkpoint: Checkpoint = {
    schemaVersion: 1,
    goalId,
    turn,
    at: new Date().toISOString(),
    changedFiles: Object.keys(entries).length,
    storedBytes: scan.storedBytes,
    entries,
    ...(outside === undefined || outside.count === 0 ? {} : { outside }),
  };
  if (!(await writeCheckpoint(goal, checkpoint, { exclusive: true }))) {
    // Taken meanwhile by another process: that one stands.
    const taken = (await readCheckpoints(goal, goalId)).find((other) => other.turn === turn);
    if (taken === undefined)
      throw new Error(`checkpoint ${turn} of goal ${goalId} was taken and then removed`);
    return notTaken(taken);
  }
  // After the record: a crash in between leaves the previous index, which is still true of the files it names.
  await writeFingerprints(goal, scan.fingerprints);
  await writeHead(goal, turn, scan.tree);
  return {
    taken: true,
    turn,
    changedFiles: checkpoint.changedFiles,
    storedBytes: scan.storedBytes,
    readFiles: scan.readFiles,
    ...(checkpoint.outside === undefined ? {} : { outside: checkpoint.outside }),
  };
}

function notTaken(checkpoint: Checkpoint): TakenCheckpoint {
  const { turn, changedFiles, storedBytes, outside } = checkpoint;
  return {
    taken: false,
    turn,
    changedFiles,
    storedBytes,
    readFiles: 0,
    ...(outside === undefined ? {} : { outside }),
  };
}

/**
 * The workspace's tree now, its contents stored as objects. A file whose size, times, inode and
 * mode match its fingerprint is not read again: its hash is taken from the index.
 */
async function scanWorkspace(store: string, workspace: string, index: Fingerprints, previous: Tree) {
  const startedMs = Date.now();
  const tree: Tree = new Map();
  const stats = new Map<string, FileStat>();
  const fingerprints: Fingerprints = { schemaVersion: 1, files: {} };
  let files = 0;
  let newBytes = 0;
  let storedBytes = 0;
  let readFiles = 0;
  for await (const file of walkFiles({ root: workspace })) {
    files += 1;
    if (files > MAX_FILES)
      throw new CheckpointError(
        'too-large',
        `cannot checkpoint ${workspace}: it has over ${MAX_FILES} files`,
      );
    // The walk's own lstat: a file replaced since is read as it is now, or skipped when gone.
    const info = file;
    stats.set(file.relative, statOf(info));
    if (info.kind === 'symlink') {
      const target = await readlink(file.path).catch(() => undefined);
      if (target !== undefined) tree.set(file.relative, { kind: 'symlink', target });
      continue;
    }
    const mode = info.mode & 0o777;
    const known = index.files[file.relative];
    const unchanged = known !== undefined && sameStat(known, info);
    let hash = unchanged ? known.hash : undefined;
    const before = previous.get(file.relative);
    // Known content the last checkpoint did not hold (a stale index) must be in the store to be used.
    if (
      hash !== undefined &&
      !(before?.kind === 'file' && before.hash === hash) &&
      !(await hasObject(store, hash))
    )
      hash = undefined;
    if (hash === undefined) {
      if (newBytes + info.size > MAX_NEW_BYTES) throw tooManyBytes(workspace);
      let content: Buffer;
      try {
        content = await readRegularFile(file.path, MAX_NEW_BYTES - newBytes);
      } catch (error) {
        if (codeOf(error) === 'ENOENT') continue; // removed since it was listed
        if (error instanceof Error && error.message.includes('is larger than')) throw tooManyBytes(workspace);
        throw error;
      }
      newBytes += content.length;
      readFiles += 1;
      hash = hashOf(content);
      storedBytes += await putObject(store, hash, content);
    }
    tree.set(file.relative, { kind: 'file', hash, mode });
    if (Math.max(info.mtimeMs, info.ctimeMs) < startedMs - RACY_MS) {
      const { size, mtimeMs, ctimeMs, ino } = info;
      fingerprints.files[file.relative] = { size, mtimeMs, ctimeMs, ino, mode: info.mode, hash };
    }
  }
  return { tree, stats, fingerprints, storedBytes, readFiles };
}

function tooManyBytes(workspace: string): CheckpointError {
  return new CheckpointError(
    'too-large',
    `cannot checkpoint ${workspace}: over ${MAX_NEW_BYTES} bytes changed since the last checkpoint`,
  );
}

/**
 * Folds the oldest checkpoints the retention lets go into the oldest one kept; whether it folded.
 * The kept one is rewritten as a whole tree first, then the folded ones removed: a crash between
 * leaves records that readCheckpoints already ignores.
 */
async function fold(input: CheckpointRef, retention: Retention): Promise<boolean> {
  const goal = goalDirectory(input.store, input.goalId);
  const checkpoints = await readCheckpoints(goal, input.goalId);
  const count = foldedCount(checkpoints, retention);
  if (count === 0) return false;
  const folded = checkpoints.slice(0, count);
  const oldestKept = checkpoints[folded.length] as Checkpoint;
  const tree = foldTree(checkpoints.slice(0, folded.length + 1));
  const whole: Checkpoint = {
    ...oldestKept,
    foldedThrough: (folded.at(-1) as Checkpoint).turn,
    entries: Object.fromEntries(tree),
  };
  await writeCheckpoint(goal, whole, { exclusive: false });
  for (const checkpoint of folded) await removeCheckpoint(goal, checkpoint.turn);
  return true;
}

/** Removes the objects that no checkpoint and no fingerprint index of any goal in the store names. */
async function collectGarbage(store: string): Promise<void> {
  const referenced = new Set<string>();
  for (const goal of await goalDirectories(store)) {
    for (const checkpoint of await readCheckpoints(goal))
      for (const entry of Object.values(checkpoint.entries))
        if (entry.kind === 'file') referenced.add(entry.hash);
    for (const fingerprint of Object.values((await readFingerprints(goal)).files))
      referenced.add(fingerprint.hash);
  }
  await removeUnreferenced(store, referenced);
}

/**
 * Calls for one store and goal run one after another in this process: a take reads the previous
 * checkpoint and writes the next, so two at once would both build on the same one.
 */
const goalTails = new Map<string, Promise<unknown>>();

async function inGoalOrder<T>(ref: CheckpointRef, work: () => Promise<T>): Promise<T> {
  const key = `${path.resolve(ref.store)}\0${ref.goalId}`;
  const run = (goalTails.get(key) ?? Promise.resolve()).then(work, work);
  const tail = run.then(settled, settled);
  goalTails.set(key, tail);
  try {
    return await run;
  } finally {
    if (goalTails.get(key) === tail) goalTails.delete(key);
  }
}

/**
 * Goals sharing a store share its objects: garbage collection (exclusive) waits for every take and
 * restore under way (shared), since a take may have written objects its record does not name yet,
 * or counted on one being there; and they wait for it.
 */
interface StoreGate {
  exclusive: Promise<void>;
  exclusiveWaiting: number;
  shared: Set<Promise<void>>;
}
const storeGates = new Map<string, StoreGate>();

async function withStore<T>(
  store: string,
  access: 'shared' | 'exclusive',
  work: () => Promise<T>,
): Promise<T> {
  const key = path.resolve(store);
  const gate = storeGates.get(key) ?? {
    exclusive: Promise.resolve(),
    exclusiveWaiting: 0,
    shared: new Set(),
  };
  storeGates.set(key, gate);
  const run = (access === 'shared' ? gate.exclusive : Promise.all([gate.exclusive, ...gate.shared])).then(
    work,
  );
  const done = run.then(settled, settled);
  if (access === 'shared') gate.shared.add(done);
  else {
    gate.exclusive = done;
    gate.exclusiveWaiting += 1;
  }
  try {
    return await run;
  } finally {
    if (access === 'shared') gate.shared.delete(done);
    else gate.exclusiveWaiting -= 1;
    if (gate.shared.size === 0 && gate.exclusiveWaiting === 0) storeGates.delete(key);
  }
}

function settled(): void {}
