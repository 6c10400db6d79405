import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_BACKTRACK_ATTEMPTS,
  PlanSchema,
  PlanStatus,
  ProposedPlanSchema,
  STEP_FAILURE_THRESHOLDS,
  StepStatus,
  activeStep,
  backtrackDecision,
  completeActiveStep,
  createPlan,
  failActiveStep,
  failedToolCallsOf,
  renderPlan,
  sameToolCall,
  stepFailureFromHarness,
  supersede,
  type Plan,
  type ProposedStep,
} from '../../src/workflows/planning/plan';
import { MetaStrategy, Strategy } from '../../src/workflows/planning/strategy';

const proposed: ProposedStep[] = [
  { toolName: 'list_files', toolInput: { path: 'src' }, rationale: 'see the layout', expectedEffects: [] },
  {
    toolName: 'read_file',
    toolInput: { path: 'src/app.ts' },
    rationale: 'read the entry point',
    expectedEffects: ['know the exports'],
  },
  {
    toolName: 'write_file',
    toolInput: { path: 'src/config.ts', content: 'export {}' },
    rationale: 'add the config',
    expectedEffects: ['src/config.ts exists'],
  },
];

function newPlan(options: { steps?: ProposedStep[]; failed?: ProposedStep[]; attempt?: number } = {}) {
  return createPlan({
    goalId: 'goal-1',
    attempt: options.attempt ?? 0,
    strategy: Strategy.Knowledge,
    metaStrategy: MetaStrategy.ExploreFirst,
    proposedSteps: options.steps ?? proposed,
    failedToolCalls: options.failed ?? [],
  });
}

function planOf(result: ReturnType<typeof createPlan>): Plan {
  assert.ok(result.ok, result.ok ? '' : result.reason);
  return result.plan;
}

function statuses(plan: Plan): string[] {
  return plan.steps.map((step) => step.status);
}

test('createPlan makes the first step active and the rest pending, and validates', () => {
  const plan = planOf(newPlan());
  assert.deepEqual(statuses(plan), ['active', 'pending', 'pending']);
  assert.deepEqual(
    plan.steps.map((step) => step.index),
    [0, 1, 2],
  );
  assert.equal(plan.status, PlanStatus.Active);
  assert.equal(plan.attempt, 0);
  assert.equal(activeStep(plan)?.toolName, 'list_files');
  assert.deepEqual(PlanSchema.parse(plan), plan);
});

test('a first step repeating a failed call is skipped, whatever the key order of its input', () => {
  const plan = planOf(
    newPlan({ failed: [{ ...proposed[0]!, toolInput: { path: 'src' } }, { ...proposed[2]! }] }),
  );
  assert.deepEqual(statuses(plan), ['skipped', 'active', 'pending']);
  assert.match(plan.steps[0]!.failureReason ?? '', /already failed/);

  const reordered = {
    ...proposed[2]!,
    toolInput: { content: 'export {}', path: 'src/config.ts' },
  };
  const steps = [proposed[2]!, proposed[0]!];
  assert.deepEqual(statuses(planOf(newPlan({ steps, failed: [reordered] }))), ['skipped', 'active']);
});

test('a run of leading repeats is skipped; a later repeat is kept', () => {
  const steps = [proposed[0]!, proposed[1]!, proposed[2]!, proposed[0]!];
  const plan = planOf(newPlan({ steps, failed: [proposed[0]!, proposed[1]!] }));
  assert.deepEqual(statuses(plan), ['skipped', 'skipped', 'active', 'pending']);
});

test('same tool with different input is not a repeat', () => {
  const plan = planOf(newPlan({ failed: [{ ...proposed[0]!, toolInput: { path: 'test' } }] }));
  assert.equal(plan.steps[0]!.status, StepStatus.Active);
});

test('createPlan fails when no step remains', () => {
  const onlyRepeats = newPlan({ steps: [proposed[0]!], failed: [proposed[0]!] });
  assert.equal(onlyRepeats.ok, false);
  const empty = newPlan({ steps: [] });
  assert.equal(empty.ok, false);
});

test('sameToolCall compares deeply and ignores key order', () => {
  const first = {
    toolName: 'run',
    toolInput: { command: 'npm', options: { cwd: '.', env: { A: '1' } }, args: ['test'] },
  };
  const second = {
    toolName: 'run',
    toolInput: { args: ['test'], options: { env: { A: '1' }, cwd: '.' }, command: 'npm' },
  };
  assert.ok(sameToolCall(first, second));
  assert.ok(!sameToolCall(first, { ...second, toolInput: { ...second.toolInput, args: ['build'] } }));
  assert.ok(!sameToolCall(first, { ...first, toolName: 'other' }));
});

test('completing steps walks the plan to Completed, without mutating', () => {
  const start = planOf(newPlan());
  const snapshot = structuredClone(start);
  const second = completeActiveStep(start);
  assert.deepEqual(start, snapshot);
  assert.deepEqual(statuses(second), ['completed', 'active', 'pending']);
  assert.equal(second.status, PlanStatus.Active);
  const done = completeActiveStep(completeActiveStep(second));
  assert.deepEqual(statuses(done), ['completed', 'completed', 'completed']);
  assert.equal(done.status, PlanStatus.Completed);
  assert.equal(activeStep(done), undefined);
  assert.equal(completeActiveStep(done), done);
});

test('completing skips over skipped steps to the next pending one', () => {
  const plan = planOf(newPlan({ failed: [proposed[0]!] }));
  const next = completeActiveStep(plan);
  assert.deepEqual(statuses(next), ['skipped', 'completed', 'active']);
});

test('failing the active step fails the plan and skips the pending steps', () => {
  const plan = completeActiveStep(planOf(newPlan()));
  const snapshot = structuredClone(plan);
  const failed = failActiveStep(plan, 'file not found');
  assert.deepEqual(plan, snapshot);
  assert.deepEqual(statuses(failed), ['completed', 'failed', 'skipped']);
  assert.equal(failed.status, PlanStatus.Failed);
  assert.equal(failed.steps[1]!.failureReason, 'file not found');
  assert.match(failed.failureReason ?? '', /step 2 \(read_file\) failed: file not found/);
  assert.deepEqual(failedToolCallsOf(failed), [{ toolName: 'read_file', toolInput: { path: 'src/app.ts' } }]);
  assert.equal(failActiveStep(failed, 'again'), failed);
});

test('supersede closes a failed or active plan, never a completed one', () => {
  const failed = failActiveStep(planOf(newPlan()), 'boom');
  const superseded = supersede(failed);
  assert.equal(superseded.status, PlanStatus.Superseded);
  assert.deepEqual(statuses(superseded), statuses(failed));

  const active = supersede(planOf(newPlan()));
  assert.equal(active.status, PlanStatus.Superseded);
  assert.deepEqual(statuses(active), ['skipped', 'skipped', 'skipped']);

  const steps = [proposed[0]!];
  const completed = completeActiveStep(planOf(newPlan({ steps })));
  assert.equal(supersede(completed), completed);
});

test('backtrack: attempts 0 and 1 replan with the other meta-strategy; attempt 2 gives up', () => {
  assert.equal(MAX_BACKTRACK_ATTEMPTS, 3);
  assert.deepEqual(backtrackDecision({ attempt: 0 }), {
    kind: 'replan',
    nextAttempt: 1,
    metaStrategy: MetaStrategy.ReasonFirst,
  });
  assert.deepEqual(backtrackDecision({ attempt: 1 }), {
    kind: 'replan',
    nextAttempt: 2,
    metaStrategy: MetaStrategy.ExploreFirst,
  });
  const giveUp = backtrackDecision({ attempt: 2, lastFailureReason: 'step 1 (run) failed: exit 1' });
  assert.equal(giveUp.kind, 'give-up');
  assert.match(giveUp.kind === 'give-up' ? giveUp.reason : '', /attempt 2 failed.*limit of 3.*exit 1/);
});

test('backtrack honours a custom limit', () => {
  assert.equal(backtrackDecision({ attempt: 0, maxBacktrackAttempts: 1 }).kind, 'give-up');
  assert.equal(backtrackDecision({ attempt: 3, maxBacktrackAttempts: 5 }).kind, 'replan');
  assert.equal(backtrackDecision({ attempt: 4, maxBacktrackAttempts: 5 }).kind, 'give-up');
});

test('harness step failure: denied approval, 3 failed calls, 2 mismatches', () => {
  const calm = { consecutiveFailedCalls: 0, approvalDenied: false, hypothesisMismatches: 0 };
  assert.equal(stepFailureFromHarness(calm), undefined);
  assert.match(stepFailureFromHarness({ ...calm, approvalDenied: true }) ?? '', /denied/);
  assert.equal(stepFailureFromHarness({ ...calm, consecutiveFailedCalls: 2 }), undefined);
  assert.match(stepFailureFromHarness({ ...calm, consecutiveFailedCalls: 3 }) ?? '', /3 tool calls/);
  assert.equal(stepFailureFromHarness({ ...calm, hypothesisMismatches: 1 }), undefined);
  assert.match(stepFailureFromHarness({ ...calm, hypothesisMismatches: 2 }) ?? '', /2 hypotheses/);
  const strict = { ...STEP_FAILURE_THRESHOLDS, consecutiveFailedCalls: 1 };
  assert.equal(
    stepFailureFromHarness({ ...calm, consecutiveFailedCalls: 1 }, strict),
    '1 tool calls of this step failed in a row',
  );
});

test('renderPlan lists attempt, strategy and each step with its status marker', () => {
  const failed = failActiveStep(completeActiveStep(planOf(newPlan({ attempt: 1 }))), 'no such file');
  const text = renderPlan(failed);
  const lines = text.split('\n');
  assert.match(lines[0]!, /attempt 1, strategy knowledge, explore-first: failed/);
  assert.ok(lines.some((line) => line.startsWith('[x] 1. list_files {"path":"src"} — see the layout')));
  assert.ok(lines.some((line) => line.startsWith('[!] 2. read_file') && line.includes('no such file')));
  assert.ok(
    lines.some((line) => line.startsWith('[-] 3. write_file') && line.includes('src/config.ts exists')),
  );
  assert.ok(
    renderPlan(planOf(newPlan()))
      .split('\n')
      .some((line) => line.startsWith('[>] 1.')),
  );
});

test('ProposedPlanSchema requires at least one complete step', () => {
  assert.equal(ProposedPlanSchema.safeParse({ strategySummary: 'x', steps: [] }).success, false);
  assert.equal(
    ProposedPlanSchema.safeParse({ strategySummary: 'x', steps: [{ toolName: 'a', toolInput: {} }] }).success,
    false,
  );
  assert.equal(ProposedPlanSchema.safeParse({ strategySummary: 'x', steps: proposed }).success, true);
});
