/**
 * Companions that stop with a worker (MCP servers, stores, the connection), and a created worker
 * discarded unused so its connection can close.
 */
import type { Worker } from '@temporalio/worker';

/**
 * MCP servers started for a worker stop with it. Worker has no stop hook, so run() (which
 * runUntil also goes through) is wrapped: when it returns or throws, the servers are closed.
 */
export function closeWhenStopped(worker: Worker, close: () => Promise<void>): void {
  const run = worker.run.bind(worker);
  worker.run = async () => {
    try {
      return await run();
    } finally {
      await close();
    }
  };
}

/**
 * A created worker holds its connection until it has run: one that will not be used is run and
 * stopped at once, so the caller can still close the connection.
 */
export async function discardWorker(worker: Worker): Promise<void> {
  const running = worker.run();
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running.catch(() => undefined);
}
