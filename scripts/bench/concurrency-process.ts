import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { concurrencyResultSchema, type ConcurrencyResult } from './concurrency-figures';

const REPOSITORY = path.resolve(__dirname, '../..');
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
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      SCRIPT,
      ...Object.entries(flags).flatMap(([flag, value]) => [`--${flag}`, String(value)]),
    ],
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
  return concurrencyResultSchema.parse(JSON.parse(readFileSync(json, 'utf8')));
}
