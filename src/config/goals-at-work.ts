import os from 'node:os';
import { HostSettingsError } from './host-settings';

/**
 * How many goals a worker lets make model calls at once (activities/model/goals-at-work.ts): the
 * others wait for a place, first come, first served, so goals started together finish one after
 * another instead of all at the batch's end.
 */
export const GOALS_AT_WORK_VARIABLE = 'KEEL_GOALS_AT_WORK';

/**
 * A number to try, `KEEL_GOALS_AT_WORK=auto`: enough goals to keep the worker's cores busy while
 * each waits for its model and tools, few enough that the goals at work have the workflow thread to
 * themselves. Off unless asked for: it brings the median goal of a batch in sooner at fewer calls a
 * second, and costs time and memory when the worker holds more goals than its cache (measured in
 * docs/performance.md, "Goals at work").
 */
export function defaultGoalsAtWork(cores: number = os.availableParallelism()): number {
  return Math.max(8, 4 * cores);
}

/**
 * The bound: the option, else KEEL_GOALS_AT_WORK (a number, or `auto` for 4 a core and at least
 * 8); unset, `false`, 0 or `off` for none: every goal at work at once, taking turns.
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
  const text = env[GOALS_AT_WORK_VARIABLE]?.trim().toLowerCase() ?? '';
  if (text === '' || text === '0' || text === 'off') return undefined;
  if (text === 'auto') return defaultGoalsAtWork(cores);
  if (/^\d+$/.test(text) && Number(text) <= 100_000) return Number(text);
  throw new HostSettingsError(
    `${GOALS_AT_WORK_VARIABLE} must be a positive whole number, auto, 0 or off, got "${text}"`,
  );
}
