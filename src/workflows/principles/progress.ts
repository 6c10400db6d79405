import { z } from 'zod';
import { resultFingerprint } from './result-noise';

/**
 * What counts as progress (issue 22), for the stagnation and exploration guards.
 *
 * A call makes progress when it brings **new information** or leaves a **new, lasting state**:
 * - new information: a call (a read, a search, a command — even a failing one) whose result the
 *   task has not seen before. Reading a module for the first time is exploration, not stagnation;
 *   reading it again unchanged, or running the same failing test for the same failure, is neither.
 * - a new state: a successful change that leaves the workspace in a state the task has not seen.
 *   The file tools report what the changed file holds (`effects.stateDigest`); for other changes
 *   the call and its result stand in for the state. A change that returns a file to an earlier
 *   state (an edit undone, a rotation of values) is not new.
 * - churn is not progress: a change to the same target as the change just before it, with nothing
 *   learned in between, is counted once — rewriting notes.txt with "attempt 2", "attempt 3", …
 *   between runs of the same failing test changes a file but moves nothing.
 * Denied calls bring nothing: they did not run.
 *
 * Pure and deterministic (workflow code); the memory lives in the goal's guard state, so bounded.
 */
export const ProgressKind = {
  NewInformation: 'new-information',
  NewState: 'new-state',
  Nothing: 'nothing-new',
} as const;
export type ProgressKind = (typeof ProgressKind)[keyof typeof ProgressKind];

/** How the guards see one call's effect on the world. */
export const CallEffect = {
  /** A read-only call (or one that failed): it can only bring information. */
  Read: 'read',
  /** A successful mutating or irreversible call: the world changed. */
  Change: 'change',
  /** A human (or a remembered denial, or a timeout) said no: the call never ran. */
  Denied: 'denied',
} as const;
export type CallEffect = (typeof CallEffect)[keyof typeof CallEffect];

/** Results and states remembered per task: enough for long tasks, bounded for workflow state. */
export const MAX_REMEMBERED_RESULTS = 400;
export const MAX_REMEMBERED_STATES = 200;

export const progressMemorySchema = z.lazy(() =>
  z.object({
    /** Digests of results seen in this task, oldest first. */
    results: z.array(z.string()),
    /** Digests of workspace states seen in this task, oldest first. */
    states: z.array(z.string()),
    /** Targets of the last change counted as progress; nothing learned since when `learned` is false. */
    lastChangeTargets: z.array(z.string()).optional(),
    learned: z.boolean(),
    /** Calls (their keys) made in this task: a call made again may check a new state. */
    made: z.array(z.string()).optional(),
    /** Calls made since the latest new lasting state: only the first re-run of one checks it. */
    checkedSinceChange: z.array(z.string()).optional(),
  }),
);
export type ProgressMemory = z.infer<typeof progressMemorySchema>;

export function initialProgressMemory(): ProgressMemory {
  return { results: [], states: [], learned: false };
}

export interface ProgressCall {
  effect: CallEffect;
  /** Tool name plus normalized input (loop-guard's callKey). */
  key: string;
  resultText: string;
  /** What the workspace holds after a change, when the tool knows (effects.stateDigest). */
  stateAfter?: string;
  /** The paths the call acts on (call-intent's targets). */
  targets: readonly string[];
  /**
   * Its result depends on nothing but the paths it names (read_file, list_dir, search): a re-run
   * checks a change only to one of them. A command's output may depend on any file.
   */
  readsNamedPathsOnly?: boolean;
}

/** Judges one call against what the task has seen, and remembers it. */
export function judgeProgress(memory: ProgressMemory, call: ProgressCall): ProgressKind {
  if (call.effect === CallEffect.Denied) return ProgressKind.Nothing;
  // keel's own timings and other noise taken out: two polls that differ only there saw the same.
  const result = resultFingerprint(call.resultText);
  // The first re-run of a call after a new lasting state checks that state, whatever it shows: the
  // tests re-run after an edit, a file re-read after editing it (issue 44). A check that shows
  // nothing unseen is new for stagnation but teaches nothing: the next change to the same target
  // is still churn ("attempt 2" in notes.txt between runs of the same failing test).
  // A read of named paths checks only a change to one of them: re-reading notes.md after
  // rewriting attempts.txt checks nothing, or any file rewritten between the same reads would pass
  // for progress (fake progress). A command (the tests, a script) checks any change.
  const madeBefore = (memory.made ?? []).includes(call.key);
  const checks =
    madeBefore &&
    memory.states.length > 0 &&
    !(memory.checkedSinceChange ?? []).includes(call.key) &&
    (call.readsNamedPathsOnly !== true ||
      call.targets.length === 0 ||
      targetsOverlap(call.targets, memory.lastChangeTargets ?? []));
  if (!madeBefore) memory.made = remembered(memory.made ?? [], call.key, MAX_REMEMBERED_RESULTS);
  if (!(memory.checkedSinceChange ?? []).includes(call.key))
    memory.checkedSinceChange = remembered(memory.checkedSinceChange ?? [], call.key, MAX_REMEMBERED_RESULTS);
  const seen = memory.results.includes(result);
  // A file tool's result only describes its write: its state speaks, not its text.
  const informs = call.effect === CallEffect.Read || call.stateAfter === undefined;
  if (!seen && informs) memory.results = remembered(memory.results, result, MAX_REMEMBERED_RESULTS);
  if (call.effect === CallEffect.Read) {
    if (seen && !checks) return ProgressKind.Nothing;
    if (!seen) memory.learned = true;
    return ProgressKind.NewInformation;
  }
  // A command that changed files and printed what the task has not seen told it something too
  // (running a script just written). A file tool's result only describes its write: its state speaks.
  const told = call.stateAfter === undefined && (!seen || checks);
  const nothingElse = () => {
    if (!told) return ProgressKind.Nothing;
    if (!seen) memory.learned = true;
    return ProgressKind.NewInformation;
  };
  const state = call.stateAfter ?? `${call.key}→${result}`;
  if (memory.states.includes(state)) return nothingElse();
  memory.states = remembered(memory.states, state, MAX_REMEMBERED_STATES);
  const targets = [...call.targets].sort();
  const churn =
    !memory.learned &&
    memory.lastChangeTargets !== undefined &&
    targets.length > 0 &&
    sameList(memory.lastChangeTargets, targets);
  if (churn) return nothingElse();
  memory.lastChangeTargets = targets;
  memory.learned = told && !seen;
  // The change itself run again checks nothing: it is the same change (a build that writes).
  memory.checkedSinceChange = [call.key];
  return ProgressKind.NewState;
}

function remembered(list: readonly string[], item: string, max: number): string[] {
  return [...list, item].slice(-max);
}

/** The same path, or one inside the other (`src` and `src/a.ts`). */
function targetsOverlap(a: readonly string[], b: readonly string[]): boolean {
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(`${outer.replace(/\/$/, '')}/`);
  return a.some((one) => b.some((other) => within(one, other) || within(other, one)));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/**
 * How a call that ran touched the world, from what keel knows of it: a successful call not known to
 * be read-only is a change, unless keel watched the workspace and saw nothing change ("Workspace
 * changes: none": a poll, a test run, a grep through a shell) — that call only brings information.
 * An irreversible call (a message sent, a deploy) changed something outside, watched or not.
 */
export function effectOfCall(call: {
  ok: boolean;
  reversibility: string;
  effects?: { created: readonly string[]; modified: readonly string[]; deleted: readonly string[] } & {
    omitted?: { created: number; modified: number; deleted: number } | undefined;
    collapsed?: Record<string, number> | undefined;
  };
}): typeof CallEffect.Read | typeof CallEffect.Change {
  if (!call.ok || call.reversibility === 'read-only') return CallEffect.Read;
  if (call.reversibility === 'irreversible' || call.effects === undefined) return CallEffect.Change;
  const { created, modified, deleted, omitted, collapsed } = call.effects;
  const listed = created.length + modified.length + deleted.length;
  const hidden = (omitted?.created ?? 0) + (omitted?.modified ?? 0) + (omitted?.deleted ?? 0);
  const inside = Object.values(collapsed ?? {}).reduce((sum, count) => sum + count, 0);
  return listed + hidden + inside > 0 ? CallEffect.Change : CallEffect.Read;
}
