/**
 * npm run chaos: kills keel's worker and restarts its Temporal server at random moments while a
 * goal makes approved irreversible appends, then compares with an undisturbed run. With --goals,
 * that many goals run at once instead, and each must have every effect exactly once.
 *
 *   npm run chaos -- --calls 150 --kills 100 --restarts 10 --seed 1
 *   npm run chaos -- --goals 100 --calls 5 --kills 5 --restarts 0
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { formatChaosReport, chaosTargetsMet } from './chaos/chaos-report';
import { formatManyGoalsReport, manyGoalsTargetsMet } from './chaos/many-goals-report';
import { runChaos } from './chaos/run-chaos';
import { runManyGoals } from './chaos/run-many-goals';

function count(minimum: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < minimum)
      throw new InvalidArgumentError(`expected a whole number of at least ${minimum}`);
    return parsed;
  };
}

const program = new Command('chaos')
  .description(
    'Kill the worker and restart the server mid-goal; report duplicated effects and lost approvals',
  )
  .option('--goals <n>', 'run this many goals at once (no undisturbed run); one goal otherwise', count(1))
  .option('--calls <n>', 'irreversible appends each goal makes', count(1), 40)
  .option('--kills <n>', 'worker kills (SIGKILL)', count(0), 10)
  .option('--restarts <n>', 'dev server restarts', count(0), 2)
  .option('--seed <n>', 'seed of the disruption schedule', count(0), 1)
  .option('--min-delay-ms <ms>', 'shortest pause between disruptions', count(0), 500)
  .option('--max-delay-ms <ms>', 'longest pause between disruptions', count(1), 3000)
  .option(
    '--goal-timeout-ms <ms>',
    'give up on a goal (with --goals: on all) after this long',
    count(1000),
    1_800_000,
  )
  .option('--json <file>', 'also write the report as JSON to this file')
  .showHelpAfterError();

async function main(): Promise<void> {
  program.parse();
  const flags = program.opts<{
    goals?: number;
    calls: number;
    kills: number;
    restarts: number;
    seed: number;
    minDelayMs: number;
    maxDelayMs: number;
    goalTimeoutMs: number;
    json?: string;
  }>();
  if (flags.maxDelayMs < flags.minDelayMs)
    program.error('chaos: --max-delay-ms must be at least --min-delay-ms');
  const log = (line: string) => console.log(line);
  const { goals, json, ...options } = flags;
  let report: object;
  let met: boolean;
  if (goals === undefined) {
    const one = await runChaos({ ...options, log });
    console.log(formatChaosReport(one));
    [report, met] = [one, chaosTargetsMet(one)];
  } else {
    const many = await runManyGoals({ ...options, goals, log });
    console.log(formatManyGoalsReport(many));
    [report, met] = [many, manyGoalsTargetsMet(many)];
  }
  if (json) writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  process.exitCode = met ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(`chaos: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
