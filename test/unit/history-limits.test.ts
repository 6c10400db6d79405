import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HISTORY_BYTES_SOFT_LIMIT,
  HISTORY_EVENTS_SOFT_LIMIT,
  PARKED_RUN_EVENTS_LIMIT,
  timeForNewRun,
  timeToHandOverParkedTurn,
} from '../../src/workflows/goal/lifecycle/history-limits';

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

test(`a turn parked on humans hands over once its run has ${PARKED_RUN_EVENTS_LIMIT} events, far below the run limits`, () => {
  assert.equal(timeToHandOverParkedTurn({ ...quiet, historyLength: PARKED_RUN_EVENTS_LIMIT - 1 }), false);
  assert.equal(timeToHandOverParkedTurn({ ...quiet, historyLength: PARKED_RUN_EVENTS_LIMIT }), true);
  assert.ok(PARKED_RUN_EVENTS_LIMIT <= 300 && PARKED_RUN_EVENTS_LIMIT < HISTORY_EVENTS_SOFT_LIMIT);
  // The run limits hand a parked turn over too, even in a run with few events.
  assert.equal(
    timeToHandOverParkedTurn({ ...quiet, historyLength: 10, historySize: HISTORY_BYTES_SOFT_LIMIT }),
    true,
  );
  assert.equal(timeToHandOverParkedTurn({ ...quiet, historyLength: 10, continueAsNewSuggested: true }), true);
  assert.equal(timeToHandOverParkedTurn({ ...quiet, historyLength: 10 }), false);
});
