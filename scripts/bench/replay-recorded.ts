import { performance } from 'node:perf_hooks';
import { Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import type { BenchEnvironment } from './bench-environment';
import { chainHistory } from './history';
import { spread, type Spread } from './stats';

export interface ReplayResult {
  calls: number;
  runs: number;
  events: number;
  /** Every run replayed by one Worker.runReplayHistories, its replay worker's start included. */
  replayMs: number;
  msPerEvent: number;
  /** Of replayMs: starting and stopping the replay worker (the same call with no history). */
  replayWorkerMs: number;
  /** Each run's replay, from the previous run's result to its own (the first after the worker start). */
  runMs: Spread;
  failures: string[];
}

/**
 * Replays every run of a recorded goal with keel's prebuilt workflow bundle (nothing is bundled
 * here), timing the replay alone: the histories are fetched before the clock starts.
 */
export async function replayRecorded(
  environment: BenchEnvironment,
  recorded: { workflowId: string; firstRunId: string; calls: number },
): Promise<ReplayResult> {
  const { runIds } = await chainHistory(environment.client, recorded.workflowId, recorded.firstRunId);
  const histories = [];
  for (const runId of runIds) {
    histories.push({
      workflowId: recorded.workflowId,
      history: await environment.client.workflow.getHandle(recorded.workflowId, runId).fetchHistory(),
    });
  }
  const events = histories.reduce((sum, entry) => sum + (entry.history.events?.length ?? 0), 0);
  const options = { workflowBundle: environment.keelBundle, dataConverter: dataConverterFromEnv() };
  // The fixed part: the replay worker loads the bundle into its VM context (replay runs in this
  // thread: the SDK's replay default is debugMode) before the first history.
  let started = performance.now();
  for await (const _ of Worker.runReplayHistories(options, [])) {
    // no history: nothing is yielded
  }
  const replayWorkerMs = performance.now() - started;
  const failures: string[] = [];
  const runMs: number[] = [];
  started = performance.now();
  let previous = started;
  for await (const result of Worker.runReplayHistories(options, histories)) {
    const now = performance.now();
    runMs.push(now - previous);
    previous = now;
    if (result.error) failures.push(`${result.runId}: ${result.error.message}`);
  }
  const replayMs = performance.now() - started;
  return {
    calls: recorded.calls,
    runs: runIds.length,
    events,
    replayMs,
    msPerEvent: replayMs / Math.max(1, events),
    replayWorkerMs,
    runMs: spread(runMs),
    failures,
  };
}
