/**
 * Rate limits shared by the fleet (issue 42): one fleet of keel workers sharing one API key, run
 * twice against the scripted model behind the API's per-key request limit (rate-limit.ts), once
 * holding the limit together (KEEL_MODEL_REQUESTS_PER_MINUTE) and once each worker on its own.
 * Prints, side by side, the requests sent, the 429s received and the share of the limit used.
 * Target: under 5% of requests refused and at least 85% of the limit used with the shared limit.
 *
 *   node --import tsx scripts/bench/shared-rate-limit.ts [--limit 120] [--workers 3] [--goals 30]
 *     [--partitions 1]   the dev server's partitions per task queue (Temporal's default is 4)
 */
import { parseArgs } from 'node:util';
import { startDevServer } from '../../src/dev-server/dev-server';
import { runFleet, type FleetRun } from '../../test/support/model-fleet';

const { values } = parseArgs({
  options: {
    limit: { type: 'string', default: '120' },
    workers: { type: 'string', default: '3' },
    goals: { type: 'string', default: '30' },
    partitions: { type: 'string', default: '1' },
  },
});

async function main(): Promise<void> {
  const requestsPerMinute = Number(values.limit);
  const workers = Number(values.workers);
  const goals = Number(values.goals);
  const partitions = Number(values.partitions);
  const server = await startDevServer({
    ephemeral: true,
    dynamicConfig: {
      'matching.numTaskqueueReadPartitions': partitions,
      'matching.numTaskqueueWritePartitions': partitions,
    },
  });
  try {
    const options = { address: server.address, requestsPerMinute, workers, goals };
    const shared = await runFleet({ ...options, shared: true });
    const alone = await runFleet({ ...options, shared: false });
    console.log(
      `${workers} workers, ${goals} goals of 1-3 model turns, one key limited to ${requestsPerMinute} requests a minute, ${partitions} partition(s) per task queue`,
    );
    console.log(row('', 'shared limit', 'no shared limit'));
    for (const [label, figure] of FIGURES) console.log(row(label, figure(shared), figure(alone)));
  } finally {
    await server.stop();
  }
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

const FIGURES: Array<[string, (run: FleetRun) => string]> = [
  ['goals completed', (run) => `${run.completed}/${run.goals}`],
  ['requests sent', (run) => String(run.requests)],
  ['429s received', (run) => `${run.limited} (${percent(run.limited / run.requests)})`],
  ['share of the limit used', (run) => percent(run.limitUsed)],
  ['wall time', (run) => `${(run.elapsedMs / 1000).toFixed(1)} s`],
];

function row(label: string, left: string, right: string): string {
  return `${label.padEnd(26)}${left.padStart(16)}${right.padStart(18)}`;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
