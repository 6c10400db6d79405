import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startBenchEnvironment } from './bench-environment';
import { ScenarioKind, type BenchScenario } from './bench-scenario';
import { chartSvg, writeChartPng } from './chart';
import { runComparison, type GoalMeasurement } from './comparison';
import { measureApiBadDays } from './api-bad-days-process';
import { measureConcurrency } from './concurrency-process';
import { measureCommandCosts } from './command-costs';
import { measureCacheFigures } from './cache-figures';
import { measureDelegationCost } from './delegation-cost';
import { measureEvictedApproval } from './evicted-approval';
import { runLongGoal } from './long-goal';
import { measureParkedMemory } from './parked-memory';
import { replayRecorded } from './replay-recorded';
import { measureCheckpointCost, measureForkCapture } from './fork-cost';
import { prebuiltWorkflowBundle } from '../../src/worker/bundle-file';
import { measureWorkerStart } from './worker-start';
import { machineDescription, markdownReport, type BenchReport } from './report';
import { startBenchWorkersIn, SystemName, type BenchSystem } from './systems';

export interface BenchOptions {
  /** Repetitions of each scenario per system (interleaved). */
  repetitions: number;
  /** N of the comparison scenarios; the sequential one also runs at each of `extraSequential`. */
  calls: number;
  extraSequential: number[];
  parallelPerTurn: number;
  systems?: SystemName[];
  /** A long keel goal of this many calls (0 skips it). */
  longGoalCalls: number;
  longGoalTimeoutMs: number;
  /** The recorded history replayed has this many calls (0 skips the replay and the fork capture). */
  replayCalls: number;
  /** Turns of a workspace checkpointed for the storage figures (0 skips them). */
  checkpointTurns?: number;
  /** Goals parked on approval for the memory measurement (0 skips it). */
  parkedGoals: number;
  /**
   * Calls a goal makes before it parks for the evicted-approval measurement (0 skips it; keel's
   * own default is its replay size, 1,000).
   */
  evictedCalls?: number;
  /** Samples of the worker start time (0 skips it). */
  startSamples: number;
  /** Samples of each way run_command runs (read-only, layered, …; 0 skips it). */
  commandSamples?: number;
  /**
   * Model turns of the goal run with prompt caching on and off against the scripted server, for
   * the share read from the cache and the input cost ratio (0 skips it).
   */
  cacheTurns?: number;
  /**
   * Goals of the overload in the model API's bad days (api-bad-days.ts: a fleet under a shared
   * request limit and an overload with and without jitter, about three minutes; 0 skips it).
   */
  apiBadDaysGoals?: number;
  /**
   * Goals started together on one keel worker and on two, each with the default workflow cache and
   * with 256 (concurrency.ts, issue 41; 0 skips them), and the tool calls each makes.
   */
  concurrencyGoals?: number;
  concurrencyCalls?: number;
  /**
   * Interleaved pairs of keel goals, one making a plain tool call and one delegating it to a child
   * goal, for what a delegation costs (delegation-cost.ts, issue 47; 0 skips them).
   */
  delegations?: number;
  /** Goals of 3 tool calls started together on one worker (0 skips them). */
  manyGoals?: number;
  /** Run the comparison scenarios (false: only the separate measurements). Default true. */
  comparison?: boolean;
  outputDirectory: string;
  /** Render the PNG chart (needs Chromium). */
  png: boolean;
  /** An existing server instead of a fresh dev server (tests share theirs). */
  address?: string;
  log: (line: string) => void;
}

export interface BenchOutcome {
  report: BenchReport;
  files: { json: string; markdown: string; svg: string; png?: string };
}

export async function runBench(options: BenchOptions): Promise<BenchOutcome> {
  const startedAt = new Date().toISOString();
  const log = options.log;
  const failures: string[] = [];
  log('bench: starting a dev server, a loopback model and the workers (bundling takes a few seconds)');
  const environment = await startBenchEnvironment(options.address ? { address: options.address } : {});
  try {
    const workers = await startBenchWorkersIn(environment, options.systems);
    for (const [system, reason] of Object.entries(workers.unavailable))
      log(`bench: ${system} left out: ${reason}`);
    const scenarios: BenchScenario[] =
      options.comparison === false
        ? []
        : [
            ...[options.calls, ...options.extraSequential].map((calls) => ({
              kind: ScenarioKind.Sequential,
              calls,
              perTurn: 1,
            })),
            { kind: ScenarioKind.Parallel, calls: options.calls, perTurn: options.parallelPerTurn },
            { kind: ScenarioKind.Mixed, calls: options.calls, perTurn: 1 },
          ];
    const keel = workers.systems.find((system) => system.name === SystemName.Keel);
    const report = await workers.run(async (): Promise<BenchReport> => {
      if (scenarios.length > 0) await warmUp(environment, workers.systems, log);
      const comparison = await runComparison({
        client: environment.client,
        systems: workers.systems,
        scenarios,
        repetitions: options.repetitions,
        workspaceRoot: () => environment.directory('workspace'),
        log,
      });
      const partial: BenchReport = {
        startedAt,
        machine: machineDescription(),
        settings: settingsOf(options),
        unavailable: workers.unavailable,
        summaries: comparison.summaries,
        measurements: comparison.measurements,
        failures,
      };
      if (keel === undefined) return partial;
      partial.longGoal = await attempt('long goal', options.longGoalCalls, failures, log, () =>
        runLongGoal({
          client: environment.client,
          keel,
          calls: options.longGoalCalls,
          workspace: environment.directory('long'),
          timeoutMs: options.longGoalTimeoutMs,
        }),
      );
      partial.replay = await attempt('replay', options.replayCalls, failures, log, async () => {
        const recorded = await recordedGoal(
          environment,
          keel,
          comparison.measurements,
          options.replayCalls,
          log,
        );
        const replay = await replayRecorded(environment, recorded);
        partial.forkCapture = await attempt('fork capture', 1, failures, log, async () => {
          // The bundle as `keel fork` finds it: built once per code version, before the clock starts.
          const bundle = await prebuiltWorkflowBundle({ env: process.env, log });
          return measureForkCapture(environment, recorded, bundle);
        });
        return replay;
      });
      const delegations = options.delegations ?? 0;
      partial.delegation = await attempt(
        'a delegation against a plain call',
        delegations,
        failures,
        log,
        () =>
          measureDelegationCost({
            client: environment.client,
            keel,
            repetitions: delegations,
            workspace: () => environment.directory('delegation'),
            log,
          }),
      );
      return partial;
    });
    // Its own keel worker and scripted server, after the comparison's workers stopped.
    report.cacheFigures = await attempt('cache figures', options.cacheTurns ?? 0, failures, log, () =>
      measureCacheFigures({ environment, turns: options.cacheTurns ?? 0, log }),
    );
    // Separate processes, after the in-process workers stopped, so nothing else competes.
    report.parkedMemory = await attempt('memory', options.parkedGoals, failures, log, () =>
      measureParkedMemory(environment, options.parkedGoals, log),
    );
    report.evictedApproval = await attempt('evicted approval', options.evictedCalls ?? 0, failures, log, () =>
      measureEvictedApproval(environment, options.evictedCalls ?? 0, log),
    );
    report.commandCosts = await attempt('run_command costs', options.commandSamples ?? 0, failures, log, () =>
      measureCommandCosts(options.commandSamples ?? 0, log),
    );
    report.apiBadDays = await attempt(
      "the model API's bad days",
      options.apiBadDaysGoals ?? 0,
      failures,
      log,
      () =>
        measureApiBadDays({
          goals: options.apiBadDaysGoals ?? 0,
          directory: environment.directory('api-bad-days'),
          log,
        }),
    );
    const concurrencySize = (options.concurrencyGoals ?? 0) + (options.manyGoals ?? 0);
    report.concurrency = await attempt('many goals on one worker', concurrencySize, failures, log, () =>
      measureConcurrency({
        goals: options.concurrencyGoals ?? 0,
        calls: options.concurrencyCalls ?? 10,
        manyGoals: options.manyGoals ?? 0,
        directory: environment.directory('concurrency'),
        log,
      }),
    );
    report.checkpoints = await attempt('checkpoints', options.checkpointTurns ?? 0, failures, log, () =>
      measureCheckpointCost(environment.directory('checkpoints'), options.checkpointTurns ?? 0),
    );
    report.workerStart = await attempt('worker start', options.startSamples, failures, log, () =>
      measureWorkerStart(environment, options.startSamples, log),
    );
    return { report, files: await writeOutputs(report, options) };
  } finally {
    await environment.close();
  }
}

/** One small goal per system first: bundles loaded, connections open, JIT warm. */
async function warmUp(
  environment: Awaited<ReturnType<typeof startBenchEnvironment>>,
  systems: readonly BenchSystem[],
  log: (line: string) => void,
): Promise<void> {
  log('bench: warm-up goal per system (not measured)');
  const { measureGoal } = await import('./comparison');
  for (const system of systems) {
    const warm = await measureGoal(
      environment.client,
      system,
      { kind: ScenarioKind.Sequential, calls: 5, perTurn: 1 },
      0,
      environment.directory('warm-up'),
    );
    if (!warm.completed) log(`bench: ${system.name} warm-up failed: ${warm.error ?? ''}`);
  }
}

/** A keel goal of `calls` sequential calls: one the comparison made, or a new one. */
async function recordedGoal(
  environment: Awaited<ReturnType<typeof startBenchEnvironment>>,
  keel: BenchSystem,
  measurements: readonly GoalMeasurement[],
  calls: number,
  log: (line: string) => void,
): Promise<{ workflowId: string; firstRunId: string; calls: number }> {
  const made = measurements.find(
    (measurement) =>
      measurement.system === SystemName.Keel &&
      measurement.scenario === ScenarioKind.Sequential &&
      measurement.calls === calls &&
      measurement.completed,
  );
  if (made) return { workflowId: made.workflowId, firstRunId: made.firstRunId, calls };
  log(`bench: recording a ${calls}-call keel goal to replay`);
  const { measureGoal } = await import('./comparison');
  const recorded = await measureGoal(
    environment.client,
    keel,
    { kind: ScenarioKind.Sequential, calls, perTurn: 1 },
    1,
    environment.directory('recorded'),
  );
  if (!recorded.completed)
    throw new Error(`the ${calls}-call goal to replay did not complete: ${recorded.error ?? ''}`);
  return { workflowId: recorded.workflowId, firstRunId: recorded.firstRunId, calls };
}

/** Runs one separate measurement unless its size is 0; a failure is reported, not thrown. */
async function attempt<T>(
  name: string,
  size: number,
  failures: string[],
  log: (line: string) => void,
  run: () => Promise<T>,
): Promise<T | { skipped: string }> {
  if (size <= 0) return { skipped: 'turned off by flag' };
  log(`bench: ${name}`);
  try {
    return await run();
  } catch (error) {
    const message = `${name}: ${error instanceof Error ? error.message : String(error)}`;
    failures.push(message);
    log(`bench: ${message}`);
    return { skipped: `failed: ${message}` };
  }
}

async function writeOutputs(report: BenchReport, options: BenchOptions): Promise<BenchOutcome['files']> {
  mkdirSync(options.outputDirectory, { recursive: true });
  const files = {
    json: path.join(options.outputDirectory, 'bench.json'),
    markdown: path.join(options.outputDirectory, 'bench.md'),
    svg: path.join(options.outputDirectory, 'bench.svg'),
  };
  writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(files.markdown, markdownReport(report));
  const svg = chartSvg(report.summaries);
  writeFileSync(files.svg, svg);
  if (!options.png) return files;
  const png = path.join(options.outputDirectory, 'bench.png');
  const problem = await writeChartPng(svg, png);
  if (problem) {
    report.failures.push(`chart PNG: ${problem}`);
    writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
    return files;
  }
  return { ...files, png };
}

function settingsOf(options: BenchOptions): Record<string, unknown> {
  const { log: _log, ...settings } = options;
  return settings;
}
