import { z } from 'zod';

/**
 * What the concurrency section (concurrency.ts, issue 41) measures, as its process writes it and
 * the bench reads it back, and the tables made from it. Pure: the unit tests import it.
 */
/** A figure that may be NaN (nothing measured), which JSON writes as null. */
const figure = z
  .number()
  .nullable()
  .transform((value) => value ?? Number.NaN);

const cpuSchema = z.object({
  /** The worker processes' CPU (every thread: workflow, main, the SDK's core, V8's GC helpers). */
  processMsPerCall: figure,
  /** The workflow threads' CPU alone (named by the preload; NaN when none was found). */
  workflowThreadMsPerCall: figure,
});

export const variantSchema = z.object({
  label: z.string(),
  workers: z.number(),
  /** Each worker's workflow cache, in goals. */
  cache: z.number(),
  cacheIsDefault: z.boolean(),
  /** Each worker's bound on goals at work (KEEL_GOALS_AT_WORK); 0: none, keel's default. */
  goalsAtWork: z.number().int().nonnegative().default(0),
  goals: z.number(),
  calls: z.number(),
  /** The same workers first run single goals, one at a time: what one goal alone costs. */
  single: cpuSchema.extend({ samples: z.number(), latencyMs: figure }),
  batch: cpuSchema.extend({
    failed: z.number(),
    /** The first few failures, for the report. */
    failures: z.array(z.string()),
    /** From the first goal's start to the last one's close (the server's times). */
    lengthMs: figure,
    callsPerSecond: figure,
    latencyP50Ms: figure,
    latencyP99Ms: figure,
    /** The largest RSS sampled during the batch, summed over the workers. */
    peakRssBytes: figure,
  }),
});
export type ConcurrencyVariant = z.output<typeof variantSchema>;

export const concurrencyResultSchema = z.object({ variants: z.array(variantSchema) });
export type ConcurrencyResult = z.infer<typeof concurrencyResultSchema>;

/** Targets from issue 41. */
export const TARGETS = { failedGoals: 0, cpuRatio: 2, p50ShareOfBatch: 0.5 };

/** The value at fraction `share` of the sorted values (nearest rank: p99 of 200 is the 198th). */
export function percentile(values: readonly number[], share: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(share * sorted.length)));
  return sorted[rank - 1]!;
}

/** One goal of a batch as the server saw it. */
export interface GoalTimes {
  startMs: number;
  /** Undefined: still running when the batch timed out. */
  closeMs: number | undefined;
  /** Why the goal counts as failed; undefined when it made all its calls and completed. */
  failure: string | undefined;
}

/** Failed goals, length, throughput and latency percentiles of a batch. */
export function batchFigures(
  goals: readonly GoalTimes[],
  calls: number,
): {
  failed: number;
  failures: string[];
  lengthMs: number;
  callsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
} {
  const failures = goals.flatMap((goal) => (goal.failure === undefined ? [] : [goal.failure]));
  const closed = goals.filter((goal) => goal.closeMs !== undefined);
  const first = Math.min(...goals.map((goal) => goal.startMs));
  const last = Math.max(...closed.map((goal) => goal.closeMs!));
  const lengthMs = closed.length === 0 ? Number.NaN : last - first;
  const completed = goals.length - failures.length;
  // A goal still running counts as taking the whole batch, so a timeout cannot flatter p99.
  const latencies = goals.map((goal) => (goal.closeMs ?? last) - goal.startMs);
  return {
    failed: failures.length,
    failures: [...new Set(failures)].slice(0, 5),
    lengthMs,
    callsPerSecond: (completed * calls) / (lengthMs / 1000),
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP99Ms: percentile(latencies, 0.99),
  };
}

/** CPU ticks (user + system) from a /proc/<pid>/task/<tid>/stat line. */
export function statTicks(stat: string): number {
  // The command name in parentheses may hold spaces; the fields after it are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the line)
}

const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : '–');
const seconds = (value: number) => (Number.isFinite(value) ? `${(value / 1000).toFixed(1)} s` : '–');
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const mib = (bytes: number) => (Number.isFinite(bytes) ? `${Math.round(bytes / 1024 / 1024)} MiB` : '–');

/** The CPU figure the target is checked on: the workflow thread when it was isolated. */
function cpuBasis(variant: ConcurrencyVariant): { batch: number; single: number; what: string } {
  const isolated = Number.isFinite(variant.batch.workflowThreadMsPerCall);
  return isolated
    ? {
        batch: variant.batch.workflowThreadMsPerCall,
        single: variant.single.workflowThreadMsPerCall,
        what: 'workflow thread',
      }
    : {
        batch: variant.batch.processMsPerCall,
        single: variant.single.processMsPerCall,
        what: 'worker process',
      };
}

export function cpuRatio(variant: ConcurrencyVariant): number {
  const basis = cpuBasis(variant);
  return basis.batch / basis.single;
}

/** A header row, then one row per figure; a column per variant. */
export function concurrencyRows(variants: readonly ConcurrencyVariant[]): string[][] {
  const row = (label: string, pick: (variant: ConcurrencyVariant) => string) => [
    label,
    ...variants.map(pick),
  ];
  return [
    row('', (variant) => variant.label),
    row('goals × tool calls', (variant) => `${variant.goals} × ${variant.calls}`),
    row('goals at work (KEEL_GOALS_AT_WORK)', (variant) =>
      variant.goalsAtWork === 0 ? 'no bound' : String(variant.goalsAtWork),
    ),
    row('failed goals', (variant) => String(variant.batch.failed)),
    row('batch length', (variant) => seconds(variant.batch.lengthMs)),
    row('tool calls/s', (variant) => fixed(variant.batch.callsPerSecond)),
    row('one goal alone: latency', (variant) => ms(variant.single.latencyMs)),
    row(
      'goal latency p50',
      (variant) =>
        `${seconds(variant.batch.latencyP50Ms)} (${fixed(variant.batch.latencyP50Ms / variant.single.latencyMs, 0)}× alone, ${fixed((100 * variant.batch.latencyP50Ms) / variant.batch.lengthMs, 0)}% of batch)`,
    ),
    row(
      'goal latency p99',
      (variant) =>
        `${seconds(variant.batch.latencyP99Ms)} (${fixed(variant.batch.latencyP99Ms / variant.single.latencyMs, 0)}× alone, ${fixed((100 * variant.batch.latencyP99Ms) / variant.batch.lengthMs, 0)}% of batch)`,
    ),
    row(
      'workflow-thread CPU per call',
      (variant) =>
        `${fixed(variant.batch.workflowThreadMsPerCall)} ms (alone ${fixed(variant.single.workflowThreadMsPerCall)})`,
    ),
    row(
      'worker-process CPU per call',
      (variant) =>
        `${fixed(variant.batch.processMsPerCall)} ms (alone ${fixed(variant.single.processMsPerCall)})`,
    ),
    row('CPU per call ÷ alone', (variant) => `${fixed(cpuRatio(variant), 2)}×`),
    row('worker RSS, peak', (variant) => mib(variant.batch.peakRssBytes)),
  ];
}

export function concurrencyVerdicts(variants: readonly ConcurrencyVariant[]): string[] {
  const met = (yes: boolean) => (yes ? 'met' : 'MISSED');
  return variants.map((variant) => {
    const ratio = cpuRatio(variant);
    const share = variant.batch.latencyP50Ms / variant.batch.lengthMs;
    return `${variant.label}, ${variant.goals} × ${variant.calls}: ${variant.batch.failed} failed goals (target 0: ${met(variant.batch.failed === TARGETS.failedGoals)}); ${cpuBasis(variant).what} CPU per call ${fixed(ratio, 2)}× one goal alone (target ≤ ${TARGETS.cpuRatio}×: ${met(ratio <= TARGETS.cpuRatio)}); p50 latency ${fixed(100 * share, 0)}% of the batch (target ≤ 50%: ${met(share <= TARGETS.p50ShareOfBatch)}).${variant.batch.failures.length > 0 ? ` Failures: ${variant.batch.failures.join('; ')}` : ''}`;
  });
}

/** The figures as a plain-text table, for the terminal. */
export function concurrencyTable(result: ConcurrencyResult): string[] {
  const width = 44; // "1 worker, cache 246 (default), 8 at work" and a gap
  const rows = concurrencyRows(result.variants);
  return [
    ...rows.map(
      ([label, ...cells]) => `  ${label!.padEnd(30)}${cells.map((cell) => cell.padStart(width)).join('')}`,
    ),
    ...concurrencyVerdicts(result.variants).map((verdict) => `  ${verdict}`),
  ];
}

/** The figures as markdown, for bench.md. */
export function concurrencyMarkdown(result: ConcurrencyResult): string[] {
  const [header, ...rows] = concurrencyRows(result.variants);
  return [
    '- Many goals on one worker (issue 41): goals of sequential read_file calls started together against the scripted (loopback) model; each column first runs single goals on the same workers, one at a time ("alone"):',
    '',
    `| ${header!.join(' | ')} |`,
    `| --- |${' ---: |'.repeat(header!.length - 1)}`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    ...concurrencyVerdicts(result.variants),
    '',
  ];
}
