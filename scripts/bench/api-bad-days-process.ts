import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { apiBadDaysResultSchema, type ApiBadDaysResult } from './api-bad-days-result';

const REPOSITORY = path.resolve(__dirname, '../..');
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
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', SCRIPT, '--goals', String(options.goals), '--json', json],
    { cwd: REPOSITORY, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) options.log(line);
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4000);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (pending !== '') options.log(pending);
  if (code !== 0)
    throw new Error(`${SCRIPT} exited ${code}: ${errors.trim().split('\n').slice(-5).join(' ')}`);
  return apiBadDaysResultSchema.parse(JSON.parse(readFileSync(json, 'utf8')));
}
