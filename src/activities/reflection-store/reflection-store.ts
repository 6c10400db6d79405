import { createHash } from 'node:crypto';
import { TaskReflectionSchema, type TaskReflection } from '../../workflows/reflection/task-reflection';

/**
 * Where cross-run task reflections live (seed 002 §7). The key is the task identity, a hash of
 * the task description, so two goals with the same description share notes on purpose.
 *
 * Every implementation is safe for concurrent use, from one process or many: a store replaces
 * the whole reflection atomically and the last write wins. That is enough because a later
 * reflection is always the better one; nothing is merged.
 */
export interface ReflectionStore {
  /** Stores or replaces the reflection for `taskIdentity`. */
  store(taskIdentity: string, reflection: TaskReflection, options?: StoreReflectionOptions): Promise<void>;
  /** The latest reflection, or undefined when there is none (or it is unreadable). */
  retrieve(taskIdentity: string): Promise<TaskReflection | undefined>;
  /** Every stored reflection, most recently reflected first (for `keel reflections`). */
  list(): Promise<StoredReflection[]>;
  /** Releases connections or handles, when the store holds any. */
  close?(): Promise<void>;
}

export interface StoreReflectionOptions {
  /**
   * The description the identity was derived from, kept for humans (`keel reflections` shows
   * its first line). It must hash to the identity; omitting it keeps the one stored before.
   */
  taskDescription?: string;
}

export interface StoredReflection {
  taskIdentity: string;
  reflection: TaskReflection;
  taskDescription?: string;
}

/** Warning sink shared by the stores; console.warn by default, a recorder in tests. */
export type Warn = (message: string) => void;

const TASK_IDENTITY = /^[0-9a-f]{64}$/;

/** Lowercase hex SHA-256 of the UTF-8 task description, and nothing else (002 §14). */
export function taskIdentity(description: string): string {
  return createHash('sha256').update(description, 'utf8').digest('hex');
}

export function isTaskIdentity(value: string): boolean {
  return TASK_IDENTITY.test(value);
}

/**
 * Rejects anything that is not a task identity. Stores call it before touching storage: the
 * identity becomes a file name or a key, so a stray path or description must never get there.
 */
export function assertTaskIdentity(value: string): void {
  if (!isTaskIdentity(value)) {
    throw new TypeError(`not a task identity (64 lowercase hex characters): ${JSON.stringify(value)}`);
  }
}

/** Validates what a store is asked to write, so no store ever holds a reflection it cannot read back. */
export function checkStoreArguments(
  identity: string,
  reflection: TaskReflection,
  options: StoreReflectionOptions | undefined,
): TaskReflection {
  assertTaskIdentity(identity);
  const description = options?.taskDescription;
  if (description !== undefined && taskIdentity(description) !== identity) {
    throw new TypeError(`the task description does not hash to task identity ${identity}`);
  }
  return TaskReflectionSchema.parse(reflection);
}

/** Most recently reflected first; the identity breaks ties so every store lists in one order. */
export function sortStoredReflections(entries: StoredReflection[]): StoredReflection[] {
  return entries.sort(
    (left, right) =>
      Date.parse(right.reflection.reflectedAt) - Date.parse(left.reflection.reflectedAt) ||
      (left.taskIdentity < right.taskIdentity ? -1 : left.taskIdentity > right.taskIdentity ? 1 : 0),
  );
}

/**
 * Finds a reflection by identity or by description, for `keel reflections show <identity |
 * description>`. A 64-hex argument is tried as an identity first; otherwise (or when nothing is
 * stored under it) it is hashed as a description.
 */
export async function lookupReflection(
  store: ReflectionStore,
  identityOrDescription: string,
): Promise<{ taskIdentity: string; reflection: TaskReflection } | undefined> {
  if (isTaskIdentity(identityOrDescription)) {
    const reflection = await store.retrieve(identityOrDescription);
    if (reflection) return { taskIdentity: identityOrDescription, reflection };
  }
  const identity = taskIdentity(identityOrDescription);
  const reflection = await store.retrieve(identity);
  return reflection ? { taskIdentity: identity, reflection } : undefined;
}
