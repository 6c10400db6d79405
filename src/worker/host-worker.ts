import type { Logger } from '@temporalio/common';
import { Worker } from '@temporalio/worker';

/** Which host a keel worker serves, and the worker that polls that host's own queue. */
export interface KeelHost {
  hostId: string;
  /** hostTaskQueue(taskQueue, hostId): tool calls, backups and the journal of bound goals. */
  hostTaskQueue: string;
  /** Absolute paths the host serves workspaces under; empty: any path. */
  workspaceRoots: readonly string[];
  /** This worker process among the host's (WORKER_INSTANCE_ID, in its identity and tool results). */
  instanceId: string;
  /** The disk of the first workspace root, as its marker names it (host-claim); none without roots. */
  diskId?: string;
  /** Joined a host id another live process held, on the same disk (--replica). */
  replicaOf: readonly string[];
  /** The activities-only worker on hostTaskQueue; run and stopped with the keel worker. */
  hostWorker: Worker;
}

const hosts = new WeakMap<Worker, KeelHost>();

/**
 * The host of a worker createKeelWorker made (undefined for any other): tests and embedders read
 * the host id and its queue here, since createKeelWorker returns the SDK's own Worker.
 */
export function keelHostOf(worker: Worker): KeelHost | undefined {
  return hosts.get(worker);
}

/**
 * Makes `main` (the shared queue's worker) run its host's worker alongside: createKeelWorker
 * returns one Worker, whose run() — which runUntil goes through — now runs both. When the main
 * worker ends (returns or throws), the host worker is shut down and awaited; when the host worker
 * fails, the main one is shut down and the host's error is thrown.
 */
export function runWithHostWorker(main: Worker, host: KeelHost): void {
  hosts.set(main, host);
  const runMain = main.run.bind(main);
  let started = false;
  main.run = async () => {
    if (started) return runMain(); // the SDK's own "already started" error, the host left alone
    started = true;
    const hostRun = host.hostWorker.run().then(
      () => undefined,
      (error: unknown) => {
        stop(main);
        return { error };
      },
    );
    const mainRun = await runMain().then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    stop(host.hostWorker);
    const hostFailure = await hostRun;
    const failure = mainRun ?? hostFailure; // the main worker's error says more, when both fail
    if (failure !== undefined) throw failure.error;
  };
}

/** Shutdown is only allowed while running; a worker already stopping just finishes. */
function stop(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}

const NO_WORKFLOWS_WARNING = 'No workflows registered, not polling for workflow tasks';

/**
 * The worker of a host's own queue: activities only, by design. The SDK warns at every start of
 * such a worker that it polls no workflow tasks; this one keeps that warning to itself (and logs
 * everything else as any worker). Create it with `HostActivityWorker.create` like a Worker.
 */
export class HostActivityWorker extends Worker {
  // Runs after Worker's constructor has set its logger (the cast: TypeScript cannot see that).
  protected override readonly logger: Logger = withoutMessage(
    (this as unknown as { logger: Logger }).logger,
    NO_WORKFLOWS_WARNING,
  );
}

function withoutMessage(logger: Logger, dropped: string): Logger {
  return {
    log: (level, message, meta) => {
      if (message !== dropped) logger.log(level, message, meta);
    },
    trace: (message, meta) => void logger.trace(message, meta),
    debug: (message, meta) => void logger.debug(message, meta),
    info: (message, meta) => void logger.info(message, meta),
    warn: (message, meta) => {
      if (message !== dropped) logger.warn(message, meta);
    },
    error: (message, meta) => void logger.error(message, meta),
  };
}
