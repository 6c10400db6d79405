import { Command, InvalidArgumentError } from 'commander';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runBench } from './bench/run-bench';
import { SystemName } from './bench/systems';

/** npm run bench [-- FLAGS]: keel against the bare Temporal loop and the @temporalio/ai-sdk loop. */
const program = new Command('bench')
  .description('Benchmark keel against a bare Temporal agent loop (the floor) and an @temporalio/ai-sdk loop')
  .option('--reps <n>', 'repetitions of each scenario per system, interleaved', positive, 5)
  .option('--calls <n>', 'tool calls of the sequential, parallel and mixed goals', positive, 100)
  .option('--with-1000', 'also the sequential scenario at N = 1,000 (slow: tens of minutes)')
  .option('--with-10000', 'also one 10,000-call keel goal (slow: hours on a history that grows)')
  .option('--long-timeout <minutes>', 'time limit of the 10,000-call goal', positive, 120)
  .option('--replay-calls <n>', 'calls of the recorded history replayed (0 skips)', natural, 1000)
  .option('--parked <n>', 'goals parked on approval for the memory measurement (0 skips)', natural, 1000)
  .option(
    '--evicted-calls <n>',
    'calls a goal makes before it parks, for the evicted-approval measurement (0 skips)',
    natural,
    1000,
  )
  .option('--start-samples <n>', 'samples of the worker start time (0 skips)', natural, 3)
  .option(
    '--command-samples <n>',
    'samples of each way run_command runs: read-only, layered, … (0 skips)',
    natural,
    20,
  )
  .option(
    '--cache-turns <n>',
    'model turns of the goal run with prompt caching on and off for the cache figures (0 skips)',
    natural,
    50,
  )
  .option(
    '--bad-days-goals <n>',
    "goals of the model API's bad days: an overload with and without jitter, beside a fleet under a shared request limit (about 3 minutes; 0 skips)",
    natural,
    5,
  )
  .option(
    '--concurrency-goals <n>',
    'goals started together on one worker and on two, with the default workflow cache and with 256 (tens of minutes; 0 skips)',
    natural,
    200,
  )
  .option('--concurrency-calls <n>', 'tool calls of each of those goals', positive, 10)
  .option(
    '--delegations <n>',
    'pairs of keel goals, one making a plain tool call and one delegating it to a child goal, interleaved: what a delegation costs (0 skips)',
    natural,
    5,
  )
  .option(
    '--checkpoint-turns <n>',
    'turns of a 500-file workspace checkpointed, each changing one file and adding one (0 skips)',
    natural,
    50,
  )
  .option('--many-goals <n>', 'goals of 3 tool calls started together on one worker (0 skips)', natural, 1000)
  .option(
    '--skip-slow',
    "skip the replay, memory, evicted-approval, start-time, model API's bad-days and many-goals measurements",
  )
  .option('--extras-only', 'only the separate measurements: no comparison scenarios, no warm-up')
  .option('--systems <list>', 'comma-separated: keel,keel-viewed,floor,ai-sdk', systemList)
  .option('--out <dir>', 'where bench.json, bench.md and the chart go', 'bench-results')
  .option('--no-png', 'write the chart as SVG only');

function positive(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('a whole number ≥ 1');
  return parsed;
}
function natural(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('a whole number ≥ 0');
  return parsed;
}
function systemList(value: string): SystemName[] {
  const names = value.split(',').map((name) => name.trim());
  const known = Object.values(SystemName) as string[];
  for (const name of names)
    if (!known.includes(name)) throw new InvalidArgumentError(`one of ${known.join(', ')}`);
  return names as SystemName[];
}

async function main(): Promise<void> {
  program.parse();
  const flags = program.opts<{
    reps: number;
    calls: number;
    with1000?: boolean;
    with10000?: boolean;
    longTimeout: number;
    replayCalls: number;
    parked: number;
    evictedCalls: number;
    startSamples: number;
    commandSamples: number;
    cacheTurns: number;
    badDaysGoals: number;
    concurrencyGoals: number;
    concurrencyCalls: number;
    manyGoals: number;
    delegations: number;
    checkpointTurns: number;
    skipSlow?: boolean;
    extrasOnly?: boolean;
    systems?: SystemName[];
    out: string;
    png: boolean;
  }>();
  const outcome = await runBench({
    repetitions: flags.reps,
    calls: flags.calls,
    extraSequential: flags.with1000 ? [1000] : [],
    parallelPerTurn: 5,
    ...(flags.systems ? { systems: flags.systems } : {}),
    longGoalCalls: flags.with10000 ? 10_000 : 0,
    longGoalTimeoutMs: flags.longTimeout * 60_000,
    replayCalls: flags.skipSlow ? 0 : flags.replayCalls,
    parkedGoals: flags.skipSlow ? 0 : flags.parked,
    evictedCalls: flags.skipSlow ? 0 : flags.evictedCalls,
    startSamples: flags.skipSlow ? 0 : flags.startSamples,
    commandSamples: flags.commandSamples,
    cacheTurns: flags.cacheTurns,
    apiBadDaysGoals: flags.skipSlow ? 0 : flags.badDaysGoals,
    concurrencyGoals: flags.skipSlow ? 0 : flags.concurrencyGoals,
    concurrencyCalls: flags.concurrencyCalls,
    manyGoals: flags.skipSlow ? 0 : flags.manyGoals,
    // A few seconds: not among the slow ones, so --skip-slow keeps it.
    delegations: flags.delegations,
    checkpointTurns: flags.checkpointTurns,
    comparison: !flags.extrasOnly,
    outputDirectory: path.resolve(flags.out),
    png: flags.png,
    log: (line) => console.log(line),
  });
  console.log('');
  console.log(readFileSync(outcome.files.markdown, 'utf8'));
  console.log(`bench: wrote ${Object.values(outcome.files).join(', ')}`);
  if (outcome.report.failures.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
