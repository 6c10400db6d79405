import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  batchFigures,
  concurrencyResultSchema,
  concurrencyRows,
  concurrencyVerdicts,
  cpuRatio,
  percentile,
  statTicks,
  type ConcurrencyVariant,
} from '../../scripts/bench/concurrency-figures';

test('percentiles are nearest-rank: p50 of 1..200 is the 100th, p99 the 198th', () => {
  const values = Array.from({ length: 200 }, (_, index) => 200 - index);
  assert.equal(percentile(values, 0.5), 100);
  assert.equal(percentile(values, 0.99), 198);
  assert.equal(percentile([7], 0.99), 7);
  assert.ok(Number.isNaN(percentile([], 0.5)));
});

test('a batch: length from the first start to the last close, calls/s of the completed goals', () => {
  const figures = batchFigures(
    [
      { startMs: 1_000, closeMs: 3_000, failure: undefined },
      { startMs: 1_100, closeMs: 5_000, failure: undefined },
      { startMs: 1_200, closeMs: 4_200, failure: 'ended failed: model' },
    ],
    10,
  );
  assert.equal(figures.failed, 1);
  assert.deepEqual(figures.failures, ['ended failed: model']);
  assert.equal(figures.lengthMs, 4_000);
  assert.equal(figures.callsPerSecond, 5); // two goals × 10 calls in 4 s
  assert.equal(figures.latencyP50Ms, 3_000);
  assert.equal(figures.latencyP99Ms, 3_900);
});

test('a goal still running at the time limit counts as failed and as lasting the whole batch', () => {
  const figures = batchFigures(
    [
      { startMs: 0, closeMs: 1_000, failure: undefined },
      { startMs: 0, closeMs: undefined, failure: 'still running at the time limit' },
    ],
    3,
  );
  assert.equal(figures.failed, 1);
  assert.equal(figures.latencyP99Ms, 1_000);
});

test('CPU ticks are utime + stime, whatever spaces the thread name holds', () => {
  const fields = ['S', ...Array.from({ length: 10 }, () => '0'), '250', '40', '7', '7', '20'];
  assert.equal(statTicks(`4242 (js worker (1)) ${fields.join(' ')}`), 290);
});

function variant(workflowThread: number, process: number): ConcurrencyVariant {
  return {
    label: '1 worker, cache 61 (default)',
    workers: 1,
    cache: 61,
    cacheIsDefault: true,
    goalsAtWork: 0,
    goals: 200,
    calls: 10,
    single: { samples: 3, latencyMs: 1_000, processMsPerCall: 40, workflowThreadMsPerCall: 10 },
    batch: {
      failed: 0,
      failures: [],
      lengthMs: 100_000,
      callsPerSecond: 20,
      latencyP50Ms: 40_000,
      latencyP99Ms: 99_000,
      processMsPerCall: process,
      workflowThreadMsPerCall: workflowThread,
      peakRssBytes: 400 * 1024 * 1024,
    },
  };
}

test('the CPU target is checked on the workflow thread, on the process when the thread was not found', () => {
  assert.equal(cpuRatio(variant(25, 60)), 2.5);
  assert.equal(cpuRatio(variant(Number.NaN, 60)), 1.5);
  const [verdict] = concurrencyVerdicts([variant(25, 60)]);
  assert.match(verdict!, /workflow thread CPU per call 2\.50× .*MISSED/);
  assert.match(verdict!, /p50 latency 40% of the batch \(target ≤ 50%: met\)/);
});

test('a figure nothing measured survives the JSON the process writes', () => {
  const written = JSON.parse(JSON.stringify({ variants: [variant(Number.NaN, 60)] })) as unknown;
  const read = concurrencyResultSchema.parse(written);
  assert.ok(Number.isNaN(read.variants[0]!.batch.workflowThreadMsPerCall));
  assert.equal(read.variants[0]!.batch.processMsPerCall, 60);
});

test('a bounded column says how many goals were at work; figures written before the bound read as none', () => {
  const bounded = { ...variant(10, 40), label: '1 worker, cache 61 (default), 8 at work', goalsAtWork: 8 };
  const row = concurrencyRows([variant(10, 40), bounded]).find(([label]) =>
    label?.startsWith('goals at work'),
  );
  assert.deepEqual(row, ['goals at work (KEEL_GOALS_AT_WORK)', 'no bound', '8']);
  const { goalsAtWork: _bound, ...older } = variant(10, 40);
  assert.equal(concurrencyResultSchema.parse({ variants: [older] }).variants[0]!.goalsAtWork, 0);
});
