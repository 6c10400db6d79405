import type { TaskReflection } from '../../workflows/reflection/task-reflection';
import {
  assertTaskIdentity,
  checkStoreArguments,
  sortStoredReflections,
  type ReflectionStore,
  type StoredReflection,
  type Warn,
} from './reflection-store';

export const MEMORY_STORE_WARNING =
  'keel: reflections are kept in memory only and will not persist across worker restarts ' +
  '(set KEEL_REFLECTION_STORE=file or postgres to keep them).';

/**
 * Reflections in a Map, for tests and throwaway runs. Safe for concurrent use: each call runs to
 * completion on the event loop, so the last store wins. Values are copied in and out so a caller
 * mutating a reflection cannot change what is stored.
 */
export function createMemoryReflectionStore(options: { warn?: Warn } = {}): ReflectionStore {
  const warn = options.warn ?? ((message: string) => console.warn(message));
  warn(MEMORY_STORE_WARNING);
  const entries = new Map<string, StoredReflection>();
  return {
    store: (identity, reflection, storeOptions) =>
      settle(() => {
        const valid = checkStoreArguments(identity, reflection, storeOptions);
        const taskDescription = storeOptions?.taskDescription ?? entries.get(identity)?.taskDescription;
        entries.set(identity, {
          taskIdentity: identity,
          reflection: structuredClone(valid),
          ...(taskDescription === undefined ? {} : { taskDescription }),
        });
      }),
    retrieve: (identity) =>
      settle((): TaskReflection | undefined => {
        assertTaskIdentity(identity);
        const entry = entries.get(identity);
        return entry ? structuredClone(entry.reflection) : undefined;
      }),
    list: () =>
      settle(() => sortStoredReflections([...entries.values()].map((entry) => structuredClone(entry)))),
  };
}

/** Runs synchronous work behind the async interface; a thrown error becomes a rejection. */
function settle<Result>(work: () => Result): Promise<Result> {
  return new Promise((resolve) => resolve(work()));
}
