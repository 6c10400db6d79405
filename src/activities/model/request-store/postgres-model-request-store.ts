import { Pool } from 'pg';
import {
  goalPartOf,
  keyedRequest,
  parseKey,
  parseStoredRequest,
  STORED_REQUEST_TTL_MS,
  type ModelRequestStore,
  type StoredRequest,
} from './model-request-store';

export const MODEL_REQUEST_TABLE = 'keel_model_requests';

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${MODEL_REQUEST_TABLE} (
  key text PRIMARY KEY,
  goal text NOT NULL,
  request text NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now()
)`;
const CREATE_INDEX = `CREATE INDEX IF NOT EXISTS ${MODEL_REQUEST_TABLE}_goal ON ${MODEL_REQUEST_TABLE} (goal)`;
const INSERT = `INSERT INTO ${MODEL_REQUEST_TABLE} (key, goal, request) VALUES ($1, $2, $3)
ON CONFLICT (key) DO UPDATE SET stored_at = now()`;
// The newest request and the one it extended stay; a retried turn extends the latter.
const FORGET_OLDER = `DELETE FROM ${MODEL_REQUEST_TABLE} WHERE goal = $1 AND key <> $2 AND key <> COALESCE($3, '')`;
const FORGET_IDLE = `DELETE FROM ${MODEL_REQUEST_TABLE} WHERE stored_at < now() - ($1 * interval '1 millisecond')`;
const SELECT = `SELECT request FROM ${MODEL_REQUEST_TABLE} WHERE key = $1`;

/**
 * Requests in PostgreSQL, for workers on several machines: a turn finds its goal's last request
 * whichever worker stored it. Queries are parameterised only.
 */
export function createPostgresModelRequestStore(options: {
  connectionString: string;
  warn?: (message: string) => void;
}): ModelRequestStore {
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const pool = new Pool({ connectionString: options.connectionString, max: 4 });
  // An idle client losing its connection emits 'error' on the pool; unhandled, that kills the worker.
  pool.on('error', (error) => warn(`keel: model request store connection error: ${error.message}`));
  let ready: Promise<void> | undefined;
  const ensureTable = (): Promise<void> =>
    (ready ??= (async () => {
      await pool.query(CREATE_TABLE);
      await pool.query(CREATE_INDEX);
      await pool.query(FORGET_IDLE, [STORED_REQUEST_TTL_MS]);
    })().catch((error: unknown) => {
      ready = undefined; // the next call tries again
      throw error;
    }));

  return {
    description: `PostgreSQL table ${MODEL_REQUEST_TABLE}`,
    async put(request: StoredRequest): Promise<string> {
      await ensureTable();
      const { key, text } = keyedRequest(request);
      const goal = goalPartOf(request.goalId);
      await pool.query(INSERT, [key, goal, text]);
      await pool.query(FORGET_OLDER, [goal, key, request.base ?? null]);
      return key;
    },
    async get(key: string): Promise<StoredRequest | undefined> {
      if (parseKey(key) === undefined) return undefined;
      await ensureTable();
      const rows = await pool.query<{ request: string }>(SELECT, [key]);
      const row = rows.rows[0];
      return row === undefined ? undefined : parseStoredRequest(row.request);
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };
}
