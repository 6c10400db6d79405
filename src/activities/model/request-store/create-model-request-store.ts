import path from 'node:path';
import { createFileModelRequestStore, defaultModelRequestDirectory } from './file-model-request-store';
import type { ModelRequestStore } from './model-request-store';
import { createPostgresModelRequestStore } from './postgres-model-request-store';

/**
 * KEEL_MODEL_REQUESTS chooses where a worker keeps goals' last model requests: unset or empty, a
 * folder in ~/.keel/model-requests; `off`, nowhere (every request is sent whole); a
 * `postgres://` or `postgresql://` URL, a PostgreSQL table; anything else, that folder.
 */
export function modelRequestStoreFromEnv(env: NodeJS.ProcessEnv): ModelRequestStore | undefined {
  const value = env.KEEL_MODEL_REQUESTS?.trim() ?? '';
  if (value === '') return createFileModelRequestStore({ directory: defaultModelRequestDirectory() });
  if (value === 'off') return undefined;
  if (/^postgres(ql)?:\/\//.test(value)) return createPostgresModelRequestStore({ connectionString: value });
  return createFileModelRequestStore({ directory: path.resolve(value) });
}

/** The worker's start line: where KEEL_MODEL_REQUESTS puts them (a URL without its password). */
export function describeModelRequestStore(env: NodeJS.ProcessEnv): string {
  const value = env.KEEL_MODEL_REQUESTS?.trim() ?? '';
  if (value === 'off') return 'no store (KEEL_MODEL_REQUESTS=off): every model request is sent whole';
  if (/^postgres(ql)?:\/\//.test(value)) {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return `PostgreSQL ${url.toString()} (table keel_model_requests)`;
  }
  return `files in ${value === '' ? defaultModelRequestDirectory() : path.resolve(value)}`;
}

export type { ModelRequestStore } from './model-request-store';
export { createFileModelRequestStore } from './file-model-request-store';
export { createPostgresModelRequestStore } from './postgres-model-request-store';
