import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoalDiscipline } from '../../src/workflows/goal/oversight/discipline';
import type { GoalVisibility } from '../../src/workflows/goal/views/visibility';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';

/**
 * The checkpoint's ledger line counts the task's tool calls in plain English: a custom cadence
 * of 1 makes a checkpoint after a single call, which reads "1 tool call", not "1 tool calls".
 */
function checkpointSummary(toolCalls: number, cadence: number): string[] {
  const state = newGoalState({ goal: 'fix the build', workspace: '/w' });
  const summaries: string[] = [];
  const visibility = {
    record: (_kind: string, summary: string) => {
      summaries.push(summary);
    },
  } as unknown as GoalVisibility;
  state.principles.cadence.current = cadence;
  state.principles.cadence.taskToolCalls = toolCalls;
  new GoalDiscipline(state, visibility).checkpoint();
  return summaries;
}

test('a checkpoint after 1 tool call says "1 tool call"; after 0, 2 or more, "N tool calls"', () => {
  assert.deepEqual(checkpointSummary(1, 1), ['checkpoint after 1 tool call of the task']);
  assert.deepEqual(checkpointSummary(2, 2), ['checkpoint after 2 tool calls of the task']);
  assert.deepEqual(checkpointSummary(11, 11), ['checkpoint after 11 tool calls of the task']);
});
