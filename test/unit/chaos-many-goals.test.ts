import { test } from 'node:test';
import assert from 'node:assert/strict';
import { effectOutcome, type LedgerEvent } from '../../scripts/chaos/chaos-outcome';
import {
  TIMED_OUT_WAITING,
  failureChain,
  formatManyGoalsReport,
  goalProblem,
  manyGoalsTargetsMet,
  tallyGoals,
  type GoalRun,
  type ManyGoalsReport,
} from '../../scripts/chaos/many-goals-report';

const at = '2026-01-01T00:00:00.000Z';

function event(sequence: number, kind: LedgerEvent['kind'], summary: string, data: object): LedgerEvent {
  return { sequence, at, kind, summary, data: { ...data } };
}

const noEffectProblem = {
  duplicatedEffects: [],
  missingEffects: [],
  unknownOutcomes: [],
  unexplainedMissing: [],
  approvalsSent: 3,
  lostApprovals: [],
};

function goal(workflowId: string, changes: Partial<GoalRun> = {}): GoalRun {
  return { workflowId, status: 'completed', durationMs: 1000, ...noEffectProblem, ...changes };
}

function report(goals: GoalRun[]): ManyGoalsReport {
  return {
    options: {
      goals: goals.length,
      calls: 3,
      kills: 3,
      restarts: 0,
      seed: 1,
      minDelayMs: 500,
      maxDelayMs: 3000,
      goalTimeoutMs: 60_000,
    },
    goals,
    killsDone: 3,
    restartsDone: 0,
    wallMs: 42_000,
    modelRequests: 40,
  };
}

test('a goal outcome names duplicated, missing and unexplained effects and lost approvals', () => {
  const outcome = effectOutcome({
    effects: 'effect-1\neffect-1\neffect-4\n',
    ledger: [
      event(1, 'approval.decided', 'approved', { callId: 'c1' }),
      event(2, 'tool.outcome_unknown', 'outcome unknown: echo effect-2 >> effects.txt', {
        callId: 'c2',
        began: true,
      }),
    ],
    signaled: new Set(['c1', 'c3']),
    calls: 4,
  });
  assert.deepEqual(outcome.duplicatedEffects, [1]);
  assert.deepEqual(outcome.missingEffects, [2, 3]);
  assert.deepEqual(outcome.unexplainedMissing, [3]);
  assert.deepEqual(outcome.unknownOutcomes, [{ callId: 'c2', effect: 2, began: true, effectPresent: false }]);
  assert.equal(outcome.approvalsSent, 2);
  assert.deepEqual(outcome.lostApprovals, ['c3']);
});

test('goals are tallied as completed, failed or timed out, and by effects exactly once', () => {
  const tally = tallyGoals([
    goal('a'),
    goal('b', { status: 'failed', reason: 'worker gone' }),
    goal('c', { status: TIMED_OUT_WAITING }),
    goal('d', { duplicatedEffects: [2] }),
    goal('e', { missingEffects: [1, 3], unexplainedMissing: [3], lostApprovals: ['x'] }),
  ]);
  assert.equal(tally.completed, 3);
  assert.equal(tally.failed, 1);
  assert.equal(tally.timedOut, 1);
  assert.equal(tally.exactlyOnce, 3);
  assert.equal(tally.duplicatedEffects, 1);
  assert.equal(tally.missingEffects, 2);
  assert.equal(tally.unexplainedMissing, 1);
  assert.equal(tally.approvalsSent, 15);
  assert.equal(tally.lostApprovals, 1);
});

test('the targets need every goal completed with every effect exactly once and no approval lost', () => {
  assert.equal(manyGoalsTargetsMet(report([goal('a'), goal('b')])), true);
  assert.equal(manyGoalsTargetsMet(report([goal('a'), goal('b', { status: 'stuck' })])), false);
  assert.equal(manyGoalsTargetsMet(report([goal('a', { status: TIMED_OUT_WAITING })])), false);
  assert.equal(manyGoalsTargetsMet(report([goal('a', { duplicatedEffects: [1] })])), false);
  // Stricter than one goal: an effect missing is a miss even when an unknown outcome explains it.
  assert.equal(manyGoalsTargetsMet(report([goal('a', { missingEffects: [2] })])), false);
  assert.equal(manyGoalsTargetsMet(report([goal('a', { lostApprovals: ['c1'] })])), false);
  // A goal that never started is not a success either.
  assert.equal(
    manyGoalsTargetsMet({ ...report([goal('a')]), options: { ...report([]).options, goals: 2 } }),
    false,
  );
});

test('the report sums the run up and names each goal that missed a target, with why', () => {
  assert.equal(goalProblem(goal('a')), undefined);
  assert.equal(
    goalProblem(goal('b', { status: 'failed', reason: 'boom', duplicatedEffects: [2], missingEffects: [3] })),
    'b: failed (boom); duplicated 2; missing 3 (1 reported by the goal as outcome unknown)',
  );
  const text = formatManyGoalsReport(report([goal('a'), goal('b', { status: 'failed', reason: 'boom' })]));
  assert.match(text, /goals: +1 completed, 1 failed, 0 timed out \(of 2\)/);
  assert.match(text, /exactly once: +2 of 2 goals/);
  assert.match(text, /wall time: +42\.0 s/);
  assert.match(text, /goal b: failed \(boom\)/);
  assert.match(text, /targets: +NOT met/);
  const many = formatManyGoalsReport(
    report([1, 2, 3].map((index) => goal(`g${index}`, { status: 'failed' }))),
    2,
  );
  assert.match(many, /and 1 more goals that missed a target/);
});

test('a workflow failure is told with its causes, outermost first', () => {
  const failure = new Error('Workflow execution failed', {
    cause: new Error('Activity task failed', { cause: new Error('disk full') }),
  });
  assert.equal(failureChain(failure), 'Workflow execution failed ← Activity task failed ← disk full');
  assert.equal(failureChain('plain'), 'plain');
});
