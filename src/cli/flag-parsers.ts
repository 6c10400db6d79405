/** Parsers of flag values (numbers, durations, tool globs): a bad value is commander's one line. */
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../workflows/common/duration';

export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0)
    throw new InvalidArgumentError('must be a positive whole number');
  return number;
}

export function wholeNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new InvalidArgumentError('must be a whole number (0 or more)');
  return number;
}

/** "read_file, search,github__*" → ["read_file", "search", "github__*"]; the worker matches them. */
export function toolGlobs(value: string): string[] {
  const globs = value
    .split(',')
    .map((glob) => glob.trim())
    .filter((glob) => glob !== '');
  if (globs.length === 0) throw new InvalidArgumentError('name at least one tool or glob');
  return globs;
}

export function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('must be a positive number');
  return number;
}

/**
 * The longest duration a flag takes: a year. keel's durations are waits and deadlines of one goal
 * (an approval, model patience, wall time, a host); one past a year is a typo (`99999999h` set a
 * deadline in the year 13434), and it keeps timers far inside what Temporal and JS dates hold.
 */
export const MAX_DURATION_MS = 365 * 86_400_000;

export function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InvalidArgumentError('must be a duration such as 90s, 30m, 24h or 7d');
  if (ms > MAX_DURATION_MS) throw new InvalidArgumentError('must be at most 365d');
  return ms;
}
