/**
 * npm run chaos: kills keel's worker and restarts its Temporal server at random moments while a
 * goal makes approved irreversible appends, then compares with an undisturbed run.
 *
 *   npm run chaos -- --calls 150 --kills 100 --restarts 10 --seed 1
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { formatChaosReport, chaosTargetsMet } from './chaos/chaos-report';
import { runChaos } from './chaos/run-chaos';

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
  .option('--calls <n>', 'irreversible appends the goal makes', count(1), 40)
  .option('--kills <n>', 'worker kills (SIGKILL)', count(0), 10)
  .option('--restarts <n>', 'dev server restarts', count(0), 2)
  .option('--seed <n>', 'seed of the disruption schedule', count(0), 1)
  .option('--min-delay-ms <ms>', 'shortest pause between disruptions', count(0), 500)
  .option('--max-delay-ms <ms>', 'longest pause between disruptions', count(1), 3000)
  .option('--goal-timeout-ms <ms>', 'give up on a goal after this long', count(1000), 1_800_000)
  .option('--json <file>', 'also write the report as JSON to this file')
  .showHelpAfterError();

async function main(): Promise<void> {
  program.parse();
  const flags = program.opts<{
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
  const report = await runChaos({ ...flags, log: (line) => console.log(line) });
  console.log(formatChaosReport(report));
  if (flags.json) writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`);
  process.exitCode = chaosTargetsMet(report) ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(`chaos: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
