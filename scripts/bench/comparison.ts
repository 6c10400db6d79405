import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { chainHistory } from './history';
import { prepareWorkspace } from './bench-workspace';
import { ScenarioKind, type BenchScenario } from './bench-scenario';
import { spread, type Spread } from './stats';
import { SystemName, type BenchSystem } from './systems';

/** One goal of one system, measured. */
export interface GoalMeasurement {
  system: SystemName;
  scenario: string;
  calls: number;
  repetition: number;
  workflowId: string;
  firstRunId: string;
  completed: boolean;
  error?: string;
  toolCalls: number;
  wallMs: number;
  msPerCall: number;
  runs: number;
  events: number;
  bytes: number;
  largestRunEvents: number;
  largestRunBytes: number;
}

/** A system's row for one scenario: what the table prints. */
export interface SystemSummary {
  system: SystemName;
  scenario: string;
  calls: number;
  perTurn: number;
  repetitions: number;
  completed: number;
  msPerCall: Spread;
  /** ms per call over the floor's in the same repetition (paired, so drift cancels). */
  ratioToFloor: Spread | undefined;
  eventsPerCall: number;
  bytesPerCall: number;
  continueAsNewRuns: number;
  largestRunEvents: number;
  largestRunBytes: number;
  errors: string[];
}

export function scenarioLabel(scenario: BenchScenario): string {
  return scenario.kind === ScenarioKind.Parallel ? `parallel ×${scenario.perTurn}` : scenario.kind;
}

/**
 * Runs every system `repetitions` times on each scenario, interleaved: repetition by repetition,
 * the systems take turns, their order rotating, so a noisy neighbour hits each of them alike.
 */
export async function runComparison(options: {
  client: Client;
  systems: readonly BenchSystem[];
  scenarios: readonly BenchScenario[];
  repetitions: number;
  workspaceRoot: () => string;
  log: (line: string) => void;
}): Promise<{ measurements: GoalMeasurement[]; summaries: SystemSummary[] }> {
  const measurements: GoalMeasurement[] = [];
  const summaries: SystemSummary[] = [];
  for (const scenario of options.scenarios) {
    const label = scenarioLabel(scenario);
    const mine: GoalMeasurement[] = [];
    for (let repetition = 1; repetition <= options.repetitions; repetition++) {
      const order = rotate(options.systems, repetition - 1);
      for (const system of order) {
        const measurement = await measureGoal(
          options.client,
          system,
          scenario,
          repetition,
          options.workspaceRoot(),
        );
        mine.push(measurement);
        options.log(
          `bench: ${label} N=${scenario.calls} #${repetition} ${system.name}: ` +
            (measurement.completed
              ? `${measurement.msPerCall.toFixed(1)} ms/call, ${(measurement.events / measurement.calls).toFixed(1)} events/call, ${Math.round(measurement.bytes / measurement.calls)} B/call, ${measurement.runs} run(s)`
              : `FAILED: ${measurement.error ?? ''}`),
        );
      }
    }
    measurements.push(...mine);
    for (const system of options.systems) summaries.push(summarize(system.name, scenario, mine));
  }
  return { measurements, summaries };
}

export async function measureGoal(
  client: Client,
  system: BenchSystem,
  scenario: BenchScenario,
  repetition: number,
  workspace: string,
  id = `bench-${system.name}-${scenario.kind}-${scenario.calls}-${repetition}-${Date.now()}`,
): Promise<GoalMeasurement> {
  prepareWorkspace(workspace);
  const base = {
    system: system.name,
    scenario: scenarioLabel(scenario),
    calls: scenario.calls,
    repetition,
  };
  const started = performance.now();
  let goal;
  try {
    goal = await system.start(scenario, workspace, id);
    const { toolCalls, endedAt } = await withApprovals(goal, scenario.kind === ScenarioKind.Mixed);
    const wallMs = endedAt - started;
    const history = await chainHistory(client, goal.workflowId, goal.firstRunId);
    return {
      ...base,
      workflowId: goal.workflowId,
      firstRunId: goal.firstRunId,
      completed: toolCalls === scenario.calls,
      ...(toolCalls === scenario.calls ? {} : { error: `made ${toolCalls} of ${scenario.calls} calls` }),
      toolCalls,
      wallMs,
      msPerCall: wallMs / scenario.calls,
      runs: history.runs,
      events: history.events,
      bytes: history.bytes,
      largestRunEvents: history.largestRunEvents,
      largestRunBytes: history.largestRunBytes,
    };
  } catch (error) {
    const history = goal
      ? await chainHistory(client, goal.workflowId, goal.firstRunId).catch(() => undefined)
      : undefined;
    return {
      ...base,
      workflowId: goal?.workflowId ?? id,
      firstRunId: goal?.firstRunId ?? '',
      completed: false,
      error: error instanceof Error ? `${error.message}${causeText(error)}` : String(error),
      toolCalls: 0,
      wallMs: performance.now() - started,
      msPerCall: Number.NaN,
      runs: history?.runs ?? 0,
      events: history?.events ?? 0,
      bytes: history?.bytes ?? 0,
      largestRunEvents: history?.largestRunEvents ?? 0,
      largestRunBytes: history?.largestRunBytes ?? 0,
    };
  }
}

/**
 * Waits for the result, approving every waiting call as soon as it shows (polled every 20 ms).
 * The clock stops when the result arrives (`endedAt`), not when the approver has stopped: its
 * last status query may reach the goal after it closed, and a closed workflow answers a query by
 * replaying its whole history (seconds, for a keel goal of 100 calls), which the goal never waited
 * for. Counted in, it added up to 37 ms per call to some mixed repetitions and not to others.
 */
async function withApprovals(
  goal: { approvePending(): Promise<number>; result(): Promise<number> },
  approve: boolean,
): Promise<{ toolCalls: number; endedAt: number }> {
  const ended = (toolCalls: number) => ({ toolCalls, endedAt: performance.now() });
  if (!approve) return goal.result().then(ended);
  let done = false;
  const result = goal
    .result()
    .then(ended)
    .finally(() => (done = true));
  const approver = (async () => {
    while (!done) {
      await goal.approvePending().catch(() => 0); // a query racing the goal's end may fail
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    return await result;
  } finally {
    await approver;
  }
}

function summarize(
  system: SystemName,
  scenario: BenchScenario,
  measurements: readonly GoalMeasurement[],
): SystemSummary {
  const own = measurements.filter((measurement) => measurement.system === system);
  const done = own.filter((measurement) => measurement.completed);
  const floor = new Map(
    measurements
      .filter((measurement) => measurement.system === SystemName.Floor && measurement.completed)
      .map((measurement) => [measurement.repetition, measurement.msPerCall]),
  );
  const ratios = done
    .filter((measurement) => floor.has(measurement.repetition))
    .map((measurement) => measurement.msPerCall / floor.get(measurement.repetition)!);
  const perCall = (pick: (measurement: GoalMeasurement) => number) =>
    spread(done.map((measurement) => pick(measurement) / measurement.calls)).median;
  return {
    system,
    scenario: scenarioLabel(scenario),
    calls: scenario.calls,
    perTurn: scenario.perTurn,
    repetitions: own.length,
    completed: done.length,
    msPerCall: spread(done.map((measurement) => measurement.msPerCall)),
    ratioToFloor: ratios.length > 0 ? spread(ratios) : undefined,
    eventsPerCall: perCall((measurement) => measurement.events),
    bytesPerCall: perCall((measurement) => measurement.bytes),
    continueAsNewRuns: spread(done.map((measurement) => measurement.runs - 1)).median,
    largestRunEvents: Math.max(0, ...own.map((measurement) => measurement.largestRunEvents)),
    largestRunBytes: Math.max(0, ...own.map((measurement) => measurement.largestRunBytes)),
    errors: [...new Set(own.flatMap((measurement) => (measurement.error ? [measurement.error] : [])))],
  };
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function causeText(error: Error): string {
  let text = '';
  let cause: unknown = error.cause;
  while (cause instanceof Error) {
    text += ` ← ${cause.message}`;
    cause = cause.cause;
  }
  return text;
}
