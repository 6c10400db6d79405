import { Pool } from 'pg';
import { TaskReflectionSchema, type TaskReflection } from '../../workflows/reflection/task-reflection';
import {
  assertTaskIdentity,
  checkStoreArguments,
  sortStoredReflections,
  type ReflectionStore,
  type StoredReflection,
  type Warn,
} from './reflection-store';

/**
 * Reflections in PostgreSQL, for several workers on several machines. One row per task identity;
 * a store is a single `INSERT … ON CONFLICT DO UPDATE`, atomic in PostgreSQL, so concurrent
 * writers from anywhere end with the last write. Queries are parameterised only.
 */

export const REFLECTION_TABLE = 'keel_task_reflections';

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${REFLECTION_TABLE} (
  task_identity text PRIMARY KEY,
  task_description text,
  reflection jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
)`;

// The description is fixed by the identity (its hash), so keeping an earlier one is safe.
const UPSERT = `INSERT INTO ${REFLECTION_TABLE} (task_identity, task_description, reflection, updated_at)
VALUES ($1, $2, $3::jsonb, now())
ON CONFLICT (task_identity) DO UPDATE SET
  reflection = EXCLUDED.reflection,
  task_description = COALESCE(EXCLUDED.task_description, ${REFLECTION_TABLE}.task_description),
  updated_at = now()`;

const SELECT_ONE = `SELECT task_identity, task_description, reflection FROM ${REFLECTION_TABLE} WHERE task_identity = $1`;
const SELECT_ALL = `SELECT task_identity, task_description, reflection FROM ${REFLECTION_TABLE}`;

interface ReflectionRow {
  task_identity: string;
  task_description: string | null;
  reflection: unknown;
}

export type PostgresReflectionStoreOptions = (
  | { connectionString: string }
  /** A pool the caller owns: close() leaves it open. */
  | { pool: Pool }
) & { warn?: Warn };

export function createPostgresReflectionStore(options: PostgresReflectionStoreOptions): ReflectionStore {
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const ownsPool = !('pool' in options);
  const pool = 'pool' in options ? options.pool : new Pool({ connectionString: options.connectionString });
  // An idle client losing its connection emits 'error' on the pool; unhandled, that kills the worker.
  if (ownsPool)
    pool.on('error', (error) => warn(`keel: reflection store connection error: ${error.message}`));

  let ready: Promise<void> | undefined;
  let closed = false;
  function ensureTable(): Promise<void> {
    ready ??= createTable(pool).catch((error: unknown) => {
      ready = undefined; // let the next call try again rather than failing forever
      throw error;
    });
    return ready;
  }

  function toReflection(row: ReflectionRow): TaskReflection | undefined {
    const parsed = TaskReflectionSchema.safeParse(row.reflection);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    warn(
      `keel: ignoring unreadable reflection ${row.task_identity} in ${REFLECTION_TABLE}: ` +
        `${issue?.path.map(String).join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    );
    return undefined;
  }

  return {
    async store(identity, reflection, storeOptions) {
      const valid = checkStoreArguments(identity, reflection, storeOptions);
      await ensureTable();
      await pool.query(UPSERT, [identity, storeOptions?.taskDescription ?? null, JSON.stringify(valid)]);
    },

    async retrieve(identity) {
      assertTaskIdentity(identity);
      await ensureTable();
      const result = await pool.query<ReflectionRow>(SELECT_ONE, [identity]);
      const row = result.rows[0];
      return row ? toReflection(row) : undefined;
    },

    async list() {
      await ensureTable();
      const result = await pool.query<ReflectionRow>(SELECT_ALL);
      const entries = result.rows.flatMap((row): StoredReflection[] => {
        const reflection = toReflection(row);
        if (!reflection) return [];
        const entry: StoredReflection = { taskIdentity: row.task_identity, reflection };
        if (row.task_description !== null) entry.taskDescription = row.task_description;
        return [entry];
      });
      return sortStoredReflections(entries);
    },

    async close() {
      // Idempotent: pg throws when a pool is ended twice, and shutdown paths overlap.
      if (!ownsPool || closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/**
 * CREATE TABLE IF NOT EXISTS is not safe against itself: two workers starting at once can both
 * pass the check and one then fails on the catalog's unique index. Either way the table exists.
 */
async function createTable(pool: Pool): Promise<void> {
  try {
    await pool.query(CREATE_TABLE);
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    // unique_violation, duplicate_table, and duplicate_object (the table's row type, seen in CI)
    if (code !== '23505' && code !== '42P07' && code !== '42710') throw error;
  }
}
