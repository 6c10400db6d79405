import type { Worker } from '@temporalio/worker';
import {
  hostServingStates,
  hostTransitions,
  rememberedStates,
  watcherLeader,
  type HostServing,
  type HostTransition,
} from '../client/host-liveness';
import { goalsBoundTo } from '../client/host-goals';
import { listKeelWorkers } from '../client/worker-heartbeats';
import { hostLivenessSignal } from '../workflows/goal/messages';

/**
 * Every keel worker runs a host watcher, so a goal parked on an approval — which makes no calls
 * and so never notices — still learns at once that its host died, without 1,000 parked goals
 * polling anything. Each heartbeat interval every watcher reads the worker heartbeats
 * (ListWorkers); only the first live worker by instance id acts (watcherLeader), and when a host
 * turns missing or comes back it signals the running goals bound to it (search attribute
 * KeelHost) with hostLiveness. The goals only record and show it.
 */

/** Signals sent at once: a host with 1,000 goals is told in a few seconds without a burst. */
const SIGNAL_CONCURRENCY = 16;

export interface HostWatcherLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface HostWatcherOptions {
  namespace: string;
  /** The shared task queue: its workers are the hosts watched, its goals the ones told. */
  taskQueue: string;
  instanceId: string;
  /** The heartbeat interval: how often it looks (0: heartbeats are off, nothing to watch). */
  intervalMs: number;
  log: HostWatcherLog;
}

/** Runs the watcher while `worker` runs (its run() is wrapped, like the worker's other companions). */
export function watchHostsWhileRunning(worker: Worker, options: HostWatcherOptions): void {
  if (options.intervalMs <= 0) return;
  const run = worker.run.bind(worker);
  worker.run = async () => {
    const watcher = startHostWatcher(worker, options);
    try {
      return await run();
    } finally {
      await watcher.stop();
    }
  };
}

export function startHostWatcher(worker: Worker, options: HostWatcherOptions): { stop(): Promise<void> } {
  let stopped = false;
  let remembered: Map<string, HostServing> | undefined;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  const look = async () => {
    const client = worker.client;
    if (client === undefined) return;
    try {
      const beats = await listKeelWorkers({
        connection: client.connection,
        namespace: options.namespace,
        taskQueue: options.taskQueue,
      });
      const judged = {
        beats,
        sharedTaskQueue: options.taskQueue,
        nowMs: Date.now(),
        fallbackIntervalMs: 60_000,
      };
      const now = hostServingStates(judged);
      const transitions = hostTransitions(remembered, now, judged.nowMs);
      failing = false;
      if (watcherLeader(judged) === options.instanceId)
        for (const transition of transitions) {
          if (stopped) return;
          await tell(worker, options, transition);
        }
      // Only once told: a round that failed half-way tells again (the goals ignore repeats).
      remembered = rememberedStates(remembered, now);
    } catch (error) {
      // A server without ListWorkers, or one briefly away: said once, not every round.
      if (!failing) options.log.warn(`host watcher: cannot read worker heartbeats (${firstLine(error)})`);
      failing = true;
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      round = look().finally(schedule);
    }, options.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await round;
    },
  };
}

/** Signals every running goal bound to the host; a goal that ended meanwhile is skipped. */
async function tell(worker: Worker, options: HostWatcherOptions, transition: HostTransition): Promise<void> {
  const client = worker.client;
  if (client === undefined) return;
  const goals = await goalsBoundTo({
    connection: client.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    host: transition.host,
  });
  if (goals.length > 0)
    options.log.info(
      `host ${transition.host} ${transition.state === 'missing' ? `missing since ${transition.since}` : 'is back'}: telling its ${goals.length} running goal(s)`,
    );
  const payload = { ...transition, by: options.instanceId };
  for (let start = 0; start < goals.length; start += SIGNAL_CONCURRENCY) {
    await Promise.all(
      goals.slice(start, start + SIGNAL_CONCURRENCY).map((workflowId) =>
        client.workflow
          .getHandle(workflowId)
          .signal(hostLivenessSignal, payload)
          .catch(() => undefined),
      ),
    );
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
