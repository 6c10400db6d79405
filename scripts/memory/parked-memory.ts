/**
 * Where a parked goal's memory goes (issue 26): parks N goals on an irreversible call's approval
 * in one worker process, then reports what grew per goal — RSS, the V8 heap (keel's workflow
 * state and the SDK's JavaScript side both live there), external and array buffers — and, with
 * --snapshot FILE, writes a heap snapshot and lists the heap's largest classes of object per
 * parked goal. Asserts nothing: a measurement, printed as figures per goal.
 *
 *   node --expose-gc --import tsx scripts/memory/parked-memory.ts [N] [--cache SIZE] [--snapshot FILE]
 */
import { writeHeapSnapshot } from 'node:v8';
import { readFileSync } from 'node:fs';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { goalStatusQuery } from '../../src/workflows/goal/messages';
import { createHarness, eventually, stopOwnServer, tempDirectory } from '../../test/support/temporal';
import { heapClassesByName } from './heap-classes';

const MIB = 1024 * 1024;

function figures() {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed, external: usage.external, buffers: usage.arrayBuffers };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const goals = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 100);
  const cacheAt = args.indexOf('--cache');
  const cache = cacheAt >= 0 ? Number(args[cacheAt + 1]) : undefined;
  const snapshotAt = args.indexOf('--snapshot');
  const snapshot = snapshotAt >= 0 ? args[snapshotAt + 1] : undefined;
  const harness = await createHarness({
    ...(cache === undefined ? {} : { maxCachedWorkflows: cache }),
    scenarios: [
      {
        name: 'parked',
        match: 'GOAL-PARKED',
        turns: [
          { toolCalls: [{ name: 'write_file', input: { path: 'notes.md', content: 'a note\n' } }] },
          { toolCalls: [{ name: 'run_command', input: { command: 'echo sent >> sent.txt' } }] },
          { text: 'done' },
        ],
      },
    ],
  });
  try {
    await harness.withWorker(async (worker) => {
      // One goal first, so the worker's one-time costs (bundle, VM context) are in the baseline.
      await park(harness, 'warm-up');
      const before = figures();
      for (let index = 0; index < goals; index++) await park(harness, String(index));
      const after = figures();
      const per = (key: keyof typeof before) => ((after[key] - before[key]) / goals / MIB).toFixed(3);
      console.log(
        `${goals} goals parked, ${worker.getStatus().numCachedWorkflows} in the workflow cache` +
          (cache === undefined ? ' (keel default)' : ` (cache ${cache})`),
      );
      console.log(
        `per parked goal: RSS ${per('rss')} MiB, V8 heap ${per('heap')} MiB, external ${per('external')} MiB, array buffers ${per('buffers')} MiB`,
      );
      console.log(
        `worker: RSS ${(after.rss / MIB).toFixed(0)} MiB, V8 heap ${(after.heap / MIB).toFixed(0)} MiB`,
      );
      if (snapshot !== undefined) {
        writeHeapSnapshot(snapshot);
        const classes = heapClassesByName(JSON.parse(readFileSync(snapshot, 'utf8')) as never);
        console.log(`largest classes of object in the heap (${snapshot}), MiB in all / KiB per parked goal:`);
        for (const entry of classes.slice(0, 25))
          console.log(
            `  ${(entry.bytes / MIB).toFixed(2).padStart(8)} ${(entry.bytes / goals / 1024).toFixed(1).padStart(8)}  ${entry.count} × ${entry.name}`,
          );
      }
    });
  } finally {
    await harness.close();
    await stopOwnServer();
  }
}

async function park(harness: Awaited<ReturnType<typeof createHarness>>, name: string): Promise<void> {
  const handle = await harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `parked-memory-${Date.now()}-${name}`,
    args: [
      { goal: `GOAL-PARKED ${name}`, workspace: tempDirectory('keel-parked-'), sandbox: { network: true } },
    ],
  });
  await eventually(async () => {
    const view = await handle.query(goalStatusQuery);
    return view.pendingApprovals.length === 1 ? true : undefined;
  }, 60_000);
}

main().catch((error: unknown) => {
  console.error(`parked-memory: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
