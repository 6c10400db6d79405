import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
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
  replayMs: number;
  msPerEvent: number;
  failures: string[];
}

/** Replays every run of a recorded goal with keel's workflow bundle, timing the replay alone. */
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
  const failures: string[] = [];
  const started = performance.now();
  const results = Worker.runReplayHistories(
    { workflowBundle: environment.keelBundle, dataConverter: dataConverterFromEnv() },
    histories,
  );
  for await (const result of results) {
    if (result.error) failures.push(`${result.runId}: ${result.error.message}`);
  }
  const replayMs = performance.now() - started;
  return {
    calls: recorded.calls,
    runs: runIds.length,
    events,
    replayMs,
    msPerEvent: replayMs / Math.max(1, events),
    failures,
  };
}

/** A keel worker in a process of its own (src/worker.ts, through tsx), for start time and memory. */
interface WorkerProcess {
  readonly child: ChildProcess;
  readonly startMs: number;
  rssBytes(): number;
  stop(): Promise<void>;
}

async function startWorkerProcess(
  environment: BenchEnvironment,
  taskQueue: string,
  bundlePath: string | undefined,
): Promise<WorkerProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
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
      KEEL_REFLECTION_STORE: 'memory',
      KEEL_WORKFLOW_BUNDLE: bundlePath ?? '',
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
  /** From spawning `node --import tsx src/worker.ts` to its "polling" line. */
  withoutBundleMs: Spread;
  withBundleMs: Spread;
  samples: number;
}

export async function measureWorkerStart(
  environment: BenchEnvironment,
  samples: number,
): Promise<StartTimeResult> {
  const bundlePath = path.join(environment.directory('bundle'), 'workflow-bundle.js');
  writeBundle(bundlePath, environment.keelBundle.code);
  const without: number[] = [];
  const withBundle: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    for (const [bundle, into] of [
      [undefined, without],
      [bundlePath, withBundle],
    ] as const) {
      const worker = await startWorkerProcess(environment, `bench-start-${Date.now()}`, bundle);
      into.push(worker.startMs);
      await worker.stop();
    }
  }
  return { withoutBundleMs: spread(without), withBundleMs: spread(withBundle), samples };
}

export interface ParkedMemoryResult {
  goals: number;
  parked: number;
  idleRssBytes: number;
  parkedRssBytes: number;
  perGoalBytes: number;
}

/**
 * A keel worker's resident memory, idle and then with `goals` goals each waiting for approval of
 * its first (irreversible) call. The goals are terminated afterwards.
 */
export async function measureParkedMemory(
  environment: BenchEnvironment,
  goals: number,
): Promise<ParkedMemoryResult> {
  const bundlePath = path.join(environment.directory('bundle'), 'workflow-bundle.js');
  writeBundle(bundlePath, environment.keelBundle.code);
  const taskQueue = `bench-parked-${Date.now()}`;
  const worker = await startWorkerProcess(environment, taskQueue, bundlePath);
  const ids: string[] = [];
  try {
    await settle();
    const idleRssBytes = worker.rssBytes();
    const workspace = environment.directory('parked');
    prepareWorkspace(workspace);
    const scenario = { kind: ScenarioKind.Mixed, calls: 1, perTurn: 1 };
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
            input: { goal: scenarioPrompt(scenario), workspace },
          }),
        ),
      );
      ids.push(...batch);
    }
    const parked = await waitForParked(environment.client, taskQueue, goals);
    await settle();
    const parkedRssBytes = worker.rssBytes();
    return {
      goals,
      parked,
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

function writeBundle(file: string, code: string): void {
  writeFileSync(file, code);
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
