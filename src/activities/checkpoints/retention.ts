/**
 * How long a goal's checkpoints are kept (checkpoint-store.ts): the latest N, those of the last T
 * milliseconds, or both.
 */
import type { Checkpoint } from './records';

/**
 * Which checkpoints a goal keeps: the latest retainTurns, and those taken within retainForMs of
 * `nowMs`; with both, a checkpoint goes when either says so. The newest is always kept.
 */
export interface Retention {
  retainTurns?: number | undefined;
  retainForMs?: number | undefined;
  /** The clock retainForMs is judged by (a test's own); Date.now() otherwise. */
  nowMs?: number | undefined;
}

export function checkedRetention(retention: Retention): Retention | undefined {
  const { retainTurns, retainForMs } = retention;
  if (retainTurns !== undefined && !(Number.isSafeInteger(retainTurns) && retainTurns >= 1))
    throw new Error(`retainTurns must be a whole number of at least 1, not ${retainTurns}`);
  if (retainForMs !== undefined && !(Number.isSafeInteger(retainForMs) && retainForMs >= 1))
    throw new Error(`retainForMs must be a whole number of milliseconds of at least 1, not ${retainForMs}`);
  return retainTurns === undefined && retainForMs === undefined ? undefined : retention;
}

/** How many of the oldest checkpoints (oldest first) the retention lets go: never the newest. */
export function foldedCount(
  checkpoints: ReadonlyArray<Pick<Checkpoint, 'at'>>,
  retention: Retention,
): number {
  const byTurns =
    retention.retainTurns === undefined ? 0 : Math.max(0, checkpoints.length - retention.retainTurns);
  let byTime = 0;
  if (retention.retainForMs !== undefined) {
    const oldestKeptMs = (retention.nowMs ?? Date.now()) - retention.retainForMs;
    while (byTime < checkpoints.length && Date.parse(checkpoints[byTime]?.at ?? '') < oldestKeptMs)
      byTime += 1;
  }
  return Math.min(Math.max(byTurns, byTime), Math.max(0, checkpoints.length - 1));
}
