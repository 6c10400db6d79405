import path from 'node:path';
import { z } from 'zod';
import { createFileReflectionStore } from './file-reflection-store';
import { createMemoryReflectionStore } from './memory-reflection-store';
import { createPostgresReflectionStore } from './postgres-reflection-store';
import type { ReflectionStore, Warn } from './reflection-store';

export const ReflectionStoreKind = {
  Memory: 'memory',
  File: 'file',
  Postgres: 'postgres',
} as const;
export type ReflectionStoreKind = (typeof ReflectionStoreKind)[keyof typeof ReflectionStoreKind];

export const ReflectionStoreConfigSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal(ReflectionStoreKind.Memory) }),
  z.object({ kind: z.literal(ReflectionStoreKind.File), directory: z.string().min(1).optional() }),
  z.object({ kind: z.literal(ReflectionStoreKind.Postgres), connectionString: z.string().min(1) }),
]);
export type ReflectionStoreConfig = z.infer<typeof ReflectionStoreConfigSchema>;

/**
 * The `reflectionStore` section of keel.config.yaml, read by the worker and by `keel reflections`
 * alike. A relative directory is relative to the config file. The PostgreSQL URL carries a
 * password, so it is never in the file: it stays in KEEL_REFLECTION_DATABASE_URL.
 */
export const reflectionStoreSectionSchema = z.strictObject({
  kind: z.enum([ReflectionStoreKind.Memory, ReflectionStoreKind.File, ReflectionStoreKind.Postgres]),
  directory: z.string().min(1).optional(),
});
export type ReflectionStoreSection = z.infer<typeof reflectionStoreSectionSchema>;

/** The durable default needs no server: reflections survive restarts without setup. */
export const DEFAULT_REFLECTION_STORE_KIND = ReflectionStoreKind.File;

export class ReflectionStoreConfigError extends Error {
  override readonly name = 'ReflectionStoreConfigError';
}

export function createReflectionStore(
  config: ReflectionStoreConfig,
  dependencies: { warn?: Warn } = {},
): ReflectionStore {
  const { warn } = dependencies;
  switch (config.kind) {
    case ReflectionStoreKind.Memory:
      return createMemoryReflectionStore({ warn });
    case ReflectionStoreKind.File:
      return createFileReflectionStore({ directory: config.directory, warn });
    case ReflectionStoreKind.Postgres:
      return createPostgresReflectionStore({ connectionString: config.connectionString, warn });
  }
}

/**
 * Reads KEEL_REFLECTION_STORE (memory | file | postgres; file when unset), KEEL_REFLECTION_DIR
 * (file store directory; relative to the working directory) and KEEL_REFLECTION_DATABASE_URL
 * (postgres, required for it). A bad value throws a ReflectionStoreConfigError whose message is
 * one line naming the variable and what is accepted.
 */
export function reflectionStoreConfigFromEnv(env: NodeJS.ProcessEnv): ReflectionStoreConfig {
  const kind = env.KEEL_REFLECTION_STORE?.trim() || DEFAULT_REFLECTION_STORE_KIND;
  switch (kind) {
    case ReflectionStoreKind.Memory:
      return { kind };
    case ReflectionStoreKind.File: {
      const directory = env.KEEL_REFLECTION_DIR?.trim();
      return directory ? { kind, directory: path.resolve(directory) } : { kind };
    }
    case ReflectionStoreKind.Postgres: {
      const connectionString = env.KEEL_REFLECTION_DATABASE_URL?.trim();
      if (!connectionString) {
        throw new ReflectionStoreConfigError(
          'KEEL_REFLECTION_STORE=postgres needs KEEL_REFLECTION_DATABASE_URL, e.g. postgresql://user:password@host:5432/keel',
        );
      }
      if (!/^postgres(?:ql)?:\/\//.test(connectionString)) {
        throw new ReflectionStoreConfigError(
          'KEEL_REFLECTION_DATABASE_URL must be a postgres:// or postgresql:// URL',
        );
      }
      return { kind, connectionString };
    }
    default:
      throw new ReflectionStoreConfigError(
        `KEEL_REFLECTION_STORE must be memory, file or postgres, got ${JSON.stringify(kind)}`,
      );
  }
}
