import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newGoalState, resumeGoalState } from '../../src/workflows/goal/lifecycle/start';
import type { GoalState, ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import { GoalGuards } from '../../src/workflows/goal/oversight/guards';
import type { GoalPlanning } from '../../src/workflows/goal/oversight/planning';
import type { GoalVisibility } from '../../src/workflows/goal/views/visibility';
import type { ToolOutcome } from '../../src/workflows/tools/tool-outcome';

// A turn parked on humans can hand over to a new run mid-turn (continue-as-new): the calls that
// already ran were observed by the old run's guards, and the turn's end is judged by the new
// run's. What the guards read of each call must travel with the call, or a change it made would
// count as a read there (and a stretch of real work as stagnation).
const visibility = { record: () => undefined, show: () => undefined } as unknown as GoalVisibility;
const planning = { hasActiveStep: () => false } as unknown as GoalPlanning;

function guardsOf(state: GoalState): GoalGuards {
  return new GoalGuards(state, visibility, planning);
}

const write: ToolCallRecord = {
  callId: 'c7',
  toolName: 'write_file',
  input: { path: 'notes.md', content: 'new notes' },
  reversibility: 'mutating',
  summary: 'write_file: notes.md (9 chars)',
  status: 'done',
  result: { content: 'wrote notes.md', isError: false },
};
const outcome: ToolOutcome = {
  ok: true,
  content: 'wrote notes.md',
  candidates: [],
  facts: {},
  effects: { created: [], modified: ['notes.md'], deleted: [], stateDigest: 'digest-1' },
};

test('a change observed by one run is judged a change by the run the turn was handed to', async () => {
  const state = newGoalState({ goal: 'g', workspace: '/w' });
  state.counters.toolCalls = 7;
  const call = structuredClone(write);
  state.currentTurn = [call];
  guardsOf(state).observeCall(call, outcome, 7, false);
  // continue-as-new: the state goes through its schema into a new run with new guards
  const carried = resumeGoalState(JSON.parse(JSON.stringify({ ...state })));
  const turn = carried.currentTurn ?? [];
  assert.equal(turn[0]?.guardObservation?.changed, true);
  await guardsOf(carried).afterTurn(turn);
  assert.equal(carried.guards?.exploration?.atToolCall, 7, 'the change moved the exploration stretch on');
});

test('a call the old run never observed (it ran in no run of this goal) still counts as a read', async () => {
  const state = newGoalState({ goal: 'g', workspace: '/w' });
  state.counters.toolCalls = 7;
  const call = structuredClone(write);
  await guardsOf(state).afterTurn([call]);
  assert.notEqual(state.guards?.exploration?.atToolCall, 7);
});
