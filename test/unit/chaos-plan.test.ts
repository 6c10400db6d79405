import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chaosScenario, countEffects, effectCommand, effectIndexIn } from '../../scripts/chaos/chaos-goal';
import { disruptionSchedule } from '../../scripts/chaos/chaos-schedule';
import { classifyShellCommand } from '../../src/workflows/tools/shell-command-classifier';

test('the chaos goal appends one numbered effect a turn, each a command that changes files', () => {
  const scenario = chaosScenario(3);
  assert.equal(scenario.turns.length, 4);
  assert.deepEqual(scenario.turns[1]?.toolCalls, [
    { name: 'run_command', input: { command: 'echo effect-2 >> effects.txt' } },
  ]);
  assert.equal(classifyShellCommand(effectCommand(2)).readOnly, false);
  assert.equal(effectIndexIn('outcome unknown: echo effect-17 >> effects.txt'), 17);
});

test('effects are counted against the calls: duplicates and missing ones are named', () => {
  const counted = countEffects('effect-1\neffect-3\neffect-3\neffect-4\n', 5);
  assert.deepEqual(counted.duplicated, [3]);
  assert.deepEqual(counted.missing, [2, 5]);
  assert.deepEqual(countEffects('effect-1\neffect-2\n', 2), { duplicated: [], missing: [] });
});

test('the disruption schedule is seeded: same seed, same schedule; all disruptions, delays in range', () => {
  const options = { kills: 20, restarts: 3, seed: 42, minDelayMs: 100, maxDelayMs: 900 };
  const schedule = disruptionSchedule(options);
  assert.deepEqual(disruptionSchedule(options), schedule);
  assert.notDeepEqual(disruptionSchedule({ ...options, seed: 43 }), schedule);
  assert.equal(schedule.filter((step) => step.kind === 'kill-worker').length, 20);
  assert.equal(schedule.filter((step) => step.kind === 'restart-server').length, 3);
  assert.ok(schedule.every((step) => step.afterMs >= 100 && step.afterMs <= 900));
  // Restarts are spread, not all at the end.
  assert.ok(schedule.slice(0, 20).some((step) => step.kind === 'restart-server'));
});
