import path from 'node:path';
import {
  ReflectionStoreKind,
  reflectionStoreConfigFromEnv,
  type ReflectionStoreConfig,
} from '../activities/reflection-store/create-reflection-store';
import { defaultReflectionDirectory } from '../activities/reflection-store/file-reflection-store';
import { KEEL_CONFIG_FILE, loadKeelConfig } from './keel-config';

export interface ReflectionStoreSettings {
  config: ReflectionStoreConfig;
  /** Which store, where, and what chose it: "file store /srv/notes (reflectionStore in ./keel.config.yaml)". */
  description: string;
}

/**
 * The reflection store of a worker (or of `keel reflections`) started in `cwd`: the one place both
 * read, so the CLI finds what the worker stored. Each KEEL_REFLECTION_* variable wins over the
 * `reflectionStore` section of keel.config.yaml (or the file KEEL_CONFIG names), which wins over
 * the default, a file store in ~/.keel/reflections.
 */
export function reflectionStoreSettings(options: {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}): ReflectionStoreSettings {
  const { env } = options;
  const { config: keelConfig, file } = loadKeelConfig(options);
  const section = keelConfig.reflectionStore;
  const fileLabel = file === undefined ? undefined : path.relative(options.cwd, file) || KEEL_CONFIG_FILE;
  const inFile = `reflectionStore in ${fileLabel ?? ''}`;

  const kindFromEnv = env.KEEL_REFLECTION_STORE?.trim() || undefined;
  const kind = kindFromEnv ?? section?.kind ?? ReflectionStoreKind.File;
  const kindSource = kindFromEnv ? 'KEEL_REFLECTION_STORE' : section ? inFile : undefined;
  const directoryFromEnv = env.KEEL_REFLECTION_DIR?.trim() || undefined;
  // A directory in the file is relative to the file, so the worker and the CLI agree from any cwd.
  const directoryFromFile =
    section?.directory !== undefined && file !== undefined && kind === section.kind
      ? path.resolve(path.dirname(file), section.directory)
      : undefined;
  const config = reflectionStoreConfigFromEnv({
    KEEL_REFLECTION_STORE: kind,
    KEEL_REFLECTION_DIR: directoryFromEnv
      ? path.resolve(options.cwd, directoryFromEnv)
      : (directoryFromFile ?? defaultReflectionDirectory()),
    KEEL_REFLECTION_DATABASE_URL: env.KEEL_REFLECTION_DATABASE_URL,
  });
  const origin = { kindSource, directoryFromEnv, directoryFromFile, inFile, file, cwd: options.cwd };
  return { config, description: describe(config, origin) };
}

function describe(
  config: ReflectionStoreConfig,
  origin: {
    kindSource: string | undefined;
    directoryFromEnv: string | undefined;
    directoryFromFile: string | undefined;
    inFile: string;
    file: string | undefined;
    cwd: string;
  },
): string {
  switch (config.kind) {
    case ReflectionStoreKind.Memory:
      return `memory store (nothing outlives its process; from ${origin.kindSource ?? 'the default'})`;
    case ReflectionStoreKind.Postgres:
      return `postgres store ${withoutPassword(config.connectionString)} (from ${origin.kindSource ?? 'the default'} and KEEL_REFLECTION_DATABASE_URL)`;
    case ReflectionStoreKind.File: {
      const chosenBy = origin.directoryFromEnv
        ? 'KEEL_REFLECTION_DIR'
        : origin.directoryFromFile
          ? origin.inFile
          : `the default: KEEL_REFLECTION_DIR is unset and ${origin.file === undefined ? `there is no ${KEEL_CONFIG_FILE} in ${origin.cwd} (nor KEEL_CONFIG)` : `${origin.file} sets no reflectionStore.directory`}`;
      return `file store ${config.directory ?? defaultReflectionDirectory()} (${chosenBy})`;
    }
  }
}

/** postgresql://keel:secret@db/keel → postgresql://keel@db/keel: the description is printed. */
function withoutPassword(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    url.password = '';
    return url.toString();
  } catch {
    return 'postgres (unparsable URL)';
  }
}
