import type { WorkflowHandle } from '@temporalio/client';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import { approvePending } from './chaos-approver';
import {
  disrupt,
  readOptional,
  retrying,
  sleep,
  startChaosEnvironment,
  type ChaosEnvironment,
} from './chaos-environment';
import { EFFECTS_FILE, chaosGoalInput } from './chaos-goal';
import { effectOutcome } from './chaos-outcome';
import { disruptionSchedule } from './chaos-schedule';
import {
  TIMED_OUT_WAITING,
  failureChain,
  type GoalRun,
  type ManyGoalsOptions,
  type ManyGoalsReport,
} from './many-goals-report';

/** Goals looked at (described, and queried for pending approvals) at once. */
const LOOKS_AT_ONCE = 10;

interface RunningGoal {
  readonly handle: WorkflowHandle<typeof goalWorkflow>;
  readonly workspace: string;
  readonly signaled: Set<string>;
  /** The execution's status once it left RUNNING. */
  status?: string;
  endedAt?: number;
}

/**
 * The many-goals chaos run: `goals` goals start at once, each in its own workspace making its own
 * approved irreversible appends, while the worker is killed (and the server restarted) at seeded
 * moments. There is no undisturbed run to compare with: each goal's file must hold every one of its
 * effects exactly once.
 */
export async function runManyGoals(
  options: ManyGoalsOptions & { log: (line: string) => void },
): Promise<ManyGoalsReport> {
  const { log, ...figures } = options;
  const environment = await startChaosEnvironment(options);
  try {
    const started = Date.now();
    const goals = await startGoals(environment, options);
    log(
      `chaos: ${goals.length} goals of ${options.calls} approved irreversible appends started; ` +
        `${options.kills} kills and ${options.restarts} server restarts to come (seed ${options.seed})`,
    );
    let allEnded = false;
    const disruption = disrupt(environment, disruptionSchedule(options), () => allEnded, log);
    await approveUntilEnded(goals, started + options.goalTimeoutMs, log);
    allEnded = true;
    const done = await disruption;
    const wallMs = Math.max(...goals.map((goal) => goal.endedAt ?? Date.now())) - started;
    const runs: GoalRun[] = [];
    for (const goal of goals) runs.push(await goalRun(goal, options.calls, started));
    log(`chaos: all goals ended or given up on after ${(wallMs / 1000).toFixed(1)} s`);
    return {
      options: figures,
      goals: runs,
      ...done,
      wallMs,
      modelRequests: environment.scripted.requests.length,
    };
  } finally {
    await environment.close();
  }
}

async function startGoals(environment: ChaosEnvironment, options: ManyGoalsOptions): Promise<RunningGoal[]> {
  const goals: RunningGoal[] = [];
  const runId = Date.now();
  for (let index = 1; index <= options.goals; index += 1) {
    const name = `goal-${String(index).padStart(3, '0')}`;
    const workspace = path.join(environment.root, name);
    mkdirSync(workspace);
    const handle = await environment.client.workflow.start(goalWorkflow, {
      taskQueue: environment.taskQueue,
      workflowId: `chaos-${name}-${runId}`,
      args: [chaosGoalInput(workspace, options.calls)],
    });
    goals.push({ handle, workspace, signaled: new Set() });
  }
  return goals;
}

/**
 * Looks at every running goal in turn, a few at once so 100 goals do not flood a small machine:
 * records the ones that ended and approves what the others wait for, until all ended or the
 * deadline passed (those left are marked as timed out).
 */
async function approveUntilEnded(
  goals: readonly RunningGoal[],
  deadline: number,
  log: (line: string) => void,
): Promise<void> {
  let lastLog = Date.now();
  for (;;) {
    const open = goals.filter((goal) => goal.status === undefined);
    if (open.length === 0) return;
    if (Date.now() >= deadline) {
      for (const goal of open) goal.status = 'TIMED_OUT_WAITING';
      return;
    }
    for (let start = 0; start < open.length; start += LOOKS_AT_ONCE)
      await Promise.all(open.slice(start, start + LOOKS_AT_ONCE).map(look));
    if (Date.now() - lastLog >= 10_000) {
      lastLog = Date.now();
      const approvals = goals.reduce((total, goal) => total + goal.signaled.size, 0);
      log(`chaos: ${goals.length - open.length} of ${goals.length} goals ended, ${approvals} approvals sent`);
    }
    await sleep(250);
  }
}

async function look(goal: RunningGoal): Promise<void> {
  try {
    const { status } = await goal.handle.describe();
    if (status.name !== 'RUNNING') {
      goal.status = status.name;
      goal.endedAt = Date.now();
      return;
    }
  } catch {
    return; // the server is restarting: look again next round
  }
  await approvePending(goal.handle, goal.signaled);
}

async function goalRun(goal: RunningGoal, calls: number, started: number): Promise<GoalRun> {
  const status = goal.status ?? 'TIMED_OUT_WAITING';
  let ended: { status: string; reason?: string } = {
    status: status === 'TIMED_OUT_WAITING' ? TIMED_OUT_WAITING : status.toLowerCase(),
  };
  if (status === 'COMPLETED') {
    const result = await retrying(() => goal.handle.result());
    ended = { status: result.status, ...(result.reason === undefined ? {} : { reason: result.reason }) };
  } else if (status !== 'TIMED_OUT_WAITING') {
    ended.reason = await goal.handle.result().then(
      () => 'ended without a failure',
      (error: unknown) => failureChain(error),
    );
  }
  const ledger = await retrying(() => goal.handle.query(ledgerQuery, {}));
  const effects = readOptional(path.join(goal.workspace, EFFECTS_FILE));
  return {
    workflowId: goal.handle.workflowId,
    ...ended,
    durationMs: (goal.endedAt ?? Date.now()) - started,
    ...effectOutcome({ effects, ledger, signaled: goal.signaled, calls }),
  };
}
