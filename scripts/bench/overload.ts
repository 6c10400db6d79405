import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@temporalio/client';
import { NativeConnection, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import { createModelActivities } from '../../src/activities/model/model-activity';
import { createMemoryReflectionStore } from '../../src/activities/reflection-store/memory-reflection-store';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { startScriptedMessagesServer } from '../../src/scripted-model/scripted-messages-server';
import { createKeelWorker } from '../../src/worker';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { tempDirectory } from '../../test/support/temp-directory';
import { workflowBundle } from '../../test/support/temporal';
import { spread, type Spread } from './stats';
import { busiestWindow, countWithin } from './request-windows';
import { connectTemporal } from '../../src/client/temporal-connection';

/**
 * A stretch of overload (the model API's bad days, issue 42): `goals` goals start together and
 * the scripted Messages server answers every request 529 overloaded_error for `outageMs` from the
 * first one (bad-days.ts; the goals share one scenario and turn, so one outage for all), then
 * answers. Run with keel's backoff (full jitter, 10 s cap) or the one keel had before: 1 s
 * doubling to a 60 s cap, every goal waiting exactly as long.
 */
export const Backoff = { FullJitter: 'full jitter', NoJitter: 'no jitter' } as const;
export type Backoff = (typeof Backoff)[keyof typeof Backoff];

/** The old policy's cap; keel's own is retry-delay.ts's RETRY_CAP_MS (10 s). */
export const NO_JITTER_CAP_MS = 60_000;
/**
 * The top of every window: retryDelayMs draws floor(random() × window), so this waits the whole
 * window less a millisecond (random() is in [0, 1): 1 itself is not a draw).
 */
const TOP_OF_THE_WINDOW = () => 1 - Number.EPSILON;

export interface OverloadOptions {
  address: string;
  backoff: Backoff;
  goals: number;
  outageMs: number;
}

export interface OverloadRun {
  backoff: Backoff;
  goals: number;
  completed: number;
  outageMs: number;
  /** Requests the server refused with 529: all the goals sent while it was overloaded. */
  requestsDuringOutage: number;
  requestsInFirst10s: number;
  /** The most requests within any one second of the outage. */
  busiestSecond: number;
  /** Per goal, from the outage's end to its first answered request. */
  outageEndToFirstSuccessMs: Spread;
  elapsedMs: number;
}

const MATCH = 'BAD-DAYS-OVERLOAD';

export async function runOverload(options: OverloadOptions): Promise<OverloadRun> {
  const scripted = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'overload',
        match: MATCH,
        turns: [
          { text: 'answered after the overload', faults: [{ kind: 'overloaded', forMs: options.outageMs }] },
        ],
      },
    ],
  });
  const anthropic = new Anthropic({ apiKey: 'overload-key', baseURL: scripted.url, maxRetries: 0 });
  const noJitter = options.backoff === Backoff.NoJitter;
  const taskQueue = `keel-overload-${noJitter ? 'no-jitter' : 'jitter'}-${process.pid}-${Date.now()}`;
  const clientConnection = await connectTemporal({ address: options.address });
  const client = new Client({ connection: clientConnection, dataConverter: dataConverterFromEnv() });
  // The connection hands its plugins to every worker built on it: createKeelWorker stays as it
  // ships, and only the model activities are swapped for ones whose every wait is the window.
  const swap = modelActivitiesPlugin(anthropic);
  const connection = await NativeConnection.connect({
    address: options.address,
    plugins: noJitter ? [swap.plugin] : [],
  });
  try {
    const worker = await createKeelWorker({
      connection,
      namespace: 'default',
      taskQueue,
      hostId: 'overload',
      anthropic,
      modelRequestsPerMinute: false,
      journalDirectory: tempDirectory('keel-journal-'),
      backupDirectory: tempDirectory('keel-backups-'),
      modelRequestStore: false,
      reflectionStore: createMemoryReflectionStore(),
      ledgerSinks: [],
      workflowBundle: await workflowBundle(),
      mcpServers: false,
      tracing: false,
    });
    if (noJitter && swap.swapped() === 0) throw new Error('no worker took the no-jitter model activities');
    const started = Date.now();
    const statuses = await worker.runUntil(() =>
      Promise.all(
        Array.from({ length: options.goals }, (_, index) =>
          client.workflow.execute(goalWorkflow, {
            taskQueue,
            workflowId: `${taskQueue}-goal-${index}`,
            args: [
              {
                goal: `${MATCH} goal ${index}: answer`,
                workspace: tempDirectory('keel-overload-'),
                ...(noJitter ? { timing: { modelRetryCapMs: NO_JITTER_CAP_MS } } : {}),
              },
            ],
          }),
        ),
      ),
    );
    const elapsedMs = Date.now() - started;
    const requests = scripted.requests.filter((request) => request.scenario === 'overload');
    const outageStart = requests[0]?.receivedAt ?? started;
    const refused = requests.filter((request) => request.status === 529);
    const refusedAt = refused.map((request) => request.receivedAt - outageStart);
    const outageEnd = outageStart + options.outageMs;
    const recoveries = Array.from({ length: options.goals }, (_, index) => {
      const first = requests.find((request) => request.status === 200 && goalOf(request.body) === index);
      return first === undefined ? Number.NaN : first.receivedAt - outageEnd;
    });
    return {
      backoff: options.backoff,
      goals: options.goals,
      completed: statuses.filter((result) => result.status === 'completed').length,
      outageMs: options.outageMs,
      requestsDuringOutage: refused.length,
      requestsInFirst10s: countWithin(refusedAt, 0, 10_000),
      busiestSecond: busiestWindow(refusedAt),
      outageEndToFirstSuccessMs: spread(recoveries.filter(Number.isFinite)),
      elapsedMs,
    };
  } finally {
    await connection.close();
    await clientConnection.close();
    await scripted.close();
  }
}

/** Which goal sent a request: its number is in the goal's text, which every request carries. */
function goalOf(body: unknown): number | undefined {
  const match = new RegExp(`${MATCH} goal (\\d+)`).exec(JSON.stringify(body));
  return match ? Number(match[1]) : undefined;
}

/**
 * Replaces the model activities of every worker that registers them with no-jitter ones, and
 * counts the workers it changed (none would mean the run measured keel's own backoff).
 */
function modelActivitiesPlugin(anthropic: Anthropic): { plugin: WorkerPlugin; swapped: () => number } {
  const model = createModelActivities({ client: anthropic, random: TOP_OF_THE_WINDOW });
  let swapped = 0;
  const plugin: WorkerPlugin = {
    name: 'keel-bench-backoff-without-jitter',
    configureWorker(options: WorkerOptions): WorkerOptions {
      const activities = options.activities as Record<string, unknown> | undefined;
      if (activities?.callModel === undefined) return options;
      swapped += 1;
      return {
        ...options,
        activities: { ...activities, ...model }, // callModel and callStructured
      };
    },
  };
  return { plugin, swapped: () => swapped };
}
