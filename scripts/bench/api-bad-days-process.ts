import path from 'node:path';
import { apiBadDaysResultSchema, type ApiBadDaysResult } from './api-bad-days-result';
import { runSectionProcess } from './section-process';

const SCRIPT = 'scripts/bench/api-bad-days.ts';

/**
 * The model API's bad days for `npm run bench`: api-bad-days.ts in a process of its own, with its
 * own dev server (one partition per task queue, which the fleet's shared limit needs) and its own
 * Temporal runtime; what it writes is read back through the schema. Its lines go to `log`; the
 * workers' warnings about each refused attempt (stderr) are kept only to explain a failure.
 */
export async function measureApiBadDays(options: {
  /** Goals of the overload (run with and without jitter). */
  goals: number;
  /** Where the process writes its figures. */
  directory: string;
  log: (line: string) => void;
}): Promise<ApiBadDaysResult> {
  const json = path.join(options.directory, 'api-bad-days.json');
  const args = ['--goals', String(options.goals), '--json', json];
  return apiBadDaysResultSchema.parse(
    await runSectionProcess({ script: SCRIPT, args, json, log: options.log }),
  );
}
