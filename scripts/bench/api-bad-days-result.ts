import { z } from 'zod';

/**
 * What api-bad-days.ts measures, as it writes it for the bench (a process of its own: its fleet
 * needs a dev server with one partition per task queue) and as the bench reads it back.
 */
const spreadSchema = z.object({ median: z.number(), min: z.number(), max: z.number() });

const fleetSchema = z.object({
  completed: z.number(),
  goals: z.number(),
  requests: z.number(),
  limited: z.number(),
  limitUsed: z.number(),
  elapsedMs: z.number(),
});

const overloadSchema = z.object({
  backoff: z.string(),
  goals: z.number(),
  completed: z.number(),
  outageMs: z.number(),
  requestsDuringOutage: z.number(),
  requestsInFirst10s: z.number(),
  busiestSecond: z.number(),
  outageEndToFirstSuccessMs: spreadSchema,
  elapsedMs: z.number(),
});

export const apiBadDaysResultSchema = z.object({
  fleet: z
    .object({
      workers: z.number(),
      requestsPerMinute: z.number(),
      shared: fleetSchema,
      alone: fleetSchema,
    })
    .optional(),
  overload: z
    .object({
      jitter: overloadSchema,
      noJitter: overloadSchema,
      /** The old policy's cap; keel's is 10 s. */
      noJitterCapMs: z.number(),
    })
    .optional(),
});
export type ApiBadDaysResult = z.infer<typeof apiBadDaysResultSchema>;
type FleetFigures = z.infer<typeof fleetSchema>;
type OverloadFigures = z.infer<typeof overloadSchema>;

/** Targets from issue 42. */
export const TARGETS = { refusedShare: 0.05, limitUsed: 0.85, firstSuccessWithinMs: 10_000 };

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
const seconds = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '–');

/** Rows of label, then one figure per column. */
type Row = [string, string, string];

function fleetRows(fleet: NonNullable<ApiBadDaysResult['fleet']>): Row[] {
  const figure = (pick: (run: FleetFigures) => string): [string, string] => [
    pick(fleet.shared),
    pick(fleet.alone),
  ];
  return [
    ['', 'shared limit', 'no shared limit'],
    ['goals completed', ...figure((run) => `${run.completed}/${run.goals}`)],
    ['requests sent', ...figure((run) => String(run.requests))],
    ['429s received', ...figure((run) => `${run.limited} (${percent(run.limited / run.requests)})`)],
    ['share of the limit used', ...figure((run) => percent(run.limitUsed))],
    ['wall time', ...figure((run) => seconds(run.elapsedMs))],
  ];
}

function overloadRows(overload: NonNullable<ApiBadDaysResult['overload']>): Row[] {
  const figure = (pick: (run: OverloadFigures) => string): [string, string] => [
    pick(overload.jitter),
    pick(overload.noJitter),
  ];
  const recovery = (run: OverloadFigures) => run.outageEndToFirstSuccessMs;
  return [
    ['', 'full jitter (keel)', 'no jitter (before)'],
    ['goals completed', ...figure((run) => `${run.completed}/${run.goals}`)],
    ['requests during the outage', ...figure((run) => String(run.requestsDuringOutage))],
    ['… in its first 10 s', ...figure((run) => String(run.requestsInFirst10s))],
    ['… most in any 1 s', ...figure((run) => String(run.busiestSecond))],
    ['outage end → first answer, min', ...figure((run) => seconds(recovery(run).min))],
    ['… median', ...figure((run) => seconds(recovery(run).median))],
    ['… max', ...figure((run) => seconds(recovery(run).max))],
    ['wall time', ...figure((run) => seconds(run.elapsedMs))],
  ];
}

function fleetTitle(fleet: NonNullable<ApiBadDaysResult['fleet']>): string {
  return `A fleet of ${fleet.workers} workers, ${fleet.shared.goals} goals of 1-3 model turns, one key limited to ${fleet.requestsPerMinute} requests a minute`;
}

function overloadTitle(overload: NonNullable<ApiBadDaysResult['overload']>): string {
  return `${overload.jitter.goals} goals started together into ${seconds(overload.jitter.outageMs)} of 529 overloaded_error; keel's backoff (full jitter, 10 s cap) against 1 s doubling to a ${seconds(overload.noJitterCapMs)} cap with no randomness`;
}

/** The figures as a plain-text table, for the terminal. */
export function apiBadDaysTable(result: ApiBadDaysResult): string[] {
  const line = ([label, left, right]: Row) =>
    `  ${label.padEnd(32)}${left.padStart(20)}${right.padStart(20)}`;
  const lines: string[] = [];
  if (result.fleet) lines.push(fleetTitle(result.fleet), ...fleetRows(result.fleet).map(line));
  if (result.overload) lines.push(overloadTitle(result.overload), ...overloadRows(result.overload).map(line));
  lines.push(...verdicts(result).map((verdict) => `  ${verdict}`));
  return lines;
}

/** The figures as markdown, for bench.md. */
export function apiBadDaysMarkdown(result: ApiBadDaysResult): string[] {
  const table = (rows: Row[]) => [
    `| ${rows[0]!.join(' | ')} |`,
    '| --- | ---: | ---: |',
    ...rows.slice(1).map((row) => `| ${row.join(' | ')} |`),
  ];
  const lines = ["- The model API's bad days:"];
  if (result.fleet) lines.push('', `${fleetTitle(result.fleet)}:`, '', ...table(fleetRows(result.fleet)));
  if (result.overload)
    lines.push('', `${overloadTitle(result.overload)}:`, '', ...table(overloadRows(result.overload)));
  const checks = verdicts(result);
  if (checks.length > 0) lines.push('', ...checks.map((verdict) => `${verdict}`));
  return lines;
}

function verdicts(result: ApiBadDaysResult): string[] {
  const met = (yes: boolean) => (yes ? 'met' : 'MISSED');
  const lines: string[] = [];
  if (result.fleet) {
    const shared = result.fleet.shared;
    const refused = shared.limited / Math.max(1, shared.requests);
    lines.push(
      `Shared limit: ${percent(refused)} refused (target < ${percent(TARGETS.refusedShare)}: ${met(refused < TARGETS.refusedShare)}), ${percent(shared.limitUsed)} of the limit used (target ≥ ${percent(TARGETS.limitUsed)}: ${met(shared.limitUsed >= TARGETS.limitUsed)}).`,
    );
  }
  if (result.overload) {
    const latest = result.overload.jitter.outageEndToFirstSuccessMs.max;
    lines.push(
      `Full jitter: every goal's first answer ${seconds(latest)} or less after the outage ended (target within ${seconds(TARGETS.firstSuccessWithinMs)}: ${met(latest <= TARGETS.firstSuccessWithinMs)}).`,
    );
  }
  return lines;
}
