/**
 * Sizes a catastrophic-regex input for the machine the evaluation runs on: a file that a
 * backtracking engine (V8's own RegExp, what `new RegExp(pattern).test(line)` per line uses) would
 * need about TARGET_MILLISECONDS to scan: well past the 2 s stall threshold, yet not minutes, since
 * an in-process stall cannot be interrupted. A linear-time engine reads it in microseconds.
 *
 * A line is grown until one match attempt on it takes LINE_MILLISECONDS, then repeated: the time
 * of several lines adds up exactly, where extrapolating a blow-up would be off by a factor of 2 or
 * 3 either way. Patterns V8 handles fast get one long line all the same.
 */

export interface CatastrophicInput {
  readonly pattern: string;
  readonly flags?: string;
  /** Repeated to grow the line, one whole unit at a time (growth differs between a unit's characters). */
  readonly unit: string;
  readonly prefix?: string;
  /** What makes the match fail at the end, forcing the backtracking. */
  readonly suffix: string;
  /** Units at most: beyond, the pattern would match instead of backtracking (`(.*a){25}` on 25 a's). */
  readonly maxUnits?: number;
}

const TARGET_MILLISECONDS = 4000;
const LINE_MILLISECONDS = 100;
/** Shorter runs are timed once; longer ones twice, keeping the faster (a busy machine adds, never subtracts). */
const TWICE_FROM_MILLISECONDS = 20;
/** Units at most in one line; characters at most in the file (search skips files over 1 MB). */
const MAX_UNITS = 60_000;
const MAX_FILE_CHARACTERS = 900_000;
const cache = new Map<string, string>();

/** The file content: the calibrated line, repeated, newline-terminated. */
export function catastrophicText(input: CatastrophicInput): string {
  const key = JSON.stringify(input);
  let text = cache.get(key);
  if (text === undefined) {
    text = calibrate(input);
    cache.set(key, text);
  }
  return text;
}

function build(input: CatastrophicInput, units: number): string {
  return `${input.prefix ?? ''}${input.unit.repeat(units)}${input.suffix}`;
}

function calibrate(input: CatastrophicInput): string {
  const limit = Math.min(MAX_UNITS, input.maxUnits ?? MAX_UNITS);
  let units = 1;
  let milliseconds = time(input, units);
  while (milliseconds < LINE_MILLISECONDS && units < limit) {
    // Under 0.02 ms an exponential cannot blow up much per fifth more (c·gⁿ < 0.02 ms bounds
    // g^(n/5) by ~5); past it, a twentieth more (a unit or two: ×4 at most for a doubling).
    const fraction = milliseconds < 0.02 ? 0.2 : 0.05;
    units = Math.min(limit, units + Math.max(1, Math.ceil(units * fraction)));
    milliseconds = time(input, units);
  }
  const line = build(input, units);
  if (milliseconds < 1) return `${line}\n`; // fast for V8 at any length: nothing to repeat
  const lines = Math.max(
    1,
    Math.min(
      Math.round(TARGET_MILLISECONDS / milliseconds),
      Math.floor(MAX_FILE_CHARACTERS / (line.length + 1)),
    ),
  );
  return `${line}\n`.repeat(lines);
}

function time(input: CatastrophicInput, units: number): number {
  const once = (): number => {
    const regex = new RegExp(input.pattern, input.flags ?? '');
    const line = build(input, units);
    const started = performance.now();
    regex.test(line);
    return performance.now() - started;
  };
  const first = once();
  return first < TWICE_FROM_MILLISECONDS ? first : Math.min(first, once());
}
