/**
 * Many goals on one worker (issue 41), in one run: `goals` goals of `calls` sequential read_file
 * calls, started together against the scripted (loopback) model, on one keel worker and on two,
 * each with keel's default workflow cache and with every cache size in --caches; then
 * --many-goals goals of --many-calls calls on one worker with the default cache; then, for each
 * bound in --goals-at-work, the first batch again on one worker with the default cache and that
 * many goals at work (KEEL_GOALS_AT_WORK, first come, first served). Each column
 * starts fresh worker processes and first runs single goals on them, one at a time, for what one
 * goal alone costs (CPU per tool call, latency).
 *
 * `npm run bench` runs it in a process of its own (its own dev server and loopback model, so the
 * earlier sections' histories and workers are not in its way) and reads back what it writes.
 *
 *   node --import tsx scripts/bench/concurrency.ts [--goals 200] [--calls 10] [--workers 1,2]
 *     [--caches default,256] [--many-goals 1000] [--many-calls 3] [--singles 3]
 *     [--goals-at-work 8] [--timeout-minutes 30] [--json FILE]
 *   --goals 0 leaves out the 200-goal columns, --many-goals 0 the 1,000-goal one,
 *   --goals-at-work 0 the bounded ones.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startBenchEnvironment } from './bench-environment';
import { concurrencyTable, type ConcurrencyResult, type ConcurrencyVariant } from './concurrency-figures';
import { measureVariant } from './concurrency-run';

const count = z.coerce.number().int().nonnegative();
const parts = (text: string) => text.split(',').map((part) => part.trim());
const settingsSchema = z.object({
  goals: count,
  calls: count.min(1),
  workers: z.array(z.coerce.number().int().positive()).min(1),
  /** "default" (keel's, from memory) or a number of goals (at least 2, as keel requires). */
  caches: z.array(z.union([z.literal('default'), z.coerce.number().int().min(2)])).min(1),
  manyGoals: count,
  manyCalls: count.min(1),
  singles: count.min(1),
  /** Bounds on goals at work, a column each (0: none). */
  goalsAtWork: z.array(count),
  timeoutMinutes: z.coerce.number().positive(),
  json: z.string().optional(),
});
export type ConcurrencySettings = z.infer<typeof settingsSchema>;

function settings(): ConcurrencySettings {
  const { values } = parseArgs({
    options: {
      goals: { type: 'string', default: '200' },
      calls: { type: 'string', default: '10' },
      workers: { type: 'string', default: '1,2' },
      caches: { type: 'string', default: 'default,256' },
      'many-goals': { type: 'string', default: '1000' },
      'many-calls': { type: 'string', default: '3' },
      singles: { type: 'string', default: '3' },
      'goals-at-work': { type: 'string', default: '8' },
      'timeout-minutes': { type: 'string', default: '30' },
      json: { type: 'string' },
    },
  });
  return settingsSchema.parse({
    goals: values.goals,
    calls: values.calls,
    workers: parts(values.workers),
    caches: parts(values.caches),
    manyGoals: values['many-goals'],
    manyCalls: values['many-calls'],
    singles: values.singles,
    goalsAtWork: parts(values['goals-at-work']),
    timeoutMinutes: values['timeout-minutes'],
    json: values.json,
  });
}

async function main(): Promise<void> {
  const options = settings();
  const log = (line: string) => console.log(`concurrency: ${line}`);
  log('starting a dev server, a loopback model and the workflow bundle');
  const environment = await startBenchEnvironment();
  const result: ConcurrencyResult = { variants: [] };
  // Written after every column, so a run stopped for time keeps what it measured.
  const record = (variant: ConcurrencyVariant) => {
    result.variants.push(variant);
    if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify(result, null, 2)}\n`);
  };
  const common = { singleSamples: options.singles, timeoutMs: options.timeoutMinutes * 60_000, log };
  try {
    if (options.goals > 0)
      for (const workers of options.workers)
        for (const cache of options.caches)
          record(
            await measureVariant(environment, {
              ...common,
              workers,
              cache: cache === 'default' ? undefined : cache,
              goalsAtWork: 0,
              goals: options.goals,
              calls: options.calls,
            }),
          );
    if (options.manyGoals > 0)
      record(
        await measureVariant(environment, {
          ...common,
          workers: 1,
          cache: undefined,
          goalsAtWork: 0,
          goals: options.manyGoals,
          calls: options.manyCalls,
        }),
      );
    if (options.goals > 0)
      for (const goalsAtWork of options.goalsAtWork.filter((bound) => bound > 0))
        record(
          await measureVariant(environment, {
            ...common,
            workers: 1,
            cache: undefined,
            goalsAtWork,
            goals: options.goals,
            calls: options.calls,
          }),
        );
  } finally {
    await environment.close();
  }
  for (const line of concurrencyTable(result)) console.log(line);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
