import type { Client } from '@temporalio/client';
import { ScenarioKind } from './bench-scenario';
import { measureGoal } from './comparison';
import { chainHistory, firstRunIdOf } from './history';
import type { BenchSystem } from './systems';

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
