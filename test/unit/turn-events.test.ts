import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';
import type { GoalState, ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import { TurnEvents } from '../../src/workflows/goal/views/turn-events';

function goal(): GoalState {
  const state = newGoalState({ goal: 'Tidy the build directory', workspace: '/tmp' });
  state.transcript = [{ role: 'user', content: [{ type: 'text', text: 'Tidy the build directory' }] }];
  return state;
}

function call(callId: string, status: ToolCallRecord['status']): ToolCallRecord {
  return {
    callId,
    toolName: 'read_file',
    input: { path: 'a' },
    reversibility: 'read-only',
    summary: 'read a',
    status,
  };
}

/** The model answers a turn with text and calls, as model-turn/model-calls.ts leaves the state. */
function answer(state: GoalState, text: string, calls: string[]): void {
  state.counters.modelTurns += 1;
  state.usage.outputTokens += 10;
  state.transcript.push({
    role: 'assistant',
    content: [
      { type: 'text', text },
      ...calls.map((id) => ({ type: 'tool_use' as const, id, name: 'read_file', input: { path: 'a' } })),
    ],
  });
}

const kinds = (events: ReturnType<TurnEvents['take']>): string[] =>
  events.map((event) => `${event.kind} ${String(event.data?.callId ?? event.data?.turn)}`);

test("a turn's answer, each call as it runs and each result, each once and in order", () => {
  const state = goal();
  const events = new TurnEvents(state, () => true);
  assert.deepEqual(events.take(), []);
  answer(state, 'I will read a and b.', ['c1', 'c2']);
  const turn = [call('c1', 'ready'), call('c2', 'awaiting-approval')];
  state.currentTurn = turn;
  const answered = events.take();
  assert.deepEqual(kinds(answered), ['model.answered 1']);
  assert.equal(answered[0]?.data?.text, 'I will read a and b.');
  assert.deepEqual(answered[0]?.data?.toolCalls, ['read_file', 'read_file']);
  assert.equal((answered[0]?.data?.usage as { outputTokens: number }).outputTokens, 10);
  turn[0]!.status = 'running';
  assert.deepEqual(kinds(events.take()), ['tool.called c1']);
  assert.deepEqual(events.take(), [], 'nothing twice');
  turn[0]!.status = 'done';
  turn[0]!.result = { content: 'contents of a', isError: false };
  turn[1]!.status = 'running';
  assert.deepEqual(kinds(events.take()), ['tool.finished c1', 'tool.called c2']);
  // The goal lets go of the turn before anyone looks again: its last result is still seen.
  turn[1]!.status = 'done';
  turn[1]!.result = { content: 'no such file', isError: true };
  state.currentTurn = undefined;
  const finished = events.take();
  assert.deepEqual(kinds(finished), ['tool.finished c2']);
  assert.equal(finished[0]?.data?.isError, true);
  assert.equal(finished[0]?.data?.ran, true);
  assert.deepEqual(events.take(), []);
  answer(state, 'Done.', []);
  assert.deepEqual(kinds(events.take()), ['model.answered 2']);
});

test('a call closed without running (a denial) has its result, and no call event', () => {
  const state = goal();
  const events = new TurnEvents(state, () => true);
  const denied = call('c1', 'awaiting-approval');
  state.currentTurn = [denied];
  events.take();
  denied.status = 'done';
  denied.result = { content: 'denied by ann', isError: true };
  const taken = events.take();
  assert.deepEqual(kinds(taken), ['tool.finished c1']);
  assert.equal(taken[0]?.data?.ran, false);
});

test('a run that carries a turn over does not say again what the run before it said', () => {
  const state = goal();
  const done = call('c1', 'done');
  done.result = { content: 'ok', isError: false };
  state.currentTurn = [done, call('c2', 'awaiting-approval')];
  state.counters.modelTurns = 4;
  const events = new TurnEvents(state, () => true);
  assert.deepEqual(events.take(), []);
});

test('a run from before the stream records none of it', () => {
  const state = goal();
  let asked = 0;
  const events = new TurnEvents(state, () => {
    asked += 1;
    return false;
  });
  assert.equal(asked, 1, 'the patch is asked as the run is constructed, at a point every replay reaches');
  assert.deepEqual(events.take(), []);
  answer(state, 'Hello', []);
  assert.deepEqual(events.take(), []);
  answer(state, 'Again', []);
  assert.deepEqual(events.take(), []);
  assert.equal(asked, 1, 'and once per run');
});
