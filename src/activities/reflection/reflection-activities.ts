import { ApplicationFailure } from '@temporalio/common';
import { TaskReflectionSchema, type TaskReflection } from '../../workflows/reflection/task-reflection';
import { taskIdentity, type ReflectionStore } from '../reflection-store/reflection-store';

/**
 * The I/O half of cross-run task reflection (seed 002): the workflow builds the prompt, calls the
 * model and parses the answer in pure code; these activities only read and write the store.
 * Deriving the identity here keeps node:crypto out of the workflow sandbox.
 */

/** Stable `ApplicationFailure.type` names raised by the reflection activities. */
export const ReflectionFailureType = {
  /** The reflection does not match TaskReflectionSchema; retrying cannot fix it. */
  InvalidReflection: 'InvalidReflection',
} as const;
export type ReflectionFailureType = (typeof ReflectionFailureType)[keyof typeof ReflectionFailureType];

export interface ReflectionActivityDependencies {
  store: ReflectionStore;
}

export interface LoadTaskReflectionInput {
  /** The task's own description; its SHA-256 is the key. */
  description: string;
}

export interface LoadTaskReflectionResult {
  taskIdentity: string;
  /** Absent on the first run of a task (or when the stored note is unreadable). */
  reflection?: TaskReflection;
}

export interface StoreTaskReflectionInput {
  description: string;
  reflection: TaskReflection;
}

export interface StoreTaskReflectionResult {
  taskIdentity: string;
}

export function createReflectionActivities({ store }: ReflectionActivityDependencies) {
  /** The prior reflection for this task, if any. Store errors are thrown so Temporal retries. */
  async function loadTaskReflection(input: LoadTaskReflectionInput): Promise<LoadTaskReflectionResult> {
    const identity = taskIdentity(input.description);
    const reflection = await store.retrieve(identity);
    // Omitted rather than undefined, so the payload reads the same in history as in the type.
    return reflection ? { taskIdentity: identity, reflection } : { taskIdentity: identity };
  }

  /**
   * Stores or replaces the task's reflection, keeping the description so `keel reflections`
   * can show it. A write replaces the whole reflection, so a retried attempt is harmless.
   */
  async function storeTaskReflection(input: StoreTaskReflectionInput): Promise<StoreTaskReflectionResult> {
    const parsed = TaskReflectionSchema.safeParse(input.reflection);
    if (!parsed.success) {
      // Validated before any I/O: the same payload would fail on every retry.
      throw ApplicationFailure.nonRetryable(
        `invalid task reflection: ${describeIssues(parsed.error.issues)}`,
        ReflectionFailureType.InvalidReflection,
      );
    }
    const identity = taskIdentity(input.description);
    await store.store(identity, parsed.data, { taskDescription: input.description });
    return { taskIdentity: identity };
  }

  // Plain functions, not methods: the worker registers activities detached from this object.
  return { loadTaskReflection, storeTaskReflection };
}

export type ReflectionActivities = ReturnType<typeof createReflectionActivities>;

function describeIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): string {
  return issues
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}
