import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  createPlan,
  failActiveStep,
  renderPlan,
  ProposedPlanSchema,
} from '../../src/workflows/planning/plan';
import { PLAN_OUTPUT_FORMAT, planPrompt } from '../../src/workflows/planning/plan-prompt';
import { META_STRATEGY_INSTRUCTIONS, MetaStrategy, Strategy } from '../../src/workflows/planning/strategy';

const base = {
  goal: 'Add a config module',
  successCriteria: ['src/config.ts exists', 'npm test passes'],
  strategy: Strategy.Creation,
  metaStrategy: MetaStrategy.ExploreFirst,
  toolNames: ['list_dir', 'read_file', 'write_file'],
};

test('first plan prompt: goal, criteria, strategy, meta-strategy, tools, at least one step', () => {
  const prompt = planPrompt(base);
  assert.ok(prompt.includes('GOAL\nAdd a config module'));
  assert.ok(prompt.includes('- src/config.ts exists\n- npm test passes'));
  assert.ok(prompt.includes('STRATEGY: creation'));
  assert.ok(prompt.includes(META_STRATEGY_INSTRUCTIONS['explore-first']));
  assert.ok(!prompt.includes(META_STRATEGY_INSTRUCTIONS['reason-first']));
  assert.ok(prompt.includes('list_dir, read_file, write_file'));
  assert.match(prompt, /at least one step/);
  assert.ok(prompt.endsWith(PLAN_OUTPUT_FORMAT));
  assert.ok(!prompt.includes('PREVIOUS ATTEMPT'));
  assert.ok(prompt.includes('SUCCESS CRITERIA'));
  assert.ok(!planPrompt({ ...base, successCriteria: [] }).includes('SUCCESS CRITERIA'));
});

test('after a failure the prompt shows the failed plan and reason and asks for a different approach', () => {
  const created = createPlan({
    goalId: 'goal-1',
    attempt: 0,
    strategy: Strategy.Creation,
    metaStrategy: MetaStrategy.ExploreFirst,
    proposedSteps: [
      { toolName: 'read_file', toolInput: { path: 'nope.ts' }, rationale: 'look', expectedEffects: [] },
    ],
    failedToolCalls: [],
  });
  assert.ok(created.ok);
  const failedPlan = failActiveStep(created.plan, 'no such file');
  const prompt = planPrompt({
    ...base,
    metaStrategy: MetaStrategy.ReasonFirst,
    failedPlan,
    failureReason: failedPlan.failureReason,
  });
  assert.ok(prompt.includes('PREVIOUS ATTEMPT FAILED'));
  assert.ok(prompt.includes(renderPlan(failedPlan)));
  assert.ok(prompt.includes('Reason: step 1 (read_file) failed: no such file'));
  assert.match(prompt, /different approach/);
  assert.ok(prompt.includes(META_STRATEGY_INSTRUCTIONS['reason-first']));
});

test('the format shown to the model names every required field of ProposedPlanSchema', () => {
  const schema = z.toJSONSchema(ProposedPlanSchema) as unknown as {
    required: string[];
    properties: { steps: { items: { required: string[] } } };
  };
  const fields = [...schema.required, ...schema.properties.steps.items.required];
  assert.ok(fields.length >= 6);
  for (const field of fields) assert.ok(PLAN_OUTPUT_FORMAT.includes(`"${field}"`), field);
});
