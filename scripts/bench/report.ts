import os from 'node:os';
import { apiBadDaysMarkdown, type ApiBadDaysResult } from './api-bad-days-result';
import type { CacheFiguresResult } from './cache-figures';
import type { CommandCostsResult } from './command-costs';
import { concurrencyMarkdown, type ConcurrencyResult } from './concurrency-figures';
import { delegationMarkdown, type DelegationCostResult } from './delegation-cost';
import { forkMarkdown, type CheckpointCostResult, type ForkCaptureResult } from './fork-cost';
import type { EvictedApprovalResult } from './evicted-approval';
import type { GoalMeasurement, SystemSummary } from './comparison';
import type { LongGoalResult } from './long-goal';
import type { ParkedMemoryResult } from './parked-memory';
import type { ReplayResult } from './replay-recorded';
import type { StartTimeResult } from './worker-start';
import type { Spread } from './stats';
import type { SystemName } from './systems';

export interface BenchReport {
  startedAt: string;
  machine: string;
  settings: Record<string, unknown>;
  unavailable: Partial<Record<SystemName, string>>;
  summaries: SystemSummary[];
  measurements: GoalMeasurement[];
  replay?: ReplayResult | { skipped: string };
  delegation?: DelegationCostResult | { skipped: string };
  parkedMemory?: ParkedMemoryResult | { skipped: string };
  evictedApproval?: EvictedApprovalResult | { skipped: string };
  workerStart?: StartTimeResult | { skipped: string };
  commandCosts?: CommandCostsResult | { skipped: string };
  longGoal?: LongGoalResult | { skipped: string };
  cacheFigures?: CacheFiguresResult | { skipped: string };
  apiBadDays?: ApiBadDaysResult | { skipped: string };
  concurrency?: ConcurrencyResult | { skipped: string };
  forkCapture?: ForkCaptureResult | { skipped: string };
  checkpoints?: CheckpointCostResult | { skipped: string };
  failures: string[];
}

export function machineDescription(): string {
  const cpus = os.cpus();
  const memory = Math.round(os.totalmem() / 1024 ** 3);
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${memory} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

const number = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const range = (value: Spread | undefined, digits = 1) =>
  value === undefined || !Number.isFinite(value.median)
    ? '–'
    : `${number(value.median, digits)} (${number(value.min, digits)}–${number(value.max, digits)})`;
const size = (bytes: number) =>
  !Number.isFinite(bytes)
    ? '–'
    : bytes >= 1024 * 1024
      ? `${(bytes / 1024 / 1024).toFixed(1)} MB`
      : `${(bytes / 1024).toFixed(1)} KB`;

/** The report as markdown: the comparison table, then each separate measurement. */
export function markdownReport(report: BenchReport): string {
  const lines: string[] = [];
  lines.push(`Machine: ${report.machine}. Started ${report.startedAt}.`, '');
  if (report.summaries.length === 0) lines.push('Comparison: not run (--extras-only).');
  else
    lines.push(
      '| scenario | N | system | ms per call, median (min–max) | × floor, median (min–max) | events per call | history per call | continue-as-new runs | largest run: events | largest run: bytes | completed |',
      '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
  for (const row of report.summaries) {
    lines.push(
      `| ${row.scenario} | ${row.calls} | ${row.system} | ${range(row.msPerCall)} | ${range(row.ratioToFloor, 2)} | ${number(row.eventsPerCall)} | ${size(row.bytesPerCall)} | ${number(row.continueAsNewRuns, 0)} | ${row.largestRunEvents} | ${size(row.largestRunBytes)} | ${row.completed}/${row.repetitions} |`,
    );
  }
  for (const [system, reason] of Object.entries(report.unavailable)) {
    lines.push('', `${system} not measured: ${reason}`);
  }
  const errors = report.summaries.flatMap((row) =>
    row.errors.map((error) => `${row.system} ${row.scenario} N=${row.calls}: ${error}`),
  );
  if (errors.length > 0) lines.push('', 'Errors:', ...errors.map((error) => `- ${error}`));
  lines.push('');
  lines.push(...separateLines(report));
  return `${lines.join('\n')}\n`;
}

function separateLines(report: BenchReport): string[] {
  const lines: string[] = [];
  const long = report.longGoal;
  if (long && 'skipped' in long) lines.push(`- Long goal: skipped (${long.skipped}).`);
  else if (long) {
    lines.push(
      `- ${long.calls.toLocaleString('en')}-call keel goal: ${long.completed ? 'completed' : `did not complete (${long.error ?? ''})`} in ${number(long.wallMs / 1000, 0)} s; ${long.runs} runs, ${long.events} events, ${size(long.bytes)} of history; largest run ${long.largestRunEvents} events, ${size(long.largestRunBytes)}; every run < 4,096 events and < 4 MB: ${long.everyRunWithinLimits ? 'yes' : 'no'}.`,
    );
  }
  const replay = report.replay;
  if (replay && 'skipped' in replay) lines.push(`- Replay: skipped (${replay.skipped}).`);
  else if (replay) {
    lines.push(
      `- Replay of a recorded ${replay.calls.toLocaleString('en')}-call keel history (${replay.runs} runs, ${replay.events} events; prebuilt bundle, one Worker.runReplayHistories): ${number(replay.replayMs / 1000, 2)} s, ${number(replay.msPerEvent, 2)} ms per event; of which ${number(replay.replayWorkerMs / 1000, 2)} s start and stop the replay worker; a run ${range(replay.runMs, 0)} ms${replay.failures.length > 0 ? `; FAILED: ${replay.failures.join('; ')}` : ''}.`,
    );
  }
  lines.push(...delegationMarkdown(report.delegation));
  const replayMs = replay && !('skipped' in replay) ? replay.replayMs : undefined;
  lines.push(...forkMarkdown(report.forkCapture, report.checkpoints, replayMs));
  const memory = report.parkedMemory;
  if (memory && 'skipped' in memory) lines.push(`- Worker memory: skipped (${memory.skipped}).`);
  else if (memory) {
    lines.push(
      `- Worker memory (RSS): ${size(memory.idleRssBytes)} idle, ${size(memory.parkedRssBytes)} with ${memory.parked} of ${memory.goals} goals parked on approval (${size(memory.perGoalBytes)} per goal), workflow cache ${memory.cacheSize} goals; as they parked: ${memory.rssAsParked.map((sample) => `${sample.parked} → ${size(sample.rssBytes)}`).join(', ')}.`,
    );
  }
  const evicted = report.evictedApproval;
  if (evicted && 'skipped' in evicted)
    lines.push(`- Approval of an evicted goal: skipped (${evicted.skipped}).`);
  else if (evicted) {
    lines.push(
      `- Approval of an evicted goal (${evicted.callsBeforeParking.toLocaleString('en')} calls made before it parked; a worker process with a cache of 2 and two other parked goals): decision to its next model request ${range(evicted.decisionToModelMs, 0)} ms, median (min–max) of ${evicted.samples}; the run replayed had ${range(evicted.replayedRunEvents, 0)} events; the goal ended after ${evicted.runs} runs.`,
    );
  }
  const commands = report.commandCosts;
  if (commands && 'skipped' in commands) lines.push(`- run_command costs: skipped (${commands.skipped}).`);
  else if (commands) {
    const ratio = (value: Spread) => number(value.median / commands.floorMs.median, 2);
    lines.push(
      `- run_command on the worker, ms per call, median (min–max) of ${commands.samples}, and × the floor (bubblewrap alone, workspace read-write, no effect detection): floor ${range(commands.floorMs)}; read-only (workspace bound read-only) ${range(commands.readOnlyMs)}, ${ratio(commands.readOnlyMs)}×; **mutating on a copy-on-write layer** (mount, run, take stock, apply) ${range(commands.layeredMs)}, ${ratio(commands.layeredMs)}×; the previous design (read-write plus git on the host before and after) ${range(commands.previousMs)}, ${ratio(commands.previousMs)}×.`,
    );
  }
  lines.push(...cacheLines(report.cacheFigures));
  const badDays = report.apiBadDays;
  if (badDays && 'skipped' in badDays)
    lines.push(`- The model API's bad days: skipped (${badDays.skipped}).`);
  else if (badDays) lines.push(...apiBadDaysMarkdown(badDays), '');
  const concurrency = report.concurrency;
  if (concurrency && 'skipped' in concurrency)
    lines.push(`- Many goals on one worker: skipped (${concurrency.skipped}).`);
  else if (concurrency) lines.push(...concurrencyMarkdown(concurrency));
  const start = report.workerStart;
  if (start && 'skipped' in start) lines.push(`- Worker start: skipped (${start.skipped}).`);
  else if (start) {
    lines.push(
      `- Worker start (spawn to polling, median (min–max) of ${start.samples}): **${range(start.compiledWithBundleMs, 0)} ms** compiled with a prebuilt bundle (\`node bin/keel-worker.js\`, what \`npm run worker\` and the Docker image run, on dist/, with KEEL_WORKFLOW_BUNDLE); ${range(start.compiledBundlingMs, 0)} ms compiled, bundling at start; ${range(start.sourceWithBundleMs, 0)} ms from source with the bundle (\`node --import tsx src/worker.ts\`).`,
    );
  }
  if (report.failures.length > 0)
    lines.push('', 'Failures:', ...report.failures.map((failure) => `- ${failure}`));
  return lines;
}

function cacheLines(cache: BenchReport['cacheFigures']): string[] {
  if (cache === undefined) return [];
  if ('skipped' in cache) return [`- Prompt cache: skipped (${cache.skipped}).`];
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const met = (yes: boolean) => (yes ? 'target met' : '**target missed**');
  const tokens = (run: CacheFiguresResult['on']) =>
    `${run.usage.inputTokens.toLocaleString('en')} uncached, ${run.usage.cacheCreationInputTokens.toLocaleString('en')} written, ${run.usage.cacheReadInputTokens.toLocaleString('en')} read`;
  return [
    `- Prompt cache, a ${cache.turns}-turn keel goal (${cache.turns - 1} tool turns, then the answer) against the scripted server, once with caching on and once off, priced as ${cache.model}: **${percent(cache.readShare)} of input read from the cache** (target ≥ ${percent(cache.targets.readShare)}: ${met(cache.readShareMet)}); **input cost ${number(cache.inputCostRatio, 3)}× the uncached** (target ≤ ${number(cache.targets.inputCostRatio, 2)}×: ${met(cache.inputCostRatioMet)}). Input tokens on: ${tokens(cache.on)} ($${number(cache.on.inputUsd, 4)}); off: ${tokens(cache.off)} ($${number(cache.off.inputUsd, 4)}).`,
  ];
}
