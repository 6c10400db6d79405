import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoalDiscipline } from '../../src/workflows/goal/oversight/discipline';
import type { GoalVisibility } from '../../src/workflows/goal/views/visibility';
import type { GoalState } from '../../src/workflows/goal/lifecycle/state';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';
import { checkpointPrompt } from '../../src/workflows/principles/cadence';
import { budgetSchema } from '../../src/workflows/principles/budget';

/**
 * The goal discipline's rules (issue 27: mutation testing; src/workflows/goal/oversight/discipline.ts):
 * a checkpoint once it is due, quoting the current (last) task, joined to the transcript and
 * recorded with the tool call it came at; budget warnings each recorded once, when first crossed;
 * an exhausted budget (the goal's own or the worker's) ending the goal with a reason that rounds
 * what was spent to 3 decimals; harness notes given to the model all at once, in order, then gone.
 */

type Recorded = [kind: string, summary: string, data: Record<string, unknown>];

function discipline(input: object = {}) {
  const state: GoalState = newGoalState({ goal: 'fix the build', workspace: '/w', ...input });
  const recorded: Recorded[] = [];
  const visibility = {
    record: (kind: string, summary: string, data: Record<string, unknown>) => {
      recorded.push([kind, summary, data]);
    },
  } as unknown as GoalVisibility;
  return { state, recorded, discipline: new GoalDiscipline(state, visibility) };
}

test('a checkpoint once due: the prompt quoting the last task joins the transcript; recorded with its tool call and cadence', () => {
  const { state, recorded, discipline: it } = discipline();
  state.tasks.push({ index: 1, text: 'now ship it', startedAt: '', startedAtTurn: 3 });
  state.principles.cadence.current = 5;
  state.principles.cadence.taskToolCalls = 6;
  it.checkpoint();
  assert.deepEqual(state.transcript, [
    {
      role: 'user',
      content: [
        { type: 'text', text: checkpointPrompt({ toolCallsSinceCheckpoint: 6, taskText: 'now ship it' }) },
      ],
    },
  ]);
  assert.deepEqual(recorded, [
    ['reflection.checkpoint', 'checkpoint after 6 tool calls of the task', { atToolCall: 6, cadence: 5 }],
  ]);
  assert.equal(state.principles.cadence.lastCheckpointAt, 6);
});

test('a checkpoint with no task recorded quotes none', () => {
  const { state, discipline: it } = discipline();
  state.tasks.length = 0;
  state.principles.cadence.current = 2;
  state.principles.cadence.taskToolCalls = 2;
  it.checkpoint();
  assert.deepEqual(state.transcript, [
    {
      role: 'user',
      content: [{ type: 'text', text: checkpointPrompt({ toolCallsSinceCheckpoint: 2, taskText: '' }) }],
    },
  ]);
});

test('no checkpoint before it is due: nothing added, nothing recorded', () => {
  const { state, recorded, discipline: it } = discipline();
  state.principles.cadence.current = 5;
  state.principles.cadence.taskToolCalls = 4;
  const before = state.transcript;
  it.checkpoint();
  assert.equal(state.transcript, before);
  assert.deepEqual(recorded, []);
});

test('budget warnings are recorded once each, when first crossed, with the tool call; no exhaustion below 100%', () => {
  const { state, recorded, discipline: it } = discipline({ principles: { budget: { maxToolCalls: 10 } } });
  state.counters.toolCalls = 6;
  assert.equal(it.checkBudget(), undefined);
  assert.deepEqual(recorded, []);
  state.counters.toolCalls = 7;
  assert.equal(it.checkBudget(), undefined);
  state.counters.toolCalls = 8;
  assert.equal(it.checkBudget(), undefined);
  state.counters.toolCalls = 9;
  assert.equal(it.exhaustedBudget(), undefined);
  assert.deepEqual(recorded, [
    ['budget.warning', 'budget warning tool-calls@0.7', { key: 'tool-calls@0.7', atToolCall: 7 }],
    ['budget.warning', 'budget warning tool-calls@0.9', { key: 'tool-calls@0.9', atToolCall: 9 }],
  ]);
});

test('at 100% of a budget the goal ends: the reason is returned and recorded with what was spent', () => {
  const {
    state,
    recorded,
    discipline: it,
  } = discipline({
    principles: { budget: { maxToolCalls: 10, warnAt: [0.5] } },
  });
  state.principles.budgetWarned.push('tool-calls@0.5');
  state.counters.toolCalls = 10;
  assert.equal(it.exhaustedBudget(), 'tool-calls budget exhausted (10 of 10)');
  assert.deepEqual(recorded, [
    [
      'budget.exhausted',
      'tool-calls budget exhausted (10 of 10)',
      { dimension: 'tool-calls', spent: 10, limit: 10, atToolCall: 10 },
    ],
  ]);
});

test('what was spent is rounded to 3 decimals in the reason, kept whole in the record', () => {
  const {
    state,
    recorded,
    discipline: it,
  } = discipline({
    model: { name: 'claude-sonnet-4-5' },
    principles: { budget: { maxUsd: 0.01, warnAt: [0.5] } },
  });
  state.principles.budgetWarned.push('usd@0.5');
  state.usage.inputTokens = 4115; // $3 per million: $0.012345
  const reason = it.exhaustedBudget();
  assert.equal(reason, 'usd budget exhausted (0.012 of 0.01)');
  assert.equal(recorded.length, 1);
  const [kind, summary, data] = recorded[0] ?? [];
  assert.deepEqual([kind, summary], ['budget.exhausted', reason]);
  assert.equal(data?.dimension, 'usd');
  assert.ok(Math.abs(Number(data?.spent) - 0.012345) < 1e-9, String(data?.spent));
});

test("the worker's budget holds when the goal sets none", () => {
  const { state, discipline: it } = discipline();
  state.workerDefaults.budget = budgetSchema.parse({ maxToolCalls: 3, warnAt: [0.5] });
  state.principles.budgetWarned.push('tool-calls@0.5');
  state.counters.toolCalls = 3;
  assert.equal(it.exhaustedBudget(), 'tool-calls budget exhausted (3 of 3)');
});

test('without a budget nothing is ever exhausted or warned', () => {
  const { state, recorded, discipline: it } = discipline();
  state.counters.toolCalls = 1_000_000;
  assert.equal(it.exhaustedBudget(), undefined);
  assert.deepEqual(recorded, []);
});

test('harness notes join the transcript in order, after what the user message already holds, and are gone', () => {
  const { state, discipline: it } = discipline();
  state.transcript = [{ role: 'user', content: [{ type: 'text', text: 'the goal' }] }];
  state.notes.push('first note', 'second note');
  it.giveNotes();
  assert.deepEqual(state.transcript, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'the goal' },
        { type: 'text', text: 'first note' },
        { type: 'text', text: 'second note' },
      ],
    },
  ]);
  assert.deepEqual(state.notes, []);
  const before = state.transcript;
  it.giveNotes();
  assert.equal(state.transcript, before, 'no notes: the transcript is left as it is');
});
