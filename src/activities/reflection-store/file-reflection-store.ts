import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
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
 * The durable default: one JSON file per task identity in a directory next to the worker. It
 * needs no server, survives worker and machine restarts, and is easy to inspect or back up.
 *
 * Writes are atomic (temp file in the same directory, fsync, rename, fsync the directory), so a
 * crash leaves either the old reflection or the new one, never half of one. Concurrent writers —
 * in this process or another on the same machine — each use their own temp file, and the last
 * rename wins. Reads validate with zod: a corrupt file is reported and treated as absent, never
 * a crash, because a lost note must not fail a goal.
 */

const FILE_SCHEMA_VERSION = 1;

const ReflectionFileSchema = z.object({
  schemaVersion: z.literal(FILE_SCHEMA_VERSION),
  taskIdentity: z.string(),
  taskDescription: z.string().optional(),
  reflection: TaskReflectionSchema,
});
type ReflectionFile = z.infer<typeof ReflectionFileSchema>;

const REFLECTION_FILE = /^([0-9a-f]{64})\.json$/;

export function defaultReflectionDirectory(): string {
  return path.join(homedir(), '.keel', 'reflections');
}

export interface FileReflectionStoreOptions {
  /** Where the files go; `~/.keel/reflections` when omitted. Created on first write. */
  directory?: string;
  warn?: Warn;
}

export function createFileReflectionStore(options: FileReflectionStoreOptions = {}): ReflectionStore {
  const directory = path.resolve(options.directory ?? defaultReflectionDirectory());
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const fileOf = (identity: string) => path.join(directory, `${identity}.json`);

  /** The parsed file, undefined when absent; a corrupt file is reported through `onCorrupt`. */
  async function read(identity: string, onCorrupt: Warn): Promise<ReflectionFile | undefined> {
    const file = fileOf(identity);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    const json = parseJson(text);
    if (json === undefined) {
      onCorrupt(`keel: ignoring unreadable reflection file ${file}: not valid JSON`);
      return undefined;
    }
    const parsed = ReflectionFileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.map(String).join('.') || '(root)';
      onCorrupt(
        `keel: ignoring unreadable reflection file ${file}: ${where}: ${issue?.message ?? 'invalid'}`,
      );
      return undefined;
    }
    if (parsed.data.taskIdentity !== identity) {
      onCorrupt(`keel: ignoring reflection file ${file}: it names task identity ${parsed.data.taskIdentity}`);
      return undefined;
    }
    return parsed.data;
  }

  return {
    async store(identity, reflection, storeOptions) {
      const valid = checkStoreArguments(identity, reflection, storeOptions);
      await mkdir(directory, { recursive: true });
      // The description is fixed by the identity (its hash), so keeping an earlier one is safe.
      const taskDescription =
        storeOptions?.taskDescription ?? (await read(identity, () => undefined))?.taskDescription;
      const content: ReflectionFile = {
        schemaVersion: FILE_SCHEMA_VERSION,
        taskIdentity: identity,
        ...(taskDescription === undefined ? {} : { taskDescription }),
        reflection: valid,
      };
      await writeAtomically({
        directory,
        file: fileOf(identity),
        text: `${JSON.stringify(content, null, 2)}\n`,
      });
    },

    async retrieve(identity): Promise<TaskReflection | undefined> {
      assertTaskIdentity(identity);
      return (await read(identity, warn))?.reflection;
    },

    async list() {
      let names: string[];
      try {
        names = await readdir(directory);
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return [];
        throw error;
      }
      // Temp files (".<identity>.….tmp") never match, so a write in progress is invisible.
      const identities = names.flatMap((name) => REFLECTION_FILE.exec(name)?.[1] ?? []);
      const files = await Promise.all(identities.map((identity) => read(identity, warn)));
      const entries = files.flatMap((file): StoredReflection[] =>
        file
          ? [
              {
                taskIdentity: file.taskIdentity,
                reflection: file.reflection,
                ...(file.taskDescription === undefined ? {} : { taskDescription: file.taskDescription }),
              },
            ]
          : [],
      );
      return sortStoredReflections(entries);
    },
  };
}

/** Replaces `file` with `text` so that readers and crashes only ever see a whole file. */
async function writeAtomically(options: { directory: string; file: string; text: string }): Promise<void> {
  const temporary = path.join(
    options.directory,
    `.${path.basename(options.file)}.${process.pid}.${randomUUID()}.tmp`,
  );
  try {
    const handle = await open(temporary, 'wx', 0o644);
    try {
      await handle.writeFile(options.text, 'utf8');
      await handle.sync(); // the data is on disk before the name points at it
    } finally {
      await handle.close();
    }
    await rename(temporary, options.file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(options.directory);
}

/** Makes the rename itself durable. Some platforms cannot fsync a directory; that is not an error. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: the rename has happened; only its durability across a power cut is weaker.
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}
