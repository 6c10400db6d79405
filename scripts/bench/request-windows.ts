/**
 * How requests bunch up in time, for the model API's bad days (api-bad-days.ts): times are
 * milliseconds from any common origin, in any order.
 */

/** Requests at `times` in [fromMs, toMs). */
export function countWithin(times: readonly number[], fromMs: number, toMs: number): number {
  return times.filter((time) => time >= fromMs && time < toMs).length;
}

/**
 * The most requests in any window of `windowMs` (a window [t, t + windowMs) starting at any
 * moment, not only on whole seconds: a burst across a second's boundary still counts as one).
 * The busiest window always starts at a request, so only those starts are tried.
 */
export function busiestWindow(times: readonly number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let busiest = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    const opens = sorted[start] as number;
    while (end < sorted.length && (sorted[end] as number) < opens + windowMs) end++;
    busiest = Math.max(busiest, end - start);
  }
  return busiest;
}
