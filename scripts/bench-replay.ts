/**
 * Replay of a recorded keel goal, on its own, for working on the workflow code's replay cost
 * (issue 14): record once, then replay as often as needed, optionally with a CPU profile of the
 * replay alone. Asserts nothing (timings are no test). The bench's own replay line measures the
 * same way: prebuilt bundle, one Worker.runReplayHistories over every run, the SDK's defaults.
 *
 *   npm run -s bench:replay -- record 300 /tmp/keel-history    a 300-call sequential goal
 *   npm run -s bench:replay -- replay /tmp/keel-history         time it (bundled once, beforehand)
 *   npm run -s bench:replay -- replay /tmp/keel-history --rounds 3 --cpu-prof /tmp/replay.cpuprofile
 *
 * The profile holds the last round only; the bundle it ran is written beside it (its inline source
 * map turns the profile's workflow-bundle-….js positions back into src/workflows lines).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { WORKFLOWS_PATH } from '../src/worker';
import { workflowBundlerOptions } from '../src/worker/bundle-options';
import { quietLogger } from '../test/support/quiet-logger';
import { ScenarioKind } from './bench/bench-scenario';
import { startBenchEnvironment } from './bench/bench-environment';
import { measureGoal } from './bench/comparison';
import { chainHistory } from './bench/history';
import { startBenchWorkersIn, SystemName } from './bench/systems';

const History = temporal.api.history.v1.History;

async function record(calls: number, directory: string): Promise<void> {
  mkdirSync(directory, { recursive: true });
  const environment = await startBenchEnvironment();
  try {
    const workers = await startBenchWorkersIn(environment, [SystemName.Keel]);
    const [keel] = workers.systems;
    if (!keel) throw new Error(`keel left out: ${workers.unavailable.keel ?? 'unknown reason'}`);
    await workers.run(async () => {
      const scenario = { kind: ScenarioKind.Sequential, calls, perTurn: 1 };
      const goal = await measureGoal(environment.client, keel, scenario, 1, environment.directory('ws'));
      if (!goal.completed) throw new Error(`the goal did not complete: ${goal.error ?? ''}`);
      const { runIds } = await chainHistory(environment.client, goal.workflowId, goal.firstRunId);
      for (const [index, runId] of runIds.entries()) {
        const history = await environment.client.workflow.getHandle(goal.workflowId, runId).fetchHistory();
        const file = path.join(directory, `run-${String(index).padStart(4, '0')}.binpb`);
        writeFileSync(file, History.encode(history).finish());
      }
      console.log(`recorded ${calls} calls: ${runIds.length} runs, ${goal.events} events, in ${directory}`);
    });
  } finally {
    await environment.close();
  }
}

async function replay(directory: string, rounds: number, profileFile: string | undefined): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const histories = readdirSync(directory)
    .filter((file) => file.endsWith('.binpb'))
    .sort()
    .map((file) => ({
      workflowId: 'replayed-goal',
      history: History.decode(readFileSync(path.join(directory, file))),
    }));
  if (histories.length === 0) throw new Error(`no run-*.binpb in ${directory} (record first)`);
  const events = histories.reduce((sum, entry) => sum + (entry.history.events?.length ?? 0), 0);
  const dataConverter = dataConverterFromEnv();
  const bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    ...workflowBundlerOptions,
    failureConverterPath: dataConverter.failureConverterPath,
    payloadConverterPath: dataConverter.payloadConverterPath,
    logger: quietLogger,
  });
  const options = { workflowBundle: bundle, dataConverter };
  console.log(`${histories.length} runs, ${events} events; bundled beforehand`);
  const session = new Session();
  if (profileFile) {
    session.connect();
    await session.post('Profiler.enable');
  }
  for (let round = 1; round <= rounds; round++) {
    const profiled = profileFile !== undefined && round === rounds;
    if (profiled) await session.post('Profiler.start');
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const runMs: number[] = [];
    let previous = started;
    for await (const result of Worker.runReplayHistories(options, histories)) {
      const now = performance.now();
      runMs.push(now - previous);
      previous = now;
      if (result.error) console.log(`  ${result.runId}: FAILED ${result.error.message}`);
    }
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const sorted = [...runMs].sort((a, b) => a - b);
    console.log(
      `round ${round}: ${(wallMs / 1000).toFixed(2)} s (${(wallMs / events).toFixed(2)} ms per event), CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s; first run ${(runMs[0] ?? 0).toFixed(0)} ms (with the replay worker's start), median run ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(0)} ms`,
    );
    if (profiled) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(path.dirname(profileFile), { recursive: true });
      writeFileSync(profileFile, JSON.stringify(profile));
      const bundleFile = path.join(path.dirname(profileFile), 'replayed-workflow-bundle.js');
      writeFileSync(bundleFile, bundle.code);
      console.log(`wrote ${profileFile} and ${bundleFile}`);
    }
  }
  if (profileFile) session.disconnect();
}

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

async function main(): Promise<void> {
  const [command, first, second] = process.argv.slice(2);
  if (command === 'record' && first && second) return record(Number(first), path.resolve(second));
  if (command === 'replay' && first) {
    const profileFile = flag('--cpu-prof');
    return replay(
      path.resolve(first),
      Number(flag('--rounds') ?? 1),
      profileFile === undefined ? undefined : path.resolve(profileFile),
    );
  }
  throw new Error('usage: bench-replay record CALLS DIR | replay DIR [--rounds N] [--cpu-prof FILE]');
}

main().catch((error: unknown) => {
  console.error(`bench-replay: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
