import path from 'node:path';
import { concurrencyResultSchema, type ConcurrencyResult } from './concurrency-figures';
import { runSectionProcess } from './section-process';

const SCRIPT = 'scripts/bench/concurrency.ts';

/**
 * Many goals on one worker for `npm run bench`: concurrency.ts in a process of its own, with its
 * own dev server and loopback model (the earlier sections' histories and workers are not in its
 * way); what it writes is read back through the schema. Its lines go to `log`; its stderr is kept
 * only to explain a failure.
 */
export async function measureConcurrency(options: {
  /** Goals started together on one worker and on two (each with the default cache and with 256). */
  goals: number;
  /** Tool calls each of those goals makes. */
  calls: number;
  /** Goals of 3 calls on one worker with the default cache (0 leaves them out). */
  manyGoals: number;
  /** Where the process writes its figures. */
  directory: string;
  log: (line: string) => void;
}): Promise<ConcurrencyResult> {
  const json = path.join(options.directory, 'concurrency.json');
  const flags = { goals: options.goals, calls: options.calls, 'many-goals': options.manyGoals, json };
  const args = Object.entries(flags).flatMap(([flag, value]) => [`--${flag}`, String(value)]);
  return concurrencyResultSchema.parse(
    await runSectionProcess({ script: SCRIPT, args, json, log: options.log }),
  );
}
