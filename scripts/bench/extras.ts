import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { maxCachedWorkflows } from '../../src/config/workflow-cache';
import type { BenchEnvironment } from './bench-environment';
import { quietLogger } from './bench-environment';
import { ScenarioKind, scenarioPrompt } from './bench-scenario';
import { prepareWorkspace } from './bench-workspace';
import { startGoal } from '../../src/client/goal-client';
import { spread, type Spread } from './stats';
import { chainHistory, firstRunIdOf } from './history';
import { measureGoal } from './comparison';
import type { BenchSystem } from './systems';

const REPOSITORY = path.resolve(__dirname, '../..');

export interface ReplayResult {
  calls: number;
  runs: number;
  events: number;
  /** Every run replayed by one Worker.runReplayHistories, its replay worker's start included. */
  replayMs: number;
  msPerEvent: number;
  /** Of replayMs: starting and stopping the replay worker (the same call with no history). */
  replayWorkerMs: number;
  /** Each run's replay, from the previous run's result to its own (the first after the worker start). */
  runMs: Spread;
  failures: string[];
}

/**
 * Replays every run of a recorded goal with keel's prebuilt workflow bundle (nothing is bundled
 * here), timing the replay alone: the histories are fetched before the clock starts.
 */
export async function replayRecorded(
  environment: BenchEnvironment,
  recorded: { workflowId: string; firstRunId: string; calls: number },
): Promise<ReplayResult> {
  const { runIds } = await chainHistory(environment.client, recorded.workflowId, recorded.firstRunId);
  const histories = [];
  for (const runId of runIds) {
    histories.push({
      workflowId: recorded.workflowId,
      history: await environment.client.workflow.getHandle(recorded.workflowId, runId).fetchHistory(),
    });
  }
  const events = histories.reduce((sum, entry) => sum + (entry.history.events?.length ?? 0), 0);
  const options = { workflowBundle: environment.keelBundle, dataConverter: dataConverterFromEnv() };
  // The fixed part: the replay worker loads the bundle into its VM context (replay runs in this
  // thread: the SDK's replay default is debugMode) before the first history.
  let started = performance.now();
  for await (const _ of Worker.runReplayHistories(options, [])) {
    // no history: nothing is yielded
  }
  const replayWorkerMs = performance.now() - started;
  const failures: string[] = [];
  const runMs: number[] = [];
  started = performance.now();
  let previous = started;
  for await (const result of Worker.runReplayHistories(options, histories)) {
    const now = performance.now();
    runMs.push(now - previous);
    previous = now;
    if (result.error) failures.push(`${result.runId}: ${result.error.message}`);
  }
  const replayMs = performance.now() - started;
  return {
    calls: recorded.calls,
    runs: runIds.length,
    events,
    replayMs,
    msPerEvent: replayMs / Math.max(1, events),
    replayWorkerMs,
    runMs: spread(runMs),
    failures,
  };
}

/**
 * How a worker process is started: `compiled` as `npm run worker` and the Docker image start it
 * (bin/keel-worker.js, which runs dist/ when current), `source` through tsx (compiled at start).
 */
export const WorkerLaunch = { Compiled: 'compiled', Source: 'source' } as const;
export type WorkerLaunch = (typeof WorkerLaunch)[keyof typeof WorkerLaunch];

const LAUNCH_ARGUMENTS: Record<WorkerLaunch, string[]> = {
  [WorkerLaunch.Compiled]: ['bin/keel-worker.js'],
  [WorkerLaunch.Source]: ['--import', 'tsx', 'src/worker.ts'],
};

/** A keel worker in a process of its own, for start time and memory. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly startMs: number;
  rssBytes(): number;
  stop(): Promise<void>;
}

export async function startWorkerProcess(
  environment: BenchEnvironment,
  taskQueue: string,
  launch: WorkerLaunch,
  bundlePath: string | undefined,
  extraEnvironment: Record<string, string> = {},
): Promise<WorkerProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, LAUNCH_ARGUMENTS[launch], {
    cwd: REPOSITORY,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: environment.server.address,
      KEEL_TASK_QUEUE: taskQueue,
      ANTHROPIC_API_KEY: 'loopback-needs-no-key',
      ANTHROPIC_BASE_URL: environment.model.url,
      KEEL_JOURNAL_DIR: environment.directory('worker-journal'),
      KEEL_BACKUP_DIR: environment.directory('worker-backups'),
      KEEL_MODEL_REQUESTS: environment.directory('worker-model-requests'),
      KEEL_REFLECTION_STORE: 'memory',
      KEEL_WORKFLOW_BUNDLE: bundlePath ?? '',
      KEEL_FROM_SOURCE: '', // the launcher's own choice: dist/, which ensureCompiled made current
      ...extraEnvironment,
    },
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker did not start within 120 s: ${output}`)),
      120_000,
    );
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('polling task queue')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', watch);
    child.stderr?.on('data', watch);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before polling: ${output}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const startMs = performance.now() - started;
  return {
    child,
    startMs,
    rssBytes: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+) kB/.exec(status);
      return match ? Number(match[1]) * 1024 : Number.NaN;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

export interface StartTimeResult {
  /** `node bin/keel-worker.js` on a current dist/ with KEEL_WORKFLOW_BUNDLE, spawn to "polling". */
  compiledWithBundleMs: Spread;
  /** The same without a prebuilt bundle: the worker bundles dist/workflows at start. */
  compiledBundlingMs: Spread;
  /** `node --import tsx src/worker.ts` with the prebuilt bundle: the source, compiled by tsx. */
  sourceWithBundleMs: Spread;
  samples: number;
}

/**
 * Worker start time, the ways a worker is started: compiled with a prebuilt bundle (production),
 * compiled bundling at start, and from source with the bundle. Samples interleave the three.
 */
export async function measureWorkerStart(
  environment: BenchEnvironment,
  samples: number,
  log: (line: string) => void,
): Promise<StartTimeResult> {
  ensureCompiled(log);
  const bundlePath = prebuiltBundleFile(environment);
  const compiledWithBundle: number[] = [];
  const compiledBundling: number[] = [];
  const sourceWithBundle: number[] = [];
  const ways = [
    [WorkerLaunch.Compiled, bundlePath, compiledWithBundle],
    [WorkerLaunch.Compiled, undefined, compiledBundling],
    [WorkerLaunch.Source, bundlePath, sourceWithBundle],
  ] as const;
  for (let sample = 0; sample < samples; sample++) {
    for (const [launch, bundle, into] of ways) {
      if (launch === WorkerLaunch.Compiled) ensureCompiled(log); // never a tsx start counted as compiled
      const worker = await startWorkerProcess(environment, `bench-start-${Date.now()}`, launch, bundle);
      into.push(worker.startMs);
      await worker.stop();
    }
  }
  return {
    compiledWithBundleMs: spread(compiledWithBundle),
    compiledBundlingMs: spread(compiledBundling),
    sourceWithBundleMs: spread(sourceWithBundle),
    samples,
  };
}

/**
 * Builds dist/ (`npm run build`) when the launcher would not run it: missing, or older than a
 * source file (bin/load-keel.js decides; it is asked, not copied). Throws when it stays stale.
 */
export function ensureCompiled(log: (line: string) => void): void {
  if (compiledIsCurrent()) return;
  log('bench: compiling TypeScript to dist/ (npm run build) for the compiled worker start');
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: REPOSITORY, encoding: 'utf8' });
  if (build.status !== 0)
    throw new Error(`npm run build failed (${build.status}): ${build.stdout}${build.stderr}`);
  if (!compiledIsCurrent()) throw new Error('dist/ is still older than src/ after npm run build');
}

function compiledIsCurrent(): boolean {
  const launcher = JSON.stringify(path.join(REPOSITORY, 'bin/load-keel.js'));
  const answer = spawnSync(process.execPath, ['-p', `require(${launcher}).compiledIsCurrent()`], {
    encoding: 'utf8',
  });
  return answer.stdout.trim() === 'true';
}

export interface ParkedMemoryResult {
  goals: number;
  parked: number;
  /** The worker's workflow cache (its default on this machine: src/config/workflow-cache.ts). */
  cacheSize: number;
  /** RSS after each quarter of the goals parked, the last when all have: bounded by the cache. */
  rssAsParked: Array<{ parked: number; rssBytes: number }>;
  idleRssBytes: number;
  parkedRssBytes: number;
  perGoalBytes: number;
}

/**
 * A keel worker's resident memory (started as in production: compiled, prebuilt bundle), idle and
 * then with `goals` goals each waiting for approval of its first (irreversible) call. The goals are
 * terminated afterwards.
 */
export async function measureParkedMemory(
  environment: BenchEnvironment,
  goals: number,
  log: (line: string) => void,
): Promise<ParkedMemoryResult> {
  const bundlePath = prebuiltBundleFile(environment);
  const taskQueue = `bench-parked-${Date.now()}`;
  ensureCompiled(log);
  const worker = await startWorkerProcess(environment, taskQueue, WorkerLaunch.Compiled, bundlePath);
  const ids: string[] = [];
  try {
    await settle();
    const idleRssBytes = worker.rssBytes();
    const workspace = environment.directory('parked');
    prepareWorkspace(workspace);
    const scenario = { kind: ScenarioKind.Mixed, calls: 1, perTurn: 1 };
    const quarter = Math.max(1, Math.ceil(goals / 4));
    const rssAsParked: ParkedMemoryResult['rssAsParked'] = [];
    for (let index = 0; index < goals; index += 25) {
      const batch = Array.from(
        { length: Math.min(25, goals - index) },
        (_, offset) => `bench-parked-${taskQueue}-${index + offset}`,
      );
      await Promise.all(
        batch.map((workflowId) =>
          startGoal(environment.client, {
            taskQueue,
            workflowId,
            // Network makes the call irreversible, so each goal parks waiting for approval.
            input: { goal: scenarioPrompt(scenario), workspace, sandbox: { network: true } },
          }),
        ),
      );
      ids.push(...batch);
      if (Math.floor(ids.length / quarter) > rssAsParked.length && ids.length < goals) {
        const parkedSoFar = await waitForParked(environment.client, taskQueue, ids.length);
        await settle();
        rssAsParked.push({ parked: parkedSoFar, rssBytes: worker.rssBytes() });
      }
    }
    const parked = await waitForParked(environment.client, taskQueue, goals);
    await settle();
    const parkedRssBytes = worker.rssBytes();
    rssAsParked.push({ parked, rssBytes: parkedRssBytes });
    return {
      goals,
      parked,
      cacheSize: maxCachedWorkflows(undefined, process.env), // as the worker, which has this environment
      rssAsParked,
      idleRssBytes,
      parkedRssBytes,
      perGoalBytes: (parkedRssBytes - idleRssBytes) / Math.max(1, parked),
    };
  } finally {
    await worker.stop();
    for (let index = 0; index < ids.length; index += 50) {
      await Promise.allSettled(
        ids
          .slice(index, index + 50)
          .map((id) => environment.client.workflow.getHandle(id).terminate('benchmark done')),
      );
    }
  }
}

/** Polls visibility until `goals` goals on the queue wait for an approval (or 5 minutes pass). */
async function waitForParked(client: Client, taskQueue: string, goals: number): Promise<number> {
  const query = `TaskQueue = '${taskQueue}' AND KeelPendingApprovals > 0 AND ExecutionStatus = 'Running'`;
  const deadline = Date.now() + 5 * 60_000;
  let parked = 0;
  while (Date.now() < deadline) {
    parked = (await client.workflow.count(query)).count;
    if (parked >= goals) return parked;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return parked;
}

/** A moment for the worker to finish its tasks and the garbage collector to catch up. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 2000));
}

const bundleFiles = new WeakMap<BenchEnvironment, string>();

/**
 * The environment's workflow bundle as a file, for a worker process's KEEL_WORKFLOW_BUNDLE (what
 * a production worker loads): written once per environment, however many measurements start one.
 */
export function prebuiltBundleFile(environment: BenchEnvironment): string {
  const written = bundleFiles.get(environment);
  if (written !== undefined) return written;
  const file = path.join(environment.directory('bundle'), 'workflow-bundle.js');
  writeFileSync(file, environment.keelBundle.code);
  bundleFiles.set(environment, file);
  return file;
}

export { quietLogger };

export interface LongGoalResult {
  calls: number;
  completed: boolean;
  error?: string;
  wallMs: number;
  runs: number;
  events: number;
  bytes: number;
  largestRunEvents: number;
  largestRunBytes: number;
  /** Every run under 4,096 events and 4 MB (Temporal's continue-as-new suggestion thresholds). */
  everyRunWithinLimits: boolean;
}

export const RUN_EVENT_LIMIT = 4096;
export const RUN_BYTE_LIMIT = 4 * 1024 * 1024;

/** One long keel goal, measured like the comparison's but on its own and with a time limit. */
export async function runLongGoal(options: {
  client: Client;
  keel: BenchSystem;
  calls: number;
  workspace: string;
  timeoutMs: number;
}): Promise<LongGoalResult> {
  const scenario = { kind: ScenarioKind.Sequential, calls: options.calls, perTurn: 1 };
  const id = `bench-long-${options.calls}-${Date.now()}`;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), options.timeoutMs);
  });
  const measuring = measureGoal(options.client, options.keel, scenario, 1, options.workspace, id);
  const measured = await Promise.race([measuring, timedOut]);
  clearTimeout(timer);
  if (measured === 'timed out') {
    // Stop it where it is and report the history it wrote so far.
    const handle = options.client.workflow.getHandle(id);
    const firstRunId = await firstRunIdOf(options.client, id);
    await handle.terminate('benchmark time limit');
    await measuring.catch(() => undefined);
    const history = await chainHistory(options.client, id, firstRunId);
    return {
      calls: options.calls,
      completed: false,
      error: `not finished after ${Math.round(options.timeoutMs / 60_000)} min (terminated)`,
      wallMs: options.timeoutMs,
      runs: history.runs,
      events: history.events,
      bytes: history.bytes,
      largestRunEvents: history.largestRunEvents,
      largestRunBytes: history.largestRunBytes,
      everyRunWithinLimits:
        history.largestRunEvents < RUN_EVENT_LIMIT && history.largestRunBytes < RUN_BYTE_LIMIT,
    };
  }
  return {
    calls: options.calls,
    completed: measured.completed,
    ...(measured.error ? { error: measured.error } : {}),
    wallMs: measured.wallMs,
    runs: measured.runs,
    events: measured.events,
    bytes: measured.bytes,
    largestRunEvents: measured.largestRunEvents,
    largestRunBytes: measured.largestRunBytes,
    everyRunWithinLimits:
      measured.largestRunEvents < RUN_EVENT_LIMIT && measured.largestRunBytes < RUN_BYTE_LIMIT,
  };
}
