import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runBench, type BenchOptions } from '../../scripts/bench/run-bench';
import type { BenchReport } from '../../scripts/bench/report';
import { SystemName } from '../../scripts/bench/systems';
import { inputTokensOfAllKinds } from '../../src/workflows/principles/cost';
import { tempDirectory } from '../support/temp-directory';

/** A bench of one keel section alone: no comparison, nothing else measured. */
function oneSection(outputDirectory: string, section: Partial<BenchOptions>): BenchOptions {
  return {
    repetitions: 1,
    calls: 1,
    extraSequential: [],
    parallelPerTurn: 1,
    systems: [SystemName.Keel],
    comparison: false,
    longGoalCalls: 0,
    longGoalTimeoutMs: 1,
    replayCalls: 0,
    parkedGoals: 0,
    startSamples: 0,
    commandSamples: 0,
    outputDirectory,
    png: false,
    ...(process.env.TEMPORAL_ADDRESS ? { address: process.env.TEMPORAL_ADDRESS } : {}),
    log: () => undefined,
    ...section,
  };
}

// A host without workspace roots keeps its claims registry in KEEL_STATE_DIRECTORY, or else in
// /tmp for good (workspace-claims.ts): the bench's workers get a folder this test removes.
process.env.KEEL_STATE_DIRECTORY ??= tempDirectory('keel-state-');

// A tiny `npm run bench`: every system, scenario and column is produced and sane. Nothing here
// is timed: the numbers only have to exist and be plausible, whatever the machine's load.
test(
  'npm run bench, tiny: every column of every system, the separate measurements and the chart',
  { timeout: 600_000 },
  async () => {
    const outputDirectory = tempDirectory('keel-bench-out-');
    const { report, files } = await runBench({
      repetitions: 1,
      calls: 6,
      extraSequential: [],
      parallelPerTurn: 3,
      longGoalCalls: 12,
      longGoalTimeoutMs: 300_000,
      replayCalls: 6,
      parkedGoals: 4,
      evictedCalls: 3,
      startSamples: 1,
      commandSamples: 2,
      checkpointTurns: 3,
      outputDirectory,
      png: true,
      ...(process.env.TEMPORAL_ADDRESS ? { address: process.env.TEMPORAL_ADDRESS } : {}),
      log: () => undefined,
    });
    const shown = readFileSync(files.markdown, 'utf8');
    assert.deepEqual(report.unavailable, {}, shown);
    assert.deepEqual(report.failures, [], shown);
    assert.equal(report.summaries.length, 12, shown); // 4 systems (keel-viewed too) × sequential, parallel, mixed
    for (const row of report.summaries) {
      const where = `${row.system} ${row.scenario}\n${shown}`;
      assert.equal(row.completed, 1, where);
      assert.deepEqual(row.errors, [], where);
      assert.ok(row.msPerCall.median > 0 && Number.isFinite(row.msPerCall.median), where);
      assert.ok(row.ratioToFloor !== undefined && row.ratioToFloor.median > 0, where);
      if (row.system === SystemName.Floor) assert.equal(row.ratioToFloor.median, 1, where);
      // A tool call costs at least its activity's scheduled, started and completed events.
      assert.ok(row.eventsPerCall >= 3, where);
      assert.ok(row.bytesPerCall > 100, where);
      assert.ok(row.continueAsNewRuns >= 0, where);
      assert.ok(row.largestRunEvents >= (row.eventsPerCall * row.calls) / (row.continueAsNewRuns + 1), where);
      assert.ok(row.largestRunBytes > 0, where);
      assert.match(
        shown,
        new RegExp(`\\| ${row.scenario.replace(/[×]/g, '.')} \\| ${row.calls} \\| ${row.system} \\|`),
      );
    }
    // The mixed scenario's irreversible call was approved in every system (it completed).
    assert.ok(report.longGoal && !('skipped' in report.longGoal), shown);
    assert.equal(report.longGoal.completed, true, shown);
    assert.equal(report.longGoal.everyRunWithinLimits, true, shown);
    assert.ok(report.replay && !('skipped' in report.replay), shown);
    assert.deepEqual(report.replay.failures, [], shown);
    assert.ok(report.replay.events > 0 && report.replay.replayMs > 0, shown);
    assert.ok(report.replay.replayWorkerMs > 0 && report.replay.runMs.median > 0, shown);
    // Issue 48: the fork's capture replays the same recorded goal, turn by turn; checkpoints store what changed.
    assert.ok(report.forkCapture && !('skipped' in report.forkCapture), shown);
    assert.ok(report.forkCapture.turn === 3 && report.forkCapture.captureMs > 0, shown);
    assert.ok(
      report.forkCapture.replayedEvents > 0 && report.forkCapture.replayedEvents <= report.forkCapture.events,
      shown,
    );
    assert.ok(report.forkCapture.stateBytes > 1000, shown);
    assert.ok(report.checkpoints && !('skipped' in report.checkpoints), shown);
    assert.equal(report.checkpoints.turns, 3, shown);
    const { storedBytesPerTurn, changedBytesPerTurn, firstCheckpointBytes } = report.checkpoints;
    assert.ok(storedBytesPerTurn.max <= changedBytesPerTurn && storedBytesPerTurn.min > 0, shown);
    assert.ok(firstCheckpointBytes >= report.checkpoints.files * report.checkpoints.fileBytes, shown);
    assert.match(shown, /Workspace checkpoints, 500 files/);
    assert.ok(report.parkedMemory && !('skipped' in report.parkedMemory), shown);
    assert.equal(report.parkedMemory.parked, 4, shown);
    assert.ok(report.parkedMemory.idleRssBytes > 0 && report.parkedMemory.parkedRssBytes > 0, shown);
    assert.ok(report.parkedMemory.cacheSize >= 2, shown);
    assert.deepEqual(
      report.parkedMemory.rssAsParked.map((sample) => sample.parked),
      [4],
      shown, // four goals are started in one batch of 25: one sample, when all have parked
    );
    // The evicted goal went on after each decision: five decisions, each followed by a model turn.
    assert.ok(report.evictedApproval && !('skipped' in report.evictedApproval), shown);
    assert.equal(report.evictedApproval.samples, 5, shown);
    assert.ok(report.evictedApproval.decisionToModelMs.min > 0, shown);
    assert.ok(report.evictedApproval.replayedRunEvents.min > 0, shown);
    assert.match(shown, /Approval of an evicted goal \(3 calls made before it parked/);
    assert.ok(report.workerStart && !('skipped' in report.workerStart), shown);
    const { compiledWithBundleMs, compiledBundlingMs, sourceWithBundleMs } = report.workerStart;
    for (const started of [compiledWithBundleMs, compiledBundlingMs, sourceWithBundleMs])
      assert.ok(started.median > 0 && Number.isFinite(started.median), shown);
    assert.ok(report.commandCosts && !('skipped' in report.commandCosts), shown);
    const { floorMs, readOnlyMs, layeredMs, previousMs } = report.commandCosts;
    for (const cost of [floorMs, readOnlyMs, layeredMs, previousMs])
      assert.ok(cost.median > 0 && Number.isFinite(cost.median), shown);
    assert.match(shown, /mutating on a copy-on-write layer/);

    const json = JSON.parse(readFileSync(files.json, 'utf8')) as { summaries: unknown[] };
    assert.equal(json.summaries.length, report.summaries.length, 'the JSON holds every row the report has');
    assert.ok(files.png, 'a PNG chart was written');
    const png = readFileSync(files.png);
    assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
    assert.match(readFileSync(files.svg, 'utf8'), /<polyline|<circle/);
  },
);

// Deterministic, not timed: the scripted server bills the prompt cache from the request text.
test(
  'npm run bench, cache figures: a 50-turn goal reads ≥ 85% of its input from the cache, for ≤ 0.25× the input cost',
  { timeout: 180_000 },
  async () => {
    const outputDirectory = tempDirectory('keel-bench-cache-');
    const { report, files } = await runBench(oneSection(outputDirectory, { cacheTurns: 50 }));
    const shown = readFileSync(files.markdown, 'utf8');
    assert.deepEqual(report.failures, [], shown);
    const cache = report.cacheFigures;
    assert.ok(cache && !('skipped' in cache), shown);
    for (const run of [cache.on, cache.off]) {
      assert.equal(run.status, 'completed', shown);
      assert.equal(run.modelTurns, 50, shown);
      assert.equal(run.toolCalls, 49, shown);
      // What the goal counted is what the server billed, request by request summed.
      assert.equal(run.requests, 50, shown);
      const { inputTokens, cacheCreationInputTokens, cacheReadInputTokens } = run.usage;
      assert.deepEqual(run.billed, { inputTokens, cacheCreationInputTokens, cacheReadInputTokens }, shown);
    }
    // The same requests, but for cache_control: the same input of every kind, billed differently.
    const on = inputTokensOfAllKinds(cache.on.usage);
    const off = inputTokensOfAllKinds(cache.off.usage);
    assert.ok(Math.abs(on - off) / off < 0.01, `${on} vs ${off}\n${shown}`);
    assert.equal(cache.off.usage.cacheReadInputTokens + cache.off.usage.cacheCreationInputTokens, 0, shown);
    assert.ok(cache.readShare >= 0.85 && cache.readShareMet, shown);
    assert.ok(cache.inputCostRatio <= 0.25 && cache.inputCostRatioMet, shown);
    assert.match(shown, /% of input read from the cache\*\* \(target ≥ 85\.0%: target met\)/);
    assert.match(shown, /input cost 0\.\d+× the uncached\*\* \(target ≤ 0\.25×: target met\)/);
  },
);

// Not timed either: the wall times only have to exist; the history events are the workflows' own.
test(
  'npm run bench, delegation: a delegating goal and a plain one, both measured, the delegation dearer in events',
  { timeout: 300_000 },
  async () => {
    const outputDirectory = tempDirectory('keel-bench-delegation-');
    const { report, files } = await runBench(oneSection(outputDirectory, { delegations: 2 }));
    const shown = readFileSync(files.markdown, 'utf8');
    assert.deepEqual(report.failures, [], shown);
    const delegation = report.delegation;
    assert.ok(delegation && !('skipped' in delegation), shown);
    assert.deepEqual(delegation.errors, [], shown);
    assert.equal(delegation.pairs.length, 2, shown);
    for (const { plain, delegated } of delegation.pairs) {
      assert.ok(plain.wallMs > 0 && delegated.wallMs > 0, shown);
      assert.ok(plain.events > 0 && delegated.parentEvents > 0 && delegated.childEvents > 0, shown);
      // The child is a goal of its own, making the plain goal's call: together they hold more.
      assert.ok(delegated.parentEvents + delegated.childEvents > plain.events, shown);
      assert.notEqual(delegated.childWorkflowId, delegated.workflowId, shown);
    }
    assert.ok(delegation.extraTotalEvents.min > 0, shown);
    assert.ok(Number.isFinite(delegation.msRatio.median) && delegation.msRatio.median > 0, shown);
    assert.match(shown, /a delegation costs \+\d+ history events and [+-]\d+ ms more than a plain tool call/);
    const json = JSON.parse(readFileSync(files.json, 'utf8')) as BenchReport;
    assert.ok(json.delegation && !('skipped' in json.delegation), 'the JSON holds the delegation figures');
    assert.equal(json.delegation.pairs.length, 2);
  },
);
