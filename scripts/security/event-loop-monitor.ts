/**
 * Measures whether a call blocks the worker's event loop: a 10 ms interval timer runs while the
 * call does, and the longest gap between its ticks is how long nothing else could run (another
 * goal's workflow task, a heartbeat). A gap over STALL_MILLISECONDS is a stall.
 */
export const STALL_MILLISECONDS = 2000;
const TICK_MILLISECONDS = 10;

export interface EventLoopMonitor {
  /** Stops the timer; the longest gap between ticks (or since the last tick), in milliseconds. */
  stop(): number;
}

export function monitorEventLoop(): EventLoopMonitor {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, TICK_MILLISECONDS);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}
