import os from 'node:os';
import { HostSettingsError } from './host-settings';

/**
 * How many goals a worker lets make model calls at once (activities/model/goals-at-work.ts): the
 * others wait for a place, first come, first served, so goals started together finish one after
 * another instead of all at the batch's end.
 */
export const GOALS_AT_WORK_VARIABLE = 'KEEL_GOALS_AT_WORK';

/**
 * The default: enough goals to keep the worker's cores busy while each goal waits for its model
 * and tools, few enough that the goals at work have the workflow thread to themselves.
 * Measured (docs/performance.md, "Goals at work"): 200 goals of 10 calls on one worker (2 cores)
 * with 8 places finished their batch in 48 s against 79 s with no bound, at 41.6 tool calls a
 * second against 25.3, the median goal at 58% of the batch against 89%.
 */
export function defaultGoalsAtWork(cores: number = os.availableParallelism()): number {
  return Math.max(8, 4 * cores);
}

/**
 * The bound: the option, else KEEL_GOALS_AT_WORK, else the default; `false`, 0 or `off` for none
 * (every goal at work at once, taking turns, as before the bound).
 */
export function goalsAtWork(
  option: number | false | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cores?: number,
): number | undefined {
  if (option === false || option === 0) return undefined;
  if (option !== undefined) {
    if (Number.isSafeInteger(option) && option > 0) return option;
    throw new HostSettingsError(
      `the goalsAtWork option must be a positive whole number or false, got ${option}`,
    );
  }
  const text = env[GOALS_AT_WORK_VARIABLE]?.trim() ?? '';
  if (text === '') return defaultGoalsAtWork(cores);
  if (text === '0' || text.toLowerCase() === 'off') return undefined;
  if (/^\d+$/.test(text) && Number(text) <= 100_000) return Number(text);
  throw new HostSettingsError(
    `${GOALS_AT_WORK_VARIABLE} must be a positive whole number, 0 or off, got "${text}"`,
  );
}
