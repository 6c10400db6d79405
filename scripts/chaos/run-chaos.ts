import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { startApprover } from './chaos-approver';
import {
  disrupt,
  readOptional,
  retrying,
  seconds,
  startChaosEnvironment,
  waitForEnd,
  type ChaosEnvironment,
} from './chaos-environment';
import { EFFECTS_FILE, chaosGoalInput } from './chaos-goal';
import { effectOutcome, type EffectOutcome } from './chaos-outcome';
import { disruptionSchedule } from './chaos-schedule';

export { seconds } from './chaos-environment';
export type { UnknownOutcome } from './chaos-outcome';

export interface ChaosOptions {
  /** Irreversible appends the goal makes, one a turn, each approved by signal. */
  readonly calls: number;
  /** Worker kills (SIGKILL) during the disturbed run. */
  readonly kills: number;
  /** Dev server restarts (same port and SQLite file) during the disturbed run. */
  readonly restarts: number;
  readonly seed: number;
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  /** Give up on a goal that has not ended after this long. */
  readonly goalTimeoutMs: number;
  readonly log: (line: string) => void;
}

export interface RunFigures {
  readonly status: string;
  readonly durationMs: number;
  readonly toolCalls: number;
  readonly modelRequests: number;
  readonly effectLines: number;
}

export interface ChaosReport extends EffectOutcome {
  readonly options: Omit<ChaosOptions, 'log'>;
  readonly undisturbed: RunFigures;
  readonly disturbed: RunFigures;
  readonly killsDone: number;
  readonly restartsDone: number;
  readonly completed: boolean;
  readonly finalStateEqual: boolean;
}

/**
 * Runs the chaos experiment: an undisturbed goal, then the same goal while the worker is killed
 * and the dev server restarted at seeded random moments. Everything is real and its own: a dev
 * server on a SQLite file, worker processes, a loopback model, approvals sent as signals.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { log } = options;
  const environment = await startChaosEnvironment(options);
  try {
    const runGoal = async (name: string, disruptWhile?: (ended: () => boolean) => Promise<unknown>) =>
      runOneGoal(environment, options, name, disruptWhile);

    log(`chaos: undisturbed run of ${options.calls} approved irreversible appends`);
    const calm = await runGoal('undisturbed');
    log(`chaos: undisturbed run ${calm.figures.status} in ${seconds(calm.figures.durationMs)}`);

    const schedule = disruptionSchedule(options);
    log(
      `chaos: disturbed run: ${options.kills} kills and ${options.restarts} server restarts (seed ${options.seed})`,
    );
    let done = { killsDone: 0, restartsDone: 0 };
    const storm = await runGoal('disturbed', async (ended) => {
      done = await disrupt(environment, schedule, ended, log);
    });
    log(`chaos: disturbed run ${storm.figures.status} in ${seconds(storm.figures.durationMs)}`);
    return report({ options, calm, storm, ...done });
  } finally {
    await environment.close();
  }
}

async function runOneGoal(
  environment: ChaosEnvironment,
  options: ChaosOptions,
  name: string,
  disruptWhile?: (ended: () => boolean) => Promise<unknown>,
) {
  const { client, scripted } = environment;
  const workspace = path.join(environment.root, name);
  mkdirSync(workspace);
  const requestsBefore = scripted.requests.length;
  const started = Date.now();
  const handle = await client.workflow.start(goalWorkflow, {
    taskQueue: environment.taskQueue,
    workflowId: `chaos-${name}-${Date.now()}`,
    args: [chaosGoalInput(workspace, options.calls)],
  });
  const approver = startApprover(handle);
  let ended = false;
  const disruption = disruptWhile?.(() => ended);
  const status = await waitForEnd(handle, options.goalTimeoutMs);
  ended = true;
  await disruption;
  await approver.stop();
  const result = status === 'COMPLETED' ? await handle.result() : undefined;
  const ledger = await retrying(() => handle.query(ledgerQuery, {}));
  const effects = readOptional(path.join(workspace, EFFECTS_FILE));
  return {
    figures: {
      status: result?.status ?? status.toLowerCase(),
      durationMs: Date.now() - started,
      toolCalls: result?.counters.toolCalls ?? 0,
      modelRequests: scripted.requests.length - requestsBefore,
      effectLines: effects.split('\n').filter(Boolean).length,
    },
    effects,
    ledger,
    signaled: approver.signaled,
  };
}

function report(input: {
  options: ChaosOptions;
  calm: { figures: RunFigures; effects: string };
  storm: { figures: RunFigures; effects: string; ledger: LedgerEvent[]; signaled: ReadonlySet<string> };
  killsDone: number;
  restartsDone: number;
}): ChaosReport {
  const { options, calm, storm } = input;
  const { log: _log, ...figures } = options;
  return {
    options: figures,
    undisturbed: calm.figures,
    disturbed: storm.figures,
    killsDone: input.killsDone,
    restartsDone: input.restartsDone,
    completed: storm.figures.status === 'completed',
    ...effectOutcome({ ...storm, calls: options.calls }),
    finalStateEqual: storm.effects === calm.effects,
  };
}
