import { renderPlan, type Plan } from './plan';
import { META_STRATEGY_INSTRUCTIONS, STRATEGY_PATTERNS, type MetaStrategy, type Strategy } from './strategy';

/** The output format the plan activity parses with ProposedPlanSchema, shown to the model. */
export const PLAN_OUTPUT_FORMAT = [
  'OUTPUT FORMAT',
  'Reply with one JSON object and nothing else:',
  '{"strategySummary": "<one sentence: the approach>",',
  ' "steps": [{"toolName": "<an available tool>", "toolInput": {<the tool input>},',
  '            "rationale": "<why this step, and why now>",',
  '            "expectedEffects": ["<what will be observably true after the step>"]}]}',
].join('\n');

/**
 * The prompt for the plan activity. The strategy and meta-strategy were decided by the workflow
 * (the model only proposes steps); after a failure it shows the failed plan and its reason and
 * asks for a different approach, so a backtrack does not re-run the same plan.
 */
export function planPrompt(options: {
  goal: string;
  successCriteria: readonly string[];
  strategy: Strategy;
  metaStrategy: MetaStrategy;
  toolNames: readonly string[];
  failedPlan?: Plan;
  failureReason?: string;
}): string {
  const sections = [
    'TASK\nPropose a plan for the goal below: an ordered list of tool calls that will achieve it. ' +
      'The plan must have at least one step. Each step is one call to an available tool with ' +
      'its complete input; later steps may depend on what earlier steps reveal.',
    `GOAL\n${options.goal}`,
  ];
  if (options.successCriteria.length > 0) {
    sections.push(
      `SUCCESS CRITERIA\n${options.successCriteria.map((criterion) => `- ${criterion}`).join('\n')}`,
    );
  }
  sections.push(
    `STRATEGY: ${options.strategy}\nThis goal was classified as ${options.strategy} work: ` +
      `${STRATEGY_PATTERNS[options.strategy].description}.`,
    `APPROACH: ${options.metaStrategy}\n${META_STRATEGY_INSTRUCTIONS[options.metaStrategy]}`,
    `AVAILABLE TOOLS\n${options.toolNames.join(', ')}\nUse only these tool names.`,
  );
  if (options.failedPlan !== undefined || options.failureReason !== undefined) {
    const lines = ['PREVIOUS ATTEMPT FAILED'];
    if (options.failedPlan !== undefined) lines.push(renderPlan(options.failedPlan));
    if (options.failureReason !== undefined) lines.push(`Reason: ${options.failureReason}`);
    lines.push(
      'Propose a different approach: do not start with the call that failed, and change the ' +
        'steps that led to the failure rather than repeating them. Keep what the completed steps ' +
        'established.',
    );
    sections.push(lines.join('\n'));
  }
  sections.push(PLAN_OUTPUT_FORMAT);
  return sections.join('\n\n');
}
