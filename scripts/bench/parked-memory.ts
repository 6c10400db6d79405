import type { Client } from '@temporalio/client';
import { startGoal } from '../../src/client/goal-client';
import { maxCachedWorkflows } from '../../src/config/workflow-cache';
import type { BenchEnvironment } from './bench-environment';
import { ScenarioKind, scenarioPrompt } from './bench-scenario';
import { prepareWorkspace } from './bench-workspace';
import { ensureCompiled, prebuiltBundleFile, startWorkerProcess, WorkerLaunch } from './worker-process';

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
