import os from 'node:os';
import v8 from 'node:v8';
import { HostSettingsError, resolveCount } from './host-settings';

/**
 * How many goals a worker keeps in its workflow cache. A cached goal keeps its workflow sandbox,
 * state and transcript in the worker's memory, so the next decision (an approval, a model answer)
 * costs no replay; an evicted goal is rebuilt from its history when its next task arrives. Goals
 * wait on humans for days, so without a bound a worker's memory grows with every goal nobody has
 * answered yet: the SDK's own default (about 600 per GiB of heap, 2,300 on a 4 GiB heap) lets
 * a worker grow to several GiB of parked goals.
 */

/**
 * What one cached parked goal keeps alive in the workflow thread's heap, measured (issue 26:
 * scripts/memory/parked-memory.ts, 2.0 MiB of V8 heap a goal once its schemas were built on first
 * use; 2.8 MiB before).
 */
export const PARKED_GOAL_MIB = 2.1;
/**
 * How much more than the cache keeps alive the workflow thread's heap holds between V8's
 * collections: every goal created or replayed evaluates the workflow modules anew, and V8 lets the
 * garbage of evicted goals pile up before it collects (measured: a cache of 167 goals at 2.8 MiB
 * kept 470 MiB alive while the worker's RSS ran up to 1.6 GiB over idle while 1,000 goals parked).
 */
export const GC_HEADROOM = 4;
/**
 * The share of the worker's memory the cache and its garbage may take: the rest is the worker's
 * own and its tools'. The cache is for goals at work: a goal that takes turns among more goals than
 * the cache holds is rebuilt from its history at every task. Measured (issue 41, docs/performance.md
 * "Many goals at once, measured"): 200 goals of 10 calls on one worker took 93 ms of workflow-thread
 * CPU a call with a cache of 61 (an eighth of memory) against 16 ms with 256, 3.7 times the calls
 * a second, and half the peak RSS (1.1 GiB against 2.1), since rebuilding makes more garbage than
 * caching holds. Half of memory gives 243 goals on a 4 GiB heap.
 */
export const CACHE_MEMORY_SHARE = 1 / 2;
/** Below this a worker would replay goals that merely take turns; above it, memory is the limit. */
export const CACHE_BOUNDS = { min: 10, max: 1_000 } as const;

/**
 * The default size: half the worker's memory (the smaller of V8's heap limit and the
 * machine's memory) divided by what a parked goal costs with V8's headroom, within CACHE_BOUNDS.
 * A 4 GiB heap gives 243 goals: about 510 MiB alive, up to about 2 GiB with garbage at most.
 */
export function defaultMaxCachedWorkflows(memory: { heapLimitMiB: number; totalMemoryMiB: number }): number {
  const memoryMiB = Math.min(memory.heapLimitMiB, memory.totalMemoryMiB);
  const goals = Math.floor((memoryMiB * CACHE_MEMORY_SHARE) / (PARKED_GOAL_MIB * GC_HEADROOM));
  return Math.min(CACHE_BOUNDS.max, Math.max(CACHE_BOUNDS.min, goals));
}

/** This process's memory, as defaultMaxCachedWorkflows reads it. */
export function workerMemory(): { heapLimitMiB: number; totalMemoryMiB: number } {
  const mebibyte = 1024 * 1024;
  return {
    heapLimitMiB: v8.getHeapStatistics().heap_size_limit / mebibyte,
    totalMemoryMiB: os.totalmem() / mebibyte,
  };
}

/**
 * The cache size: the option, else KEEL_MAX_CACHED_WORKFLOWS, else the default from memory. The
 * SDK needs at least 2 (it would quietly raise 1 to 2; 0 turns the cache off and replays every
 * task, which keel does not offer), so a smaller setting is one line at start.
 */
export function maxCachedWorkflows(
  option: number | undefined,
  env: NodeJS.ProcessEnv,
  memory: { heapLimitMiB: number; totalMemoryMiB: number } = workerMemory(),
): number {
  const size = resolveCount(
    option,
    'maxCachedWorkflows',
    env.KEEL_MAX_CACHED_WORKFLOWS,
    'KEEL_MAX_CACHED_WORKFLOWS',
    defaultMaxCachedWorkflows(memory),
  );
  if (size < 2)
    throw new HostSettingsError(
      `${option !== undefined ? 'the maxCachedWorkflows option' : 'KEEL_MAX_CACHED_WORKFLOWS'} must be at least 2, got ${size}`,
    );
  return size;
}
