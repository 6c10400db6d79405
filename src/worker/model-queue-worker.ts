import type { Worker, WorkerOptions } from '@temporalio/worker';
import { HostActivityWorker } from './host-worker';
import { WorkerOptionsError } from './connection';
import { modelTaskQueue } from '../workflows/hosts/host-queues';

/**
 * Rate limits shared by the fleet (issue 42): a goal sends its model calls to its queue's model
 * queue (modelTaskQueue), which every keel worker polls. Temporal's server paces how fast that
 * queue hands out activity tasks (the worker option maxTaskQueueActivitiesPerSecond: "the maximum
 * number of activities per second the task queue will dispatch, controlled server-side"), so the
 * requests per minute of one API key are held by the whole fleet — one worker's burst delays the
 * others' calls instead of earning 429s for all. No lock service: the server's matching service
 * is the one place every poll passes.
 */

export const MODEL_REQUESTS_PER_MINUTE_VARIABLE = 'KEEL_MODEL_REQUESTS_PER_MINUTE';

/**
 * The fleet's model requests per minute, or undefined for no limit. Off unless set: the API's
 * limits differ per organization tier and per model (tier 1 allows 50 a minute, tier 4 4,000), and
 * a guess would hold a large account to a small one's pace while 429s are waited out anyway
 * (retry-delay.ts). `false`, 0, `off` or an empty variable: none.
 */
export function modelRequestsPerMinute(
  given: number | false | undefined,
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  if (given === false) return undefined;
  if (given !== undefined) return checkedRate(given, 'modelRequestsPerMinute');
  const text = env[MODEL_REQUESTS_PER_MINUTE_VARIABLE]?.trim() ?? '';
  if (text === '' || text === '0' || text.toLowerCase() === 'off') return undefined;
  return checkedRate(Number(text), MODEL_REQUESTS_PER_MINUTE_VARIABLE);
}

function checkedRate(value: number, name: string): number | undefined {
  if (value === 0) return undefined;
  if (!Number.isFinite(value) || value < 0)
    throw new WorkerOptionsError(`${name}: a number of requests per minute (0 or off for no limit)`);
  return value;
}

/**
 * The share of the limit the queue dispatches at. A request reaches the API some milliseconds
 * after Temporal hands out its task, and not always the same number: two buckets paced at exactly
 * the same rate refuse whichever request arrives a little early (measured: a third of them at
 * 60 a minute), and a refused request spends a second dispatch on its retry.
 */
export const DISPATCH_SHARE = 0.9;

/** The activities the model queue runs: the model calls, nothing that touches a workspace. */
export interface ModelActivities {
  callModel: (...args: never[]) => unknown;
  callStructured: (...args: never[]) => unknown;
}

/**
 * The worker of the model queue: activities only, the model calls only. With a rate, its polls
 * tell the server the queue's dispatch rate; every worker of the fleet should be given the same
 * one, since the last poll's rate wins ("if multiple workers on the same queue have different
 * values set, they will thrash with the last poller winning": the SDK's WorkerOptions).
 */
export async function createModelQueueWorker(
  options: Omit<WorkerOptions, 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'> & {
    /** The goals' shared queue; the model queue is named after it. */
    sharedTaskQueue: string;
    activities: ModelActivities;
    requestsPerMinute: number | undefined;
  },
): Promise<Worker> {
  const { sharedTaskQueue, activities, requestsPerMinute, ...common } = options;
  return HostActivityWorker.create({
    ...common,
    taskQueue: modelTaskQueue(sharedTaskQueue),
    activities: { callModel: activities.callModel, callStructured: activities.callStructured },
    ...(requestsPerMinute === undefined
      ? {}
      : { maxTaskQueueActivitiesPerSecond: (requestsPerMinute * DISPATCH_SHARE) / 60 }),
  });
}

/**
 * Makes `main` run `alongside` with it: main.run() (which runUntil goes through) now runs both,
 * shuts `alongside` down when main ends, and shuts main down when `alongside` fails (its error is
 * thrown then, unless main failed too: main's error says more).
 */
export function runAlongside(main: Worker, alongside: Worker): void {
  const runMain = main.run.bind(main);
  let started = false;
  main.run = async () => {
    if (started) return runMain(); // the SDK's own "already started" error
    started = true;
    const otherRun = alongside.run().then(
      () => undefined,
      (error: unknown) => {
        stop(main);
        return { error };
      },
    );
    const mainFailure = await runMain().then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    stop(alongside);
    const otherFailure = await otherRun;
    const failure = mainFailure ?? otherFailure;
    if (failure !== undefined) throw failure.error;
  };
}

/** Shutdown is only allowed while running; a worker already stopping just finishes. */
function stop(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}

/** The start log's line about the model queue. */
export function modelQueueLine(sharedTaskQueue: string, requestsPerMinute: number | undefined): string {
  const limit =
    requestsPerMinute === undefined
      ? `no shared rate limit (${MODEL_REQUESTS_PER_MINUTE_VARIABLE} unset)`
      : `at most ${requestsPerMinute} model requests a minute across the fleet (${MODEL_REQUESTS_PER_MINUTE_VARIABLE})`;
  return `polling "${modelTaskQueue(sharedTaskQueue)}" for model calls, ${limit}`;
}
