import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createMemoryReflectionStore } from '../../src/activities/reflection-store/memory-reflection-store';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { startRateLimitedEndpoint } from '../../src/scripted-model/rate-limit';
import { startScriptedMessagesServer } from '../../src/scripted-model/scripted-messages-server';
import { createKeelWorker } from '../../src/worker';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { tempDirectory } from './temp-directory';
import { workflowBundle } from './temporal';
import { connectTemporal } from '../../src/client/temporal-connection';

/**
 * A fleet of keel workers sharing one API key (issue 42, rate limits shared by the fleet): the
 * scripted model behind the API's per-key request limit (rate-limit.ts), `workers` workers on one
 * queue, `goals` tiny goals of 1 to 3 model turns each. Used by
 * test/integration/shared-rate-limit.test.ts and scripts/bench/shared-rate-limit.ts.
 */
export interface FleetOptions {
  address: string;
  /** The key's limit at the endpoint, and (when `shared`) the fleet's setting. */
  requestsPerMinute: number;
  /** Whether the workers hold the limit together (KEEL_MODEL_REQUESTS_PER_MINUTE). */
  shared: boolean;
  workers?: number;
  goals?: number;
  /** The goals' timing settings (e.g. a shorter retry cap); keel's defaults otherwise. */
  timing?: GoalInput['timing'];
}

export interface FleetRun {
  completed: number;
  goals: number;
  /** Every request the fleet sent the endpoint, and those refused with 429. */
  requests: number;
  limited: number;
  /** Requests that passed, per what the limit allows from the first request to the last that passed. */
  limitUsed: number;
  elapsedMs: number;
  /** Each request's time from the first (ms), and whether it was refused. */
  timeline: { atMs: number; limited: boolean }[];
}

const KEY = 'fleet-key';
/**
 * The endpoint's bucket holds two seconds of requests (at least two). The API's holds more (its
 * capacity is "continuously replenished up to your maximum limit"), so this is stricter than the
 * API; one second's worth would refuse the two or three tasks Temporal hands out at once when a
 * rate-limited queue wakes (measured: 0, 16 and 271 ms at 1.8 a second), which the API does not.
 */
function burstOf(requestsPerMinute: number): number {
  return Math.max(2, Math.floor(requestsPerMinute / 30));
}

/** Turns 1..n-1 list the workspace; the last one answers: a goal of n model calls. */
function scenario(turns: number) {
  const list = { toolCalls: [{ name: 'list_dir', input: { path: '.' } }] };
  return {
    name: `fleet-${turns}`,
    match: `FLEET-${turns}-TURNS`,
    turns: [...Array.from({ length: turns - 1 }, () => list), { text: `done in ${turns} turns` }],
  };
}

export async function runFleet(options: FleetOptions): Promise<FleetRun> {
  const workers = options.workers ?? 3;
  const goals = options.goals ?? 10;
  const scripted = await startScriptedMessagesServer({ scenarios: [scenario(1), scenario(2), scenario(3)] });
  const endpoint = await startRateLimitedEndpoint({
    target: scripted.url,
    requestsPerMinute: options.requestsPerMinute,
    burst: burstOf(options.requestsPerMinute),
  });
  // A queue of its own: the server keeps a queue's rate while it is loaded.
  const taskQueue = `keel-fleet-${options.shared ? 'shared' : 'alone'}-${process.pid}-${Date.now()}`;
  const clientConnection = await connectTemporal({ address: options.address });
  const client = new Client({ connection: clientConnection, dataConverter: dataConverterFromEnv() });
  const connections: NativeConnection[] = [];
  try {
    const bundle = await workflowBundle();
    const fleet: Worker[] = [];
    for (let index = 1; index <= workers; index++) {
      const connection = await NativeConnection.connect({ address: options.address });
      connections.push(connection);
      fleet.push(
        await createKeelWorker({
          connection,
          namespace: 'default',
          taskQueue,
          hostId: `fleet-${index}`,
          anthropic: new Anthropic({ apiKey: KEY, baseURL: endpoint.url, maxRetries: 0 }),
          modelRequestsPerMinute: options.shared ? options.requestsPerMinute : false,
          journalDirectory: tempDirectory('keel-journal-'),
          backupDirectory: tempDirectory('keel-backups-'),
          modelRequestStore: false,
          reflectionStore: createMemoryReflectionStore(),
          ledgerSinks: [],
          workflowBundle: bundle,
          mcpServers: false,
          tracing: false,
        }),
      );
    }
    const started = Date.now();
    const runGoals = async () => {
      const results = await Promise.all(
        Array.from({ length: goals }, (_, index) => {
          const workspace = tempDirectory('keel-fleet-');
          writeFileSync(path.join(workspace, 'notes.md'), 'a file to list\n');
          return client.workflow.execute(goalWorkflow, {
            taskQueue,
            workflowId: `${taskQueue}-goal-${index}`,
            args: [
              {
                goal: `FLEET-${(index % 3) + 1}-TURNS: list the workspace, then say done`,
                workspace,
                ...(options.timing === undefined ? {} : { timing: options.timing }),
              },
            ],
          });
        }),
      );
      return results.filter((result) => result.status === 'completed').length;
    };
    const completed = await runAll(fleet, runGoals);
    const elapsedMs = Date.now() - started;
    const first = endpoint.requests[0]?.at ?? 0;
    const timeline = endpoint.requests.map((request) => ({
      atMs: request.at - first,
      limited: request.limited,
    }));
    return {
      completed,
      goals,
      ...figures(endpoint.requests, options.requestsPerMinute),
      elapsedMs,
      timeline,
    };
  } finally {
    await Promise.all(connections.map((connection) => connection.close()));
    await clientConnection.close();
    await endpoint.close();
    await scripted.close();
  }
}

/** Runs every worker until `fn` is done, then stops them all. */
async function runAll<T>(workers: Worker[], fn: () => Promise<T>): Promise<T> {
  const [first, ...others] = workers;
  if (first === undefined) return fn();
  return first.runUntil(() => runAll(others, fn));
}

function figures(
  requests: readonly { at: number; limited: boolean }[],
  requestsPerMinute: number,
): Pick<FleetRun, 'requests' | 'limited' | 'limitUsed'> {
  const passed = requests.filter((request) => !request.limited);
  const first = requests[0]?.at ?? 0;
  const last = passed.at(-1)?.at ?? first;
  // The burst the bucket starts with, plus its refill over the span.
  const allowed = burstOf(requestsPerMinute) + ((last - first) * requestsPerMinute) / 60_000;
  return {
    requests: requests.length,
    limited: requests.length - passed.length,
    limitUsed: passed.length / allowed,
  };
}
