import { z } from 'zod';
import type { ToolCatalogue } from './tool-catalogue';
import { REPORT_STEP_DESCRIPTION, REPORT_STEP_TOOL, reportStepInputSchema } from './report-step-spec';
import { DELEGATE_DESCRIPTION, DELEGATE_TOOL, delegateInputSchema } from './delegate-spec';

/** The shape of an Anthropic Messages API tool definition (kept local: workflow code imports no SDK). */
export interface ModelToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly input_schema: { readonly type: 'object'; readonly [key: string]: unknown };
}

/**
 * Harness tools are keel's own: the workflow runs them itself, with no activity, no approval and
 * no limit. report_step (goals that plan) changes only the plan; delegate (goals that may
 * delegate) starts a child goal, whose own calls are decided as any goal's are.
 */
export const HARNESS_TOOL_NAMES: readonly string[] = [REPORT_STEP_TOOL, DELEGATE_TOOL];

export function isHarnessTool(name: string): boolean {
  return HARNESS_TOOL_NAMES.includes(name);
}

/** Which harness tools a goal is offered. */
export interface HarnessOffer {
  /** report_step: the goal plans. */
  readonly planning: boolean;
  /** delegate: the goal may delegate (delegation/delegation.ts's mayDelegate). */
  readonly delegate: boolean;
}

/** The harness tools a goal with this offer is offered, by name. */
export function offeredHarnessTools(offer: HarnessOffer): string[] {
  return [...(offer.planning ? [REPORT_STEP_TOOL] : []), ...(offer.delegate ? [DELEGATE_TOOL] : [])];
}

function definitionOf(name: string, description: string, schema: z.ZodType): ModelToolDefinition {
  // io 'input': what the model may send; $schema is noise to the API. Pure and deterministic.
  const { $schema: _schema, ...jsonSchema } = z.toJSONSchema(schema, { io: 'input' });
  return { name, description, input_schema: { ...jsonSchema, type: 'object' } };
}

/** What the model is offered: the goal's catalogue, plus the harness tools it is offered. */
export function modelToolDefinitions(catalogue: ToolCatalogue, offer: HarnessOffer): ModelToolDefinition[] {
  const definitions: ModelToolDefinition[] = catalogue.map((entry) => ({
    name: entry.name,
    description: entry.description,
    input_schema: { ...entry.inputSchema, type: 'object' },
  }));
  return [
    ...definitions,
    ...(offer.planning
      ? [definitionOf(REPORT_STEP_TOOL, REPORT_STEP_DESCRIPTION, reportStepInputSchema)]
      : []),
    ...(offer.delegate ? [definitionOf(DELEGATE_TOOL, DELEGATE_DESCRIPTION, delegateInputSchema)] : []),
  ];
}

export type HarnessCallCheck = { ok: true; input: unknown; summary: string } | { ok: false; error: string };

/**
 * Validates a harness tool call; the error names each wrong field for the model. (Whether a
 * delegate call's tools are the goal's own is goal/tool-calls/turn.ts's check, with its catalogue.)
 */
export function checkHarnessCall(name: string, rawInput: unknown): HarnessCallCheck {
  if (name === REPORT_STEP_TOOL) {
    const parsed = reportStepInputSchema.safeParse(rawInput);
    if (!parsed.success) return { ok: false, error: invalidInput(name, parsed.error) };
    return { ok: true, input: parsed.data, summary: `report_step: ${parsed.data.status}` };
  }
  if (name === DELEGATE_TOOL) {
    const parsed = delegateInputSchema.safeParse(rawInput);
    if (!parsed.success) return { ok: false, error: invalidInput(name, parsed.error) };
    const task = parsed.data.task.length > 80 ? `${parsed.data.task.slice(0, 79)}…` : parsed.data.task;
    const { workspace, folder } = parsed.data;
    const scope = folder === undefined ? workspace : `${workspace} of ${folder}`;
    return { ok: true, input: parsed.data, summary: `delegate (${scope}): ${task}` };
  }
  return { ok: false, error: `Unknown harness tool "${name}".` };
}

function invalidInput(name: string, error: z.ZodError): string {
  const problems = error.issues.map(
    (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(input)'}: ${issue.message}`,
  );
  return `Invalid input for ${name}: ${problems.join('; ')}.`;
}
