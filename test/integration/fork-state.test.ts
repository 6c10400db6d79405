import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';
import { GoalStatus, type GoalState } from '../../src/workflows/goal/lifecycle/state';
import { forkedState, type ForkRequest } from '../../src/workflows/goal/lineage/fork-state';
import { hostTaskQueue } from '../../src/workflows/hosts/host-queues';

/**
 * The state a fork starts from (issue 48), pure and without a server (kept out of test/unit so
 * the mutation step's unit files stay as they are): a running goal of its own, on its own
 * workspace and queue, its clock going on from the turn, what the person said next, and no rule
 * that would repeat an irreversible call without a human.
 */

function ended(): GoalState {
  const state = newGoalState({ goal: 'ship it', workspace: '/work/app' });
  state.status = GoalStatus.Completed;
  state.finalText = 'done';
  state.endReason = 'final answer given';
  state.host = {
    id: 'vm',
    queue: 'keel-fork-capture-0@vm',
    boundAt: 'then',
    via: 'probe',
    workspace: '/srv/app',
  };
  state.planning.snapshotId = 'goal-x-attempt-1';
  const rule = {
    tool: 'send_invoice',
    pattern: '*',
    by: 'ann',
    reason: 'ok',
    createdAt: 'then',
    source: 'added' as const,
  };
  state.approvalRules = {
    schemaVersion: 1,
    nextNumber: 3,
    rules: [
      { ...rule, id: 'rule-1', effect: 'allow', irreversible: true },
      { ...rule, id: 'rule-2', effect: 'allow', irreversible: false, tool: 'write_file' },
    ],
  };
  return state;
}

function request(irreversibleAfter: ForkRequest['lineage']['irreversibleAfter']): ForkRequest {
  return {
    lineage: {
      kind: 'fork',
      of: 'goal-x',
      turn: 3,
      say: 'use YAML',
      at: '2026-12-04T00:00:00.000Z',
      workspace: { from: '/srv/app', to: '/srv/app.keel-fork-1' },
      checkpointKey: 'goal-x',
      irreversibleAfter,
    },
    elapsedMs: 60_000,
    nowMs: 1_000_000,
    taskQueue: 'keel',
  };
}

test('a fork is a running goal on its own workspace and queue, its clock going on from the turn', () => {
  const original = ended();
  const fork = forkedState(original, request([]));
  assert.equal(fork.status, 'running');
  assert.equal(fork.finalText, undefined);
  assert.equal(fork.endReason, undefined);
  assert.equal(fork.config.workspace, '/srv/app.keel-fork-1');
  // The replay that captured the state ran on a queue of its own: the host's queue is named again.
  assert.deepEqual(fork.host, {
    id: 'vm',
    queue: hostTaskQueue('keel', 'vm'),
    boundAt: 'then',
    via: 'probe',
  });
  assert.equal(fork.startedAtMs, 1_000_000 - 60_000);
  assert.deepEqual(fork.inbox, ['use YAML']);
  assert.equal(fork.planning.snapshotId, undefined);
  assert.equal(fork.lineage?.of, 'goal-x');
  assert.equal(fork.lineage?.restored, undefined, 'its files are restored by its first step');
  // No irreversible call after the turn: every rule stays.
  assert.deepEqual(
    fork.approvalRules?.rules.map((rule) => rule.revoked),
    [undefined, undefined],
  );
  assert.equal(original.status, 'completed', 'the original state is not changed');
});

test('after irreversible calls, a rule that approved irreversible calls by itself is revoked in the fork', () => {
  const fork = forkedState(
    ended(),
    request([{ turn: 4, callId: 'call-7', toolName: 'send_invoice', summary: 'send_invoice: acme' }]),
  );
  const [irreversible, other] = fork.approvalRules?.rules ?? [];
  assert.equal(irreversible?.revoked?.by, 'keel');
  assert.match(irreversible?.revoked?.reason ?? '', /fork at turn 3: irreversible calls were made after it/);
  assert.equal(other?.revoked, undefined, 'a rule for other calls stays');
});
