import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { startGoal } from '../../src/client/goal-client';
import { maxCachedWorkflows } from '../../src/config/workflow-cache';
import type { GoalResult } from '../../src/workflows/goal/lifecycle/result';
import type { BenchEnvironment } from './bench-environment';
import { ScenarioKind, scenarioPrompt } from './bench-scenario';
import { prepareWorkspace } from './bench-workspace';
import { batchFigures, statTicks, type ConcurrencyVariant, type GoalTimes } from './concurrency-figures';
import {
  ensureCompiled,
  prebuiltBundleFile,
  startWorkerProcess,
  WorkerLaunch,
  type WorkerProcess,
} from './worker-process';
import { spread } from './stats';

/**
 * Preloaded into each worker process (NODE_OPTIONS=--require; `--import` does not reach worker
 * threads on Node 20): names every worker thread "js-worker-<id>" so its CPU can be read from
 * /proc/<pid>/task/<tid>/stat. Node leaves every thread named "node"; keel starts no worker threads
 * of its own, so the only ones are the Temporal SDK's workflow threads. Naming a thread changes
 * nothing it does. Written out as a file at run time: CommonJS, which the lint does not type.
 */
const THREAD_NAMES_PRELOAD = `
const { isMainThread, threadId } = require('node:worker_threads');
if (!isMainThread) {
  try { require('node:fs').writeFileSync('/proc/thread-self/comm', 'js-worker-' + threadId); }
  catch { /* not Linux: the bench reports the process's CPU alone */ }
}
`;
const WORKFLOW_THREAD = /^js-worker-/;
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/** Goals started or awaited at once: the client's connection carries every long poll. */
const IN_FLIGHT = 50;

export interface VariantOptions {
  workers: number;
  /** Each worker's workflow cache; undefined: keel's default from memory. */
  cache: number | undefined;
  /** Each worker's bound on goals at work (KEEL_GOALS_AT_WORK); 0: none. */
  goalsAtWork: number;
  goals: number;
  calls: number;
  /** Single goals run one at a time on the same workers first (one more before them, not measured). */
  singleSamples: number;
  timeoutMs: number;
  log: (line: string) => void;
}

/**
 * One column of the concurrency table: fresh worker processes (compiled, prebuilt bundle, as in
 * production), single goals on them, then `goals` goals of `calls` sequential read_file calls
 * started together. Latencies are the server's start and close times; CPU is read from /proc.
 */
export async function measureVariant(
  environment: BenchEnvironment,
  options: VariantOptions,
): Promise<ConcurrencyVariant> {
  ensureCompiled(options.log);
  const cache = options.cache ?? maxCachedWorkflows(undefined, {}); // as the worker works it out
  const label = `${options.workers} worker${options.workers > 1 ? 's' : ''}, cache ${cache}${options.cache === undefined ? ' (default)' : ''}${options.goalsAtWork > 0 ? `, ${options.goalsAtWork} at work` : ''}`;
  const taskQueue = `bench-concurrency-${Date.now()}`;
  // A root of its own: keel marks a workspace root with the host id that first used it.
  const root = environment.directory('concurrency');
  const workspace = path.join(root, 'workspace');
  prepareWorkspace(workspace);
  const workers = await startWorkers(environment, taskQueue, options, root);
  try {
    const goal = (id: string) => startKeelGoal(environment, taskQueue, id, workspace, options.calls);
    options.log(`${label}: single goals of ${options.calls} calls, one at a time`);
    await runGoals([await goal(`${taskQueue}-warm`)], Date.now() + options.timeoutMs);
    const singleBefore = cpuTicks(workers);
    const singles = [];
    for (let sample = 0; sample < options.singleSamples; sample++) {
      const handle = await goal(`${taskQueue}-single-${sample}`);
      singles.push(...(await runGoals([handle], Date.now() + options.timeoutMs)));
    }
    const singleCpu = perCall(singleBefore, cpuTicks(workers), callsMade(singles));

    options.log(`${label}: ${options.goals} goals × ${options.calls} calls started together`);
    const rss = sampleRss(workers);
    const batchBefore = cpuTicks(workers);
    const handles: WorkflowHandle[] = [];
    for (let index = 0; index < options.goals; index += IN_FLIGHT) {
      const ids = range(index, Math.min(options.goals, index + IN_FLIGHT)).map(
        (n) => `${taskQueue}-goal-${n}`,
      );
      handles.push(...(await Promise.all(ids.map(goal))));
    }
    const batch = await runGoals(handles, Date.now() + options.timeoutMs);
    const batchCpu = perCall(batchBefore, cpuTicks(workers), callsMade(batch));
    const peakRssBytes = rss.stop();
    const figures = batchFigures(batch, options.calls);
    options.log(`${label}: ${figures.failed} failed, ${(figures.lengthMs / 1000).toFixed(1)} s`);
    return {
      label,
      workers: options.workers,
      cache,
      cacheIsDefault: options.cache === undefined,
      goalsAtWork: options.goalsAtWork,
      goals: options.goals,
      calls: options.calls,
      single: { samples: singles.length, latencyMs: spread(singles.map(latency)).median, ...singleCpu },
      batch: { ...figures, ...batchCpu, peakRssBytes },
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

/**
 * Worker processes on one task queue. Two keel workers on one machine share its host id as
 * replicas (docs/several-machines.md), both with the bench's scratch folder as workspace root.
 */
async function startWorkers(
  environment: BenchEnvironment,
  taskQueue: string,
  options: VariantOptions,
  workspaceRoot: string,
): Promise<WorkerProcess[]> {
  const bundle = prebuiltBundleFile(environment);
  const preload = path.join(environment.directory('thread-names'), 'thread-names.cjs');
  writeFileSync(preload, THREAD_NAMES_PRELOAD);
  const settings = {
    KEEL_HOST_ID: taskQueue,
    KEEL_HOST_REPLICA: '1',
    KEEL_WORKSPACE_ROOTS: workspaceRoot,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
    ...(options.cache === undefined ? {} : { KEEL_MAX_CACHED_WORKFLOWS: String(options.cache) }),
    // Set either way: a KEEL_GOALS_AT_WORK in the bench's own environment does not reach a column.
    KEEL_GOALS_AT_WORK: options.goalsAtWork > 0 ? String(options.goalsAtWork) : 'off',
  };
  const workers: WorkerProcess[] = [];
  try {
    for (let index = 0; index < options.workers; index++)
      workers.push(await startWorkerProcess(environment, taskQueue, WorkerLaunch.Compiled, bundle, settings));
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.stop()));
    throw error;
  }
  return workers;
}

function startKeelGoal(
  environment: BenchEnvironment,
  taskQueue: string,
  workflowId: string,
  workspace: string,
  calls: number,
): Promise<WorkflowHandle> {
  const scenario = { kind: ScenarioKind.Sequential, calls, perTurn: 1 };
  return startGoal(environment.client, {
    taskQueue,
    workflowId,
    input: {
      goal: scenarioPrompt(scenario),
      workspace,
      limits: { maxToolCalls: calls + 10, maxTurns: calls + 10 },
      guards: { enabled: false }, // as the comparison's keel goals: the loopback model never reflects
    },
  });
}

interface GoalRun extends GoalTimes {
  toolCalls: number;
}

/**
 * Waits for every goal (IN_FLIGHT at a time) until the deadline, terminates what is still
 * running, and reads each one's start and close from the server.
 */
async function runGoals(handles: readonly WorkflowHandle[], deadline: number): Promise<GoalRun[]> {
  return inBatches(handles, async (handle) => {
    const outcome = await Promise.race([
      handle.result().then(
        (result: GoalResult) => ({ result }),
        (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
      ),
      new Promise<{ timedOut: true }>((resolve) =>
        setTimeout(() => resolve({ timedOut: true }), Math.max(0, deadline - Date.now())).unref(),
      ),
    ]);
    if ('timedOut' in outcome) await handle.terminate('benchmark time limit').catch(() => undefined);
    const description = await handle.describe();
    const toolCalls = 'result' in outcome ? outcome.result.counters.toolCalls : 0;
    return {
      startMs: description.startTime.getTime(),
      closeMs: 'timedOut' in outcome ? undefined : description.closeTime?.getTime(),
      failure: failureOf(outcome),
      toolCalls,
    };
  });
}

function failureOf(
  outcome: { result: GoalResult } | { error: string } | { timedOut: true },
): string | undefined {
  if ('timedOut' in outcome) return 'still running at the time limit';
  if ('error' in outcome) return outcome.error;
  const { status, reason } = outcome.result;
  return status === 'completed' ? undefined : `ended ${status}: ${reason ?? ''}`;
}

async function inBatches<T, R>(items: readonly T[], each: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await each(items[index]!);
    }
  };
  await Promise.all(range(0, Math.min(IN_FLIGHT, items.length)).map(lane));
  return results;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, offset) => from + offset);
const latency = (goal: GoalTimes) => (goal.closeMs ?? Number.NaN) - goal.startMs;
const callsMade = (goals: readonly GoalRun[]) => goals.reduce((sum, goal) => sum + goal.toolCalls, 0);

interface Ticks {
  process: number;
  workflowThreads: number;
  /** Whether a named workflow thread was found in every worker. */
  isolated: boolean;
}

/** CPU ticks of the workers so far: the whole processes and their workflow threads. */
function cpuTicks(workers: readonly WorkerProcess[]): Ticks {
  let process = 0;
  let workflowThreads = 0;
  let isolated = true;
  for (const { child } of workers) {
    process += statTicks(readFileSync(`/proc/${child.pid}/stat`, 'utf8'));
    let found = false;
    for (const thread of readdirSync(`/proc/${child.pid}/task`)) {
      try {
        if (!WORKFLOW_THREAD.test(readFileSync(`/proc/${child.pid}/task/${thread}/comm`, 'utf8'))) continue;
        workflowThreads += statTicks(readFileSync(`/proc/${child.pid}/task/${thread}/stat`, 'utf8'));
        found = true;
      } catch {
        // the thread ended between the listing and the read
      }
    }
    isolated &&= found;
  }
  return { process, workflowThreads, isolated };
}

function perCall(before: Ticks, after: Ticks, calls: number) {
  const msPerCall = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND / Math.max(1, calls);
  return {
    processMsPerCall: msPerCall(after.process - before.process),
    workflowThreadMsPerCall: after.isolated
      ? msPerCall(after.workflowThreads - before.workflowThreads)
      : Number.NaN,
  };
}

/** Samples the workers' RSS every second; stop() gives the sum of each worker's largest. */
function sampleRss(workers: readonly WorkerProcess[]): { stop(): number } {
  const largest = workers.map(() => 0);
  const sample = () =>
    workers.forEach((worker, index) => {
      largest[index] = Math.max(largest[index]!, worker.rssBytes() || 0);
    });
  sample();
  const timer = setInterval(sample, 1000);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return largest.reduce((sum, bytes) => sum + bytes, 0);
    },
  };
}
