import { performance } from 'node:perf_hooks';
import { decideApproval, goalHandle, goalStatus, startGoal } from '../../src/client/goal-client';
import { GoalStatus } from '../../src/workflows/goal/lifecycle/state';
import {
  PARKED_HANDOVER_DELAY_MS,
  PARKED_RUN_EVENTS_LIMIT,
} from '../../src/workflows/goal/lifecycle/history-limits';
import type { BenchEnvironment } from './bench-environment';
import { PARKING_CALLS, ScenarioKind, scenarioPrompt } from './bench-scenario';
import { prepareWorkspace } from './bench-workspace';
import { ensureCompiled, prebuiltBundleFile, startWorkerProcess, WorkerLaunch } from './worker-process';
import { spread, type Spread } from './stats';

export interface EvictedApprovalResult {
  /** Calls the goal made before its first decision (reads), then PARKING_CALLS irreversible ones. */
  callsBeforeParking: number;
  samples: number;
  /** From sending a decision to the evicted goal until its next model request arrives. */
  decisionToModelMs: Spread;
  /** Events of the run the worker had to replay for each decision. */
  replayedRunEvents: Spread;
  /** Runs of the goal when it ended (continue-as-new hand-overs included). */
  runs: number;
}

/**
 * What an approver of an evicted goal waits for (issue 26). One keel worker process (compiled,
 * prebuilt bundle, as in production) with a workflow cache of two goals (keel's least) runs a
 * goal of `calls` reads that then parks PARKING_CALLS times on an irreversible call. Before each
 * decision two other goals park on the same worker and take the cache's places, so the parked goal
 * is evicted, as on a worker holding more waiting goals than its cache. Each decision comes after
 * the goal had time to move its parked turn to a short run, as a human's does; the clock then runs
 * from the decision's signal until the loopback model is asked for the goal's next turn (the
 * replay, the approved call itself, the model call's scheduling).
 */
export async function measureEvictedApproval(
  environment: BenchEnvironment,
  calls: number,
  log: (line: string) => void,
): Promise<EvictedApprovalResult> {
  const bundlePath = prebuiltBundleFile(environment);
  ensureCompiled(log);
  const taskQueue = `bench-evicted-${Date.now()}`;
  const worker = await startWorkerProcess(environment, taskQueue, WorkerLaunch.Compiled, bundlePath, {
    KEEL_MAX_CACHED_WORKFLOWS: String(CACHE),
  });
  const workspace = environment.directory('evicted');
  prepareWorkspace(workspace);
  const workflowId = `${taskQueue}-goal`;
  try {
    const goal = await startParkingGoal(environment, taskQueue, workflowId, workspace, calls + PARKING_CALLS);
    const waits: number[] = [];
    const replayed: number[] = [];
    for (let sample = 0; sample < PARKING_CALLS; sample++) {
      const pending = await parkedCall(goal, 10 * 60_000);
      await handedOverIfLong(goal); // as a decision that comes minutes or days later finds it
      const fillers = await parkFillers(environment, taskQueue, workspace, sample); // evict the goal
      replayed.push((await goal.describe()).historyLength);
      const asked = environment.model.nextTurn();
      const sent = performance.now();
      await decideApproval(goal, { callId: pending, approved: true, approver: 'bench', via: 'signal' });
      waits.push((await asked) - sent);
      await Promise.all(fillers.map((filler) => filler.terminate('benchmark sample done')));
    }
    const result = await goal.result();
    if (result.status !== GoalStatus.Completed)
      throw new Error(`the parked goal ended ${result.status}: ${result.reason ?? ''}`);
    const view = await goalStatus(goal);
    return {
      callsBeforeParking: calls,
      samples: waits.length,
      decisionToModelMs: spread(waits),
      replayedRunEvents: spread(replayed),
      runs: view.continuedAsNew + 1,
    };
  } finally {
    await worker.stop();
    await environment.client.workflow
      .getHandle(workflowId)
      .terminate('benchmark done')
      .catch(() => undefined); // already ended
  }
}

/**
 * A goal parked in a long run moves to a short one after PARKED_HANDOVER_DELAY_MS
 * (goal/lifecycle/history-limits.ts); the decisions measured here come after that, as a human's do. A short run
 * stays as it is.
 */
async function handedOverIfLong(goal: ReturnType<typeof goalHandle>): Promise<void> {
  const deadline = Date.now() + PARKED_HANDOVER_DELAY_MS + 60_000;
  while ((await goal.describe()).historyLength >= PARKED_RUN_EVENTS_LIMIT) {
    if (Date.now() > deadline) throw new Error('the parked goal did not move to a short run');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The call the goal waits on, once it waits (the status query may replay it: before the clock). */
async function parkedCall(goal: ReturnType<typeof goalHandle>, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = await goalStatus(goal);
    const pending = status.pendingApprovals[0];
    if (pending) return pending.callId;
    if (status.status !== GoalStatus.Running)
      throw new Error(`the goal ended (${status.status}) before it parked: ${status.endReason ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the goal did not park within ${timeoutMs / 1000} s`);
}

/** Goals the worker can keep in memory: keel's least, so two other goals push one out. */
const CACHE = 2;

/** A keel goal of the parking scenario: `calls` in all, the last PARKING_CALLS of them irreversible. */
async function startParkingGoal(
  environment: BenchEnvironment,
  taskQueue: string,
  workflowId: string,
  workspace: string,
  calls: number,
): Promise<ReturnType<typeof goalHandle>> {
  const scenario = { kind: ScenarioKind.Parking, calls, perTurn: 1 };
  await startGoal(environment.client, {
    taskQueue,
    workflowId,
    input: {
      goal: scenarioPrompt(scenario),
      workspace,
      limits: { maxToolCalls: calls + 10, maxTurns: calls + 10 },
      guards: { enabled: false }, // as the comparison's keel goals: the loopback model never reflects
      sandbox: { network: true }, // every run_command irreversible: each waits for a decision
    },
  });
  return goalHandle(environment.client, workflowId);
}

/**
 * CACHE one-call goals that park on the same worker: started after the measured goal's status
 * query, they are the most recently used, so the measured goal is the one the cache let go.
 */
async function parkFillers(
  environment: BenchEnvironment,
  taskQueue: string,
  workspace: string,
  sample: number,
): Promise<Array<ReturnType<typeof goalHandle>>> {
  const fillers = [];
  for (let index = 0; index < CACHE; index++) {
    const workflowId = `${taskQueue}-filler-${sample}-${index}`;
    const filler = await startParkingGoal(environment, taskQueue, workflowId, workspace, 1);
    await parkedCall(filler, 60_000);
    fillers.push(filler);
  }
  return fillers;
}
