import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HISTORY_BYTES_SOFT_LIMIT,
  HISTORY_EVENTS_SOFT_LIMIT,
  timeForNewRun,
} from '../../src/workflows/goal/history-limits';

const quiet = { continueAsNewSuggested: false, historyLength: 100, historySize: 50_000 };

test("a run hands over at keel's own limits, before Temporal suggests it", () => {
  assert.equal(timeForNewRun(quiet), false);
  assert.equal(timeForNewRun({ ...quiet, historyLength: HISTORY_EVENTS_SOFT_LIMIT - 1 }), false);
  assert.equal(timeForNewRun({ ...quiet, historySize: HISTORY_BYTES_SOFT_LIMIT - 1 }), false);
  assert.equal(timeForNewRun({ ...quiet, historyLength: HISTORY_EVENTS_SOFT_LIMIT }), true);
  assert.equal(timeForNewRun({ ...quiet, historySize: HISTORY_BYTES_SOFT_LIMIT }), true);
  assert.ok(HISTORY_EVENTS_SOFT_LIMIT < 4_096 && HISTORY_BYTES_SOFT_LIMIT < 4 * 1024 * 1024);
});

test("Temporal's suggestion always counts", () => {
  assert.equal(timeForNewRun({ ...quiet, continueAsNewSuggested: true }), true);
});
