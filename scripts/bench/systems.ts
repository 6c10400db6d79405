import path from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createMemoryReflectionStore } from '../../src/activities/reflection-store/memory-reflection-store';
import {
  decideApproval,
  goalHandle,
  goalStatus,
  startGoal,
  type GoalHandle,
} from '../../src/client/goal-client';
import { followGoalEvents } from '../../src/client/goal-events';
import { createKeelWorker, createToolRegistry } from '../../src/worker';
import { GoalStatus } from '../../src/workflows/goal/lifecycle/state';
import { createBenchActivities } from './bench-activities';
import type { BenchEnvironment } from './bench-environment';
import { ScenarioKind, scenarioPrompt, type BenchScenario } from './bench-scenario';
import { approveCallSignal, pendingCallsQuery } from './workflows/approval-gate';
import type { LoopResult } from './workflows/floor-types';
import { createFileModelRequestStore } from '../../src/activities/model/request-store/file-model-request-store';

/**
 * The three systems compared, each a worker on its own task queue of the same server, and keel
 * again with a viewer following each goal's live event stream (client/goal-events.ts) on keel's
 * worker: what a viewer costs in history events and time per call.
 */
export const SystemName = {
  Keel: 'keel',
  KeelViewed: 'keel-viewed',
  Floor: 'floor',
  AiSdk: 'ai-sdk',
} as const;
export type SystemName = (typeof SystemName)[keyof typeof SystemName];

export interface StartedGoal {
  readonly workflowId: string;
  readonly firstRunId: string;
  /** Approves whatever is waiting now; the number approved. */
  approvePending(): Promise<number>;
  /** Resolves with the tool calls made once the goal ends; throws when it did not succeed. */
  result(): Promise<number>;
}

export interface BenchSystem {
  readonly name: SystemName;
  start(scenario: BenchScenario, workspace: string, id: string): Promise<StartedGoal>;
}

export interface BenchWorkers {
  readonly systems: BenchSystem[];
  /** Why a system could not be set up, by name (it is then left out). */
  readonly unavailable: Partial<Record<SystemName, string>>;
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** Every system's worker (or those named) on a bench environment's server and loopback model. */
export function startBenchWorkersIn(
  environment: BenchEnvironment,
  only?: readonly SystemName[],
): Promise<BenchWorkers> {
  return startBenchWorkers({
    address: environment.server.address,
    client: environment.client,
    modelUrl: environment.model.url,
    keelBundle: environment.keelBundle,
    journalDirectory: environment.directory('journal'),
    ...(only === undefined ? {} : { only }),
  });
}

export async function startBenchWorkers(options: {
  address: string;
  client: Client;
  modelUrl: string;
  keelBundle: WorkflowBundleWithSourceMap;
  journalDirectory: string;
  only?: readonly SystemName[];
}): Promise<BenchWorkers> {
  const wanted = (name: SystemName) => options.only === undefined || options.only.includes(name);
  const connection = await NativeConnection.connect({ address: options.address });
  const anthropic = new Anthropic({
    apiKey: 'loopback-needs-no-key',
    baseURL: options.modelUrl,
    maxRetries: 0,
  });
  const benchActivities = createBenchActivities({ anthropic, registry: createToolRegistry({}) });
  const workers: Worker[] = [];
  const systems: BenchSystem[] = [];
  const unavailable: Partial<Record<SystemName, string>> = {};
  const suffix = `${process.pid}-${Date.now()}`;

  if (wanted(SystemName.Keel) || wanted(SystemName.KeelViewed)) {
    const taskQueue = `bench-keel-${suffix}`;
    workers.push(
      await createKeelWorker({
        connection,
        namespace: 'default',
        taskQueue,
        anthropic,
        mcpServers: false,
        journalDirectory: options.journalDirectory,
        backupDirectory: options.journalDirectory,
        modelRequestStore: createFileModelRequestStore({
          directory: path.join(options.journalDirectory, 'model-requests'),
        }),
        reflectionStore: createMemoryReflectionStore({ warn: () => undefined }),
        ledgerSinks: [],
        workflowBundle: options.keelBundle,
      }),
    );
    if (wanted(SystemName.Keel)) systems.push(keelSystem(options.client, taskQueue));
    if (wanted(SystemName.KeelViewed)) systems.push(keelSystem(options.client, taskQueue, { viewer: true }));
  }
  if (wanted(SystemName.Floor)) {
    const taskQueue = `bench-floor-${suffix}`;
    workers.push(
      await Worker.create({
        connection,
        taskQueue,
        workflowsPath: require.resolve('./workflows/floor-workflow'),
        activities: benchActivities,
      }),
    );
    systems.push(loopSystem(SystemName.Floor, 'floorWorkflow', options.client, taskQueue));
  }
  if (wanted(SystemName.AiSdk)) {
    const taskQueue = `bench-ai-sdk-${suffix}`;
    try {
      const provider = createAnthropic({
        baseURL: `${options.modelUrl}/v1`,
        apiKey: 'loopback-needs-no-key',
      });
      workers.push(
        await Worker.create({
          connection,
          taskQueue,
          workflowsPath: require.resolve('./workflows/ai-sdk-workflow'),
          activities: benchActivities,
          plugins: [new AiSdkPlugin({ modelProvider: provider })],
        }),
      );
      systems.push(loopSystem(SystemName.AiSdk, 'aiSdkWorkflow', options.client, taskQueue));
    } catch (error) {
      unavailable[SystemName.AiSdk] =
        `its worker did not start: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  return {
    systems,
    unavailable,
    async run(fn) {
      const running = workers.map((worker) => worker.run());
      try {
        return await fn();
      } finally {
        for (const worker of workers) worker.shutdown();
        await Promise.allSettled(running);
        await connection.close();
      }
    },
  };
}

/** How often the bench's viewer asks (the default of followGoalEvents). */
const VIEWER_POLL_MS = 500;

function keelSystem(client: Client, taskQueue: string, options: { viewer?: boolean } = {}): BenchSystem {
  return {
    name: options.viewer ? SystemName.KeelViewed : SystemName.Keel,
    async start(scenario, workspace, id) {
      const handle = await startGoal(client, {
        taskQueue,
        workflowId: id,
        input: {
          goal: scenarioPrompt(scenario),
          workspace,
          limits: { maxToolCalls: scenario.calls + 10, maxTurns: scenario.calls + 10 },
          // The loopback model reads without progress and never answers checkpoints; the bench
          // measures the loop's cost, so the discipline guards (measured by eval:discipline) stay off.
          guards: { enabled: false },
          // Nor does it price its answers like a real model: the default $5 budget would end a
          // 1,000-call goal (the recorded one the replay and fork figures read) before its end.
          principles: { budget: { unlimited: true } },
          // With network allowed every run_command is irreversible: the mixed scenario's append
          // waits for approval, as it does in the other systems.
          sandbox: { network: true },
          ...(scenario.delegation === true || scenario.kind === ScenarioKind.Delegate
            ? { delegation: { enabled: true } }
            : {}),
        },
      });
      const goal = goalHandle(client, id);
      const viewer = options.viewer ? follow(goal) : undefined;
      return {
        workflowId: id,
        // startGoal returns what client.workflow.start returned, which knows its first run.
        firstRunId: (handle as WorkflowHandleWithFirstExecutionRunId).firstExecutionRunId,
        async approvePending() {
          const status = await goalStatus(goal);
          for (const pending of status.pendingApprovals) {
            await decideApproval(goal, {
              callId: pending.callId,
              approved: true,
              approver: 'bench',
              via: 'signal',
            });
          }
          return status.pendingApprovals.length;
        },
        async result() {
          const result = await handle.result().finally(() => viewer?.stop());
          await viewer?.events;
          if (result.status !== GoalStatus.Completed) {
            throw new Error(`keel goal ${id} ended ${result.status}: ${result.reason ?? ''}`);
          }
          return result.counters.toolCalls;
        },
      };
    },
  };
}

function loopSystem(name: SystemName, workflowType: string, client: Client, taskQueue: string): BenchSystem {
  return {
    name,
    async start(scenario, workspace, id) {
      const handle = await client.workflow.start(workflowType, {
        taskQueue,
        workflowId: id,
        args: [{ prompt: scenarioPrompt(scenario), workspace }],
      });
      return {
        workflowId: id,
        firstRunId: handle.firstExecutionRunId,
        async approvePending() {
          const pending = await handle.query(pendingCallsQuery);
          for (const callId of pending) await handle.signal(approveCallSignal, { callId });
          return pending.length;
        },
        async result() {
          const result = (await handle.result()) as LoopResult;
          return result.toolCalls;
        },
      };
    },
  };
}

/** A viewer of the goal's live event stream for as long as the goal runs: its events, counted. */
function follow(goal: GoalHandle): { events: Promise<number>; stop(): void } {
  const controller = new AbortController();
  const events = (async () => {
    let count = 0;
    for await (const event of followGoalEvents(goal, { pollMs: VIEWER_POLL_MS, signal: controller.signal })) {
      if (event.offset > 0) count += 1;
    }
    return count;
  })();
  return { events, stop: () => controller.abort() };
}
