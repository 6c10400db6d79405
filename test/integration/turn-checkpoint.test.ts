import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GoalState } from '../../src/workflows/goal/lifecycle/state';
import { turnCheckpoint } from '../../src/workflows/goal/lineage/turn-checkpoint';

// What a changing call asks its worker to keep (issue 48): the goal's checkpoint settings reach
// the activity as they are, a read-only call or checkpoints turned off ask for nothing.

function stateWith(checkpoints: GoalState['config']['checkpoints'], extra: Partial<GoalState> = {}) {
  return { config: { checkpoints }, counters: { modelTurns: 7 }, ...extra } as unknown as GoalState;
}

test('a changing call carries the turn, the key and both retention settings', () => {
  const state = stateWith({ enabled: true, retainTurns: 20, retainForMs: 86_400_000 });
  assert.deepEqual(turnCheckpoint(state, 'goal-a', { reversibility: 'mutating' }), {
    checkpoint: { key: 'goal-a', turn: 7, retainTurns: 20, retainForMs: 86_400_000 },
  });
  assert.deepEqual(turnCheckpoint(stateWith(undefined), 'goal-a', { reversibility: 'irreversible' }), {
    checkpoint: { key: 'goal-a', turn: 7 },
  });
});

test('a read-only call, or a goal with checkpoints off, asks for none', () => {
  assert.deepEqual(turnCheckpoint(stateWith(undefined), 'goal-a', { reversibility: 'read-only' }), {});
  assert.deepEqual(
    turnCheckpoint(stateWith({ enabled: false }), 'goal-a', { reversibility: 'mutating' }),
    {},
  );
});

test('a rewound goal keeps its checkpoints under a key of its own; turn 0 is labelled 1', () => {
  const rewound = stateWith(undefined, {
    lineage: { kind: 'rewind', of: 'goal-a', turn: 4, at: '2026-12-04T12:00:00.000Z' },
    counters: { modelTurns: 0 },
  } as unknown as Partial<GoalState>);
  assert.deepEqual(turnCheckpoint(rewound, 'goal-a', { reversibility: 'mutating' }), {
    checkpoint: { key: 'goal-a~rewind-2026-12-04T12:00:00.000Z', turn: 1 },
  });
});
