import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPlan, failActiveStep, renderPlan, type Plan } from '../../src/workflows/planning/plan';
import { PLAN_OUTPUT_FORMAT, planPrompt } from '../../src/workflows/planning/plan-prompt';
import {
  META_STRATEGY_INSTRUCTIONS,
  MetaStrategy,
  STRATEGY_PATTERNS,
  Strategy,
} from '../../src/workflows/planning/strategy';

/**
 * The plan prompt's rules (issue 27: mutation testing; src/workflows/planning/plan-prompt.ts): its
 * whole text, section by section in a fixed order (task, goal, success criteria only when there
 * are some, strategy, approach, tools, the previous attempt only after a failure, the output
 * format), and the previous-attempt section with the failed plan, the reason, or both.
 */

const TASK =
  'TASK\nPropose a plan for the goal below: an ordered list of tool calls that will achieve it. ' +
  'The plan must have at least one step. Each step is one call to an available tool with ' +
  'its complete input; later steps may depend on what earlier steps reveal.';
const DIFFERENT =
  'Propose a different approach: do not start with the call that failed, and change the ' +
  'steps that led to the failure rather than repeating them. Keep what the completed steps ' +
  'established.';

const base = {
  goal: 'Add a config module',
  successCriteria: ['src/config.ts exists', 'npm test passes'],
  strategy: Strategy.Creation,
  metaStrategy: MetaStrategy.ExploreFirst,
  toolNames: ['list_dir', 'read_file', 'write_file'],
};

const middle = (strategy: Strategy, metaStrategy: MetaStrategy, tools: string) => [
  `STRATEGY: ${strategy}\nThis goal was classified as ${strategy} work: ${STRATEGY_PATTERNS[strategy].description}.`,
  `APPROACH: ${metaStrategy}\n${META_STRATEGY_INSTRUCTIONS[metaStrategy]}`,
  `AVAILABLE TOOLS\n${tools}\nUse only these tool names.`,
];

function failedPlan(): Plan {
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
  return failActiveStep(created.plan, 'no such file');
}

test('the output format, whole', () => {
  assert.equal(
    PLAN_OUTPUT_FORMAT,
    'OUTPUT FORMAT\n' +
      'Reply with one JSON object and nothing else:\n' +
      '{"strategySummary": "<one sentence: the approach>",\n' +
      ' "steps": [{"toolName": "<an available tool>", "toolInput": {<the tool input>},\n' +
      '            "rationale": "<why this step, and why now>",\n' +
      '            "expectedEffects": ["<what will be observably true after the step>"]}]}',
  );
});

test('a first plan prompt, whole: task, goal, criteria one a line, strategy, approach, tools, format', () => {
  assert.equal(
    planPrompt(base),
    [
      TASK,
      'GOAL\nAdd a config module',
      'SUCCESS CRITERIA\n- src/config.ts exists\n- npm test passes',
      ...middle('creation', 'explore-first', 'list_dir, read_file, write_file'),
      PLAN_OUTPUT_FORMAT,
    ].join('\n\n'),
  );
});

test('without success criteria there is no criteria section; one criterion is one line', () => {
  assert.equal(
    planPrompt({ ...base, successCriteria: [], strategy: Strategy.Knowledge, toolNames: ['read_file'] }),
    [
      TASK,
      'GOAL\nAdd a config module',
      ...middle('knowledge', 'explore-first', 'read_file'),
      PLAN_OUTPUT_FORMAT,
    ].join('\n\n'),
  );
  assert.equal(
    planPrompt({ ...base, successCriteria: ['it builds'], metaStrategy: MetaStrategy.ReasonFirst }),
    [
      TASK,
      'GOAL\nAdd a config module',
      'SUCCESS CRITERIA\n- it builds',
      ...middle('creation', 'reason-first', 'list_dir, read_file, write_file'),
      PLAN_OUTPUT_FORMAT,
    ].join('\n\n'),
  );
});

test('after a failure: the failed plan, the reason, and the ask for a different approach, before the format', () => {
  const plan = failedPlan();
  assert.equal(
    planPrompt({ ...base, failedPlan: plan, failureReason: 'step 1 (read_file) failed: no such file' }),
    [
      TASK,
      'GOAL\nAdd a config module',
      'SUCCESS CRITERIA\n- src/config.ts exists\n- npm test passes',
      ...middle('creation', 'explore-first', 'list_dir, read_file, write_file'),
      `PREVIOUS ATTEMPT FAILED\n${renderPlan(plan)}\nReason: step 1 (read_file) failed: no such file\n${DIFFERENT}`,
      PLAN_OUTPUT_FORMAT,
    ].join('\n\n'),
  );
});

test('a failed plan without a reason, or a reason without a plan, still makes the section', () => {
  const plan = failedPlan();
  const head = [
    TASK,
    'GOAL\nAdd a config module',
    'SUCCESS CRITERIA\n- src/config.ts exists\n- npm test passes',
    ...middle('creation', 'explore-first', 'list_dir, read_file, write_file'),
  ];
  assert.equal(
    planPrompt({ ...base, failedPlan: plan }),
    [...head, `PREVIOUS ATTEMPT FAILED\n${renderPlan(plan)}\n${DIFFERENT}`, PLAN_OUTPUT_FORMAT].join('\n\n'),
  );
  assert.equal(
    planPrompt({ ...base, failureReason: '' }),
    [...head, `PREVIOUS ATTEMPT FAILED\nReason: \n${DIFFERENT}`, PLAN_OUTPUT_FORMAT].join('\n\n'),
  );
});
