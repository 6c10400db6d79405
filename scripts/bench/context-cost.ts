/**
 * What rebuilding a goal's workflow context costs in CPU (issue 41): a worker whose cache is
 * smaller than its goals evicts them and rebuilds each from its history when its next task comes,
 * in a fresh workflow context that evaluates the bundle's modules anew. Replaying recorded goals
 * is that rebuild alone, so this replays the committed histories (test/fixtures/histories) many
 * times over, one new context each, with bundles that differ only in `preloadModules`, and prints
 * the CPU each costs per goal, per workflow task and per tool call. Asserts nothing.
 *
 *   node --import tsx scripts/bench/context-cost.ts [--copies 20] [--rounds 5] [--variants none,zod]
 *     [--cpu-prof FILE]   after the rounds, one more replay of the first variant under the profiler;
 *                         FILE.bundle.js beside it is the bundle it ran (module names by line)
 *
 * CPU, not wall-clock (the machine is shared): process.cpuUsage around one
 * Worker.runReplayHistories of every copy, less the same call with no history (the replay
 * worker's start, which loads the bundle and runs the preloads once) measured in the same round.
 * The variants take turns within a round, so a noisy neighbour slows them alike; the figures are
 * medians over the rounds, and each variant's ratio is against `none` from the same rounds.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { WORKFLOWS_PATH } from '../../src/worker';
import { workflowBundlerOptions } from '../../src/worker/bundle-options';
import { quietLogger } from '../../test/support/quiet-logger';
import { spread } from './stats';

const HISTORIES_DIRECTORY = path.resolve(__dirname, '../../test/fixtures/histories');

/** zod shared by every goal of a context, warmed before the SDK freezes it (see the module). */
const ZOD = path.resolve(__dirname, 'preload/zod-warmed.ts');
/** keel's module that imports @noble/curves: preloading it shares noble's modules too. */
const NOBLE = path.resolve(__dirname, '../../src/workflows/common/ed25519.ts');
/** keel's workflow modules whose module scope only builds zod schemas (variant b), comma-separated. */
const SCHEMA_MODULES = (process.env.KEEL_CONTEXT_COST_SCHEMA_MODULES ?? '')
  .split(',')
  .filter(Boolean)
  .map((module) => path.resolve(module));

/** Each variant is the preload list a bundle is built with; everything else is keel's own options. */
const VARIANTS: Record<string, string[]> = {
  none: [],
  zod: [ZOD],
  noble: [NOBLE],
  'zod+noble': [ZOD, NOBLE],
  'zod+schemas': [ZOD, ...SCHEMA_MODULES],
  adopted: [...workflowBundlerOptions.preloadModules],
};

interface Recorded {
  history: temporal.api.history.v1.History;
  workflowTasks: number;
  toolCalls: number;
}

function loadHistories(): Recorded[] {
  return readdirSync(HISTORIES_DIRECTORY)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const json = JSON.parse(readFileSync(path.join(HISTORIES_DIRECTORY, file), 'utf8')) as Record<
        string,
        unknown
      >;
      const history = temporal.api.history.v1.History.fromObject(json);
      const events = history.events ?? [];
      const workflowTasks = events.filter(
        (event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
      ).length;
      const toolCalls = events.filter((event) => {
        const scheduled = event.activityTaskScheduledEventAttributes?.activityType?.name;
        if (scheduled === 'executeTool') return true;
        const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
        if (!data) return false;
        const marker = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string };
        return marker.activity_type === 'executeTool';
      }).length;
      return { history, workflowTasks, toolCalls };
    });
}

async function cpuMsOf(
  bundle: WorkflowBundle,
  histories: Array<{ workflowId: string; history: Recorded['history'] }>,
) {
  const options = { workflowBundle: bundle, dataConverter: dataConverterFromEnv() };
  const before = process.cpuUsage();
  for await (const result of Worker.runReplayHistories(options, histories)) {
    if (result.error) throw new Error(`${result.workflowId} did not replay: ${result.error.message}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function profile(
  bundle: WorkflowBundle,
  histories: Array<{ workflowId: string; history: Recorded['history'] }>,
  file: string,
): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await cpuMsOf(bundle, histories);
  const { profile: recorded } = await session.post('Profiler.stop');
  session.disconnect();
  writeFileSync(file, JSON.stringify(recorded));
  writeFileSync(`${file}.bundle.js`, bundle.code);
}

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const copies = Number(flag('--copies') ?? 20);
  const rounds = Number(flag('--rounds') ?? 5);
  const names = (flag('--variants') ?? 'none,zod').split(',');
  for (const name of names) if (!VARIANTS[name]) throw new Error(`unknown variant ${name}`);
  const recorded = loadHistories();
  const histories = Array.from({ length: copies }, (_, copy) =>
    recorded.map((entry, index) => ({ workflowId: `goal-${copy}-${index}`, history: entry.history })),
  ).flat();
  const goals = histories.length;
  const workflowTasks = copies * recorded.reduce((sum, entry) => sum + entry.workflowTasks, 0);
  const toolCalls = copies * recorded.reduce((sum, entry) => sum + entry.toolCalls, 0);
  const dataConverter = dataConverterFromEnv();
  const bundles = new Map<string, WorkflowBundle>();
  for (const name of names) {
    bundles.set(
      name,
      await bundleWorkflowCode({
        workflowsPath: WORKFLOWS_PATH,
        ...workflowBundlerOptions,
        preloadModules: VARIANTS[name],
        failureConverterPath: dataConverter.failureConverterPath,
        payloadConverterPath: dataConverter.payloadConverterPath,
        logger: quietLogger,
      }),
    );
  }
  console.log(
    `${goals} goals a round (${copies} copies of ${recorded.length} histories): ${workflowTasks} workflow tasks, ${toolCalls} tool calls; ${rounds} rounds`,
  );
  const perGoal = new Map<string, number[]>(names.map((name) => [name, []]));
  const start = new Map<string, number[]>(names.map((name) => [name, []]));
  // One warm-up round each: the first replay also compiles the SDK's and V8's own code paths.
  for (const name of names) await cpuMsOf(bundles.get(name)!, histories.slice(0, recorded.length));
  for (let round = 1; round <= rounds; round++) {
    for (const name of names) {
      const bundle = bundles.get(name)!;
      const floor = await cpuMsOf(bundle, []);
      const total = await cpuMsOf(bundle, histories);
      start.get(name)!.push(floor);
      perGoal.get(name)!.push((total - floor) / goals);
    }
  }
  const profileFile = flag('--cpu-prof');
  if (profileFile) await profile(bundles.get(names[0]!)!, histories, profileFile);
  const baseline = perGoal.get('none');
  for (const name of names) {
    const goal = spread(perGoal.get(name)!);
    const ratios = baseline ? perGoal.get(name)!.map((value, round) => value / baseline[round]!) : [];
    const ratio = ratios.length > 0 ? ` = ${spread(ratios).median.toFixed(2)} × none` : '';
    console.log(
      `${name.padEnd(18)} ${goal.median.toFixed(1)} ms CPU a goal (${goal.min.toFixed(1)}–${goal.max.toFixed(1)})${ratio}; ` +
        `${((goal.median * goals) / workflowTasks).toFixed(2)} ms a workflow task, ${((goal.median * goals) / toolCalls).toFixed(2)} ms a tool call; ` +
        `replay worker start ${spread(start.get(name)!).median.toFixed(0)} ms`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(`context-cost: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
