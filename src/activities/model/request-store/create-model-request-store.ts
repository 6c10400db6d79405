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
  if (value === '' && encrypts(env)) return undefined;
  if (value === '') return createFileModelRequestStore({ directory: defaultModelRequestDirectory() });
  if (value === 'off') return undefined;
  if (/^postgres(ql)?:\/\//.test(value)) return createPostgresModelRequestStore({ connectionString: value });
  return createFileModelRequestStore({ directory: path.resolve(value) });
}

/**
 * A store keeps transcripts as plain text. A worker that encrypts payloads (KEEL_ENCRYPTION_KEYS)
 * keeps none unless KEEL_MODEL_REQUESTS names one: encryption must not be undone by a default.
 */
function encrypts(env: NodeJS.ProcessEnv): boolean {
  return (env.KEEL_ENCRYPTION_KEYS?.trim() ?? '') !== '';
}

/** The worker's start line: where KEEL_MODEL_REQUESTS puts them (a URL without its password). */
export function describeModelRequestStore(env: NodeJS.ProcessEnv): string {
  const value = env.KEEL_MODEL_REQUESTS?.trim() ?? '';
  if (value === '' && encrypts(env))
    return 'no store: payloads are encrypted (KEEL_ENCRYPTION_KEYS) and a store keeps plain text, so every model request is sent whole unless KEEL_MODEL_REQUESTS names one';
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
