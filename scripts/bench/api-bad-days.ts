/**
 * The model API's bad days (issue 42), side by side in one run:
 *
 * 1. a fleet of keel workers sharing one API key under the API's per-key request limit, with and
 *    without keel's shared limit (shared-rate-limit.ts's measurement, test/support/model-fleet.ts):
 *    requests sent, 429s received, share of the limit used;
 * 2. goals started together into an overload (529s for a stretch), with keel's backoff (full
 *    jitter, 10 s cap) and without jitter (1 s doubling to a 60 s cap, as keel did before):
 *    requests during the overload, in its first 10 s and in its busiest second, and per goal the
 *    time from the outage's end to its first answer (target: within 10 s with jitter).
 *
 * `npm run bench` runs it in a process of its own (the fleet needs a dev server with one partition
 * per task queue: docs/performance.md) and reads back what it writes with --json.
 *
 *   node --import tsx scripts/bench/api-bad-days.ts [--goals 5] [--outage-seconds 25]
 *     [--fleet-goals 30] [--limit 120] [--workers 3] [--json FILE]
 *   --goals 0 leaves out the overload, --fleet-goals 0 the fleet.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startDevServer } from '../../src/dev-server/dev-server';
import { runFleet, type FleetRun } from '../../test/support/model-fleet';
import { apiBadDaysTable, type ApiBadDaysResult } from './api-bad-days-result';
import { Backoff, NO_JITTER_CAP_MS, runOverload } from './overload';

const count = z.coerce.number().int().nonnegative();
const settingsSchema = z.object({
  goals: count,
  outageSeconds: z.coerce.number().positive(),
  fleetGoals: count,
  limit: z.coerce.number().positive(),
  workers: z.coerce.number().int().positive(),
  json: z.string().optional(),
});

function settings() {
  const { values } = parseArgs({
    options: {
      goals: { type: 'string', default: '5' },
      'outage-seconds': { type: 'string', default: '25' },
      'fleet-goals': { type: 'string', default: '30' },
      limit: { type: 'string', default: '120' },
      workers: { type: 'string', default: '3' },
      json: { type: 'string' },
    },
  });
  return settingsSchema.parse({
    goals: values.goals,
    outageSeconds: values['outage-seconds'],
    fleetGoals: values['fleet-goals'],
    limit: values.limit,
    workers: values.workers,
    json: values.json,
  });
}

async function main(): Promise<void> {
  const options = settings();
  const log = (line: string) => console.log(`api bad days: ${line}`);
  const server = await startDevServer({
    ephemeral: true,
    // One partition: Temporal splits a queue's rate among its partitions (four by default), and a
    // partition with nothing queued wastes its share (docs/performance.md).
    dynamicConfig: { 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 },
  });
  const result: ApiBadDaysResult = {};
  try {
    if (options.fleetGoals > 0) {
      const fleet = {
        address: server.address,
        requestsPerMinute: options.limit,
        workers: options.workers,
        goals: options.fleetGoals,
      };
      log(`a fleet of ${options.workers} workers under ${options.limit} requests a minute, shared limit`);
      const shared = await runFleet({ ...fleet, shared: true });
      log('the same fleet, each worker on its own');
      const alone = await runFleet({ ...fleet, shared: false });
      result.fleet = {
        workers: options.workers,
        requestsPerMinute: options.limit,
        shared: withoutTimeline(shared),
        alone: withoutTimeline(alone),
      };
    }
    if (options.goals > 0) {
      const overload = {
        address: server.address,
        goals: options.goals,
        outageMs: options.outageSeconds * 1000,
      };
      log(`${options.goals} goals into ${options.outageSeconds} s of overload, keel's full jitter`);
      const jitter = await runOverload({ ...overload, backoff: Backoff.FullJitter });
      log(`${options.goals} goals into ${options.outageSeconds} s of overload, no jitter`);
      const noJitter = await runOverload({ ...overload, backoff: Backoff.NoJitter });
      result.overload = { jitter, noJitter, noJitterCapMs: NO_JITTER_CAP_MS };
    }
  } finally {
    await server.stop();
  }
  for (const line of apiBadDaysTable(result)) console.log(line);
  if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify(result, null, 2)}\n`);
}

/** The figures without the request timeline (hundreds of entries nobody reads in a report). */
function withoutTimeline(run: FleetRun): Omit<FleetRun, 'timeline'> {
  const { timeline: _timeline, ...figures } = run;
  return figures;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
