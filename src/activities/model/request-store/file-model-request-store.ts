import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import {
  keyedRequest,
  parseKey,
  parseStoredRequest,
  STORED_REQUEST_TTL_MS,
  type ModelRequestStore,
  type StoredRequest,
} from './model-request-store';

export function defaultModelRequestDirectory(): string {
  return path.join(homedir(), '.keel', 'model-requests');
}

/**
 * Requests as files, one folder per goal: `<directory>/<goal part>/<content part>.json`, written
 * to a temporary name and renamed, so a reader never sees half a request. The default store: the
 * model activities of one machine share it. Workers on several machines need a shared folder or
 * the PostgreSQL store; otherwise a turn that lands on another machine sends its request whole.
 */
export function createFileModelRequestStore(options: {
  directory?: string;
  nowMs?: () => number;
}): ModelRequestStore {
  const directory = path.resolve(options.directory ?? defaultModelRequestDirectory());
  const nowMs = options.nowMs ?? Date.now;
  const fileOf = (goalPart: string, contentPart: string) =>
    path.join(directory, goalPart, `${contentPart}.json`);
  let swept: Promise<void> | undefined;

  return {
    description: `files in ${directory}`,
    async put(request: StoredRequest): Promise<string> {
      swept ??= forgetIdleGoals(directory, nowMs() - STORED_REQUEST_TTL_MS);
      const { key, text } = keyedRequest(request);
      const { goalPart, contentPart } = parseKey(key) as NonNullable<ReturnType<typeof parseKey>>;
      const folder = path.join(directory, goalPart);
      await mkdir(folder, { recursive: true });
      const file = fileOf(goalPart, contentPart);
      const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await writeFile(temporary, text);
      await rename(temporary, file);
      const keep = new Set([`${contentPart}.json`]);
      const base = request.base === undefined ? undefined : parseKey(request.base);
      if (base?.goalPart === goalPart) keep.add(`${base.contentPart}.json`);
      for (const name of await readdir(folder)) {
        if (!keep.has(name) && name.endsWith('.json')) await rm(path.join(folder, name), { force: true });
      }
      return key;
    },
    async get(key: string): Promise<StoredRequest | undefined> {
      const parts = parseKey(key);
      if (parts === undefined) return undefined;
      try {
        return parseStoredRequest(await readFile(fileOf(parts.goalPart, parts.contentPart), 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async close(): Promise<void> {
      await swept?.catch(() => undefined);
    },
  };
}

/** Removes the folders of goals that stored nothing since `beforeMs` (best effort, once a start). */
async function forgetIdleGoals(directory: string, beforeMs: number): Promise<void> {
  try {
    for (const name of await readdir(directory)) {
      const folder = path.join(directory, name);
      const info = await stat(folder).catch(() => undefined);
      if (info?.isDirectory() && info.mtimeMs < beforeMs) await rm(folder, { recursive: true, force: true });
    }
  } catch {
    // A missing or unreadable folder only means nothing is forgotten this time.
  }
}
