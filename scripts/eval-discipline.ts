/**
 * npm run eval:discipline: runs the misbehaving-model suite against keel's hard guards on a dev
 * server of its own, replays recorded real agent runs through the same guards (no server), and
 * prints the tables and rates the README shows, scripted and real behaviour apart.
 *
 *   npm run eval:discipline -- --json discipline.json --only looper,repeater
 *   npm run eval:discipline -- --no-scenarios --trajectories ../shared/trajectories
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Command } from 'commander';
import {
  checkLines,
  formatDisciplineTable,
  scriptedRates,
  summaryLines,
} from './discipline/discipline-report';
import { runDiscipline, type DisciplineReport } from './discipline/run-discipline';
import { loadTrajectories, replayTrajectory, type TrajectoryReplay } from './discipline/trajectory-replay';
import {
  summarizeTrajectories,
  trajectoryLines,
  type TrajectorySummary,
} from './discipline/trajectory-report';

const REPOSITORY = path.resolve(__dirname, '..');

/**
 * Where the recorded runs are when no --trajectories is given: KEEL_TRAJECTORIES, else
 * ../shared/trajectories beside the repository — or beside the repository this one was cloned
 * from, so a fresh `git clone . /tmp/x` finds the same folder as its origin.
 */
function defaultTrajectories(): string {
  const fromEnv = process.env.KEEL_TRAJECTORIES;
  if (fromEnv) return path.resolve(fromEnv);
  const beside = path.resolve(REPOSITORY, '../shared/trajectories');
  if (existsSync(beside)) return beside;
  const origin = spawnSync('git', ['config', '--get', 'remote.origin.url'], {
    cwd: REPOSITORY,
    encoding: 'utf8',
  });
  const url = origin.status === 0 ? origin.stdout.trim() : '';
  if (url.startsWith('/') || url.startsWith('file://')) {
    const besideOrigin = path.resolve(url.replace(/^file:\/\//, ''), '../shared/trajectories');
    if (existsSync(besideOrigin)) return besideOrigin;
  }
  return beside;
}

const program = new Command('eval:discipline')
  .description('Scripted misbehaving models and recorded real runs against the hard guards')
  .option('--json <file>', 'where to write the results as JSON', '.keel/eval-discipline.json')
  .option('--only <names>', 'comma-separated scenario names (default: all)')
  .option('--no-scenarios', 'skip the scripted scenarios (and the dev server they need)')
  .option(
    '--trajectories <dir>',
    'replay every trajectory JSON file in this folder (default: ../shared/trajectories from the repository root)',
  )
  .option('--no-trajectories', 'skip the recorded real trajectories')
  .option('--no-judge', 'run every scenario with the progress judge off: the counting guards alone')
  .showHelpAfterError();

interface Flags {
  json: string;
  only?: string;
  scenarios: boolean;
  trajectories: string | boolean;
  judge: boolean;
}

interface TrajectoryReport {
  directory: string;
  summary: TrajectorySummary;
  /** Every replayed trajectory with every guard decision. */
  replays: TrajectoryReplay[];
}

async function main(): Promise<void> {
  program.parse();
  const flags = program.opts<Flags>();
  const only = (flags.only ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const scripted = flags.scenarios ? await runScenarios(only, flags.judge) : undefined;
  const real = flags.trajectories === false ? undefined : replayAll(trajectoryDirectory(flags.trajectories));
  mkdirSync(path.dirname(flags.json), { recursive: true });
  writeFileSync(
    flags.json,
    `${JSON.stringify({ ...scripted, ...(scripted ? { rates: scriptedRates(scripted.rows) } : {}), trajectories: real }, null, 2)}\n`,
  );
  console.log(`results: ${flags.json}`);
  const scriptedMet = scripted?.rows.every((row) => row.targetsMet) ?? true;
  const realMet = (real?.summary.missed.length ?? 0) === 0;
  if (!scriptedMet || !realMet) process.exitCode = 1;
}

async function runScenarios(only: readonly string[], judge: boolean): Promise<DisciplineReport> {
  const report = await runDiscipline({ only, judge, log: (line) => console.error(line) });
  console.log(`model: ${report.model}`);
  console.log(`worker default budget: ${report.workerBudget.maxTokens?.toLocaleString('en-US')} tokens`);
  console.log('steps count tool calls from the start of the misbehaviour (0: before its first call ran)\n');
  console.log(formatDisciplineTable(report.rows));
  console.log('');
  for (const line of checkLines(report.rows)) console.log(line);
  for (const line of summaryLines(report.rows)) console.log(line);
  console.log('');
  return report;
}

/** --trajectories with a folder, or the default one; a missing default is an error, as is a missing folder. */
function trajectoryDirectory(flag: string | boolean): string {
  const directory = typeof flag === 'string' ? path.resolve(flag) : defaultTrajectories();
  if (!existsSync(directory))
    throw new Error(
      `no trajectory folder at ${directory} (give --trajectories DIR or KEEL_TRAJECTORIES, or --no-trajectories)`,
    );
  return directory;
}

function replayAll(directory: string): TrajectoryReport {
  const replays = loadTrajectories(directory).map((trajectory) => replayTrajectory(trajectory));
  const summary = summarizeTrajectories(replays);
  console.log(`trajectories: ${directory}`);
  for (const line of trajectoryLines(summary, replays)) console.log(line);
  return { directory, summary, replays };
}

main().catch((error: unknown) => {
  console.error(`eval:discipline: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
