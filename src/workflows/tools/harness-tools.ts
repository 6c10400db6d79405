import { z } from 'zod';
import type { ToolCatalogue } from './tool-catalogue';
import { REPORT_STEP_DESCRIPTION, REPORT_STEP_TOOL, reportStepInputSchema } from './report-step-spec';

/** The shape of an Anthropic Messages API tool definition (kept local: workflow code imports no SDK). */
export interface ModelToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly input_schema: { readonly type: 'object'; readonly [key: string]: unknown };
}

/**
 * Harness tools change only the goal's own state, so the workflow runs them itself: no activity,
 * no approval, no limit. Today there is one, report_step, offered to goals that plan.
 */
export const HARNESS_TOOL_NAMES: readonly string[] = [REPORT_STEP_TOOL];

export function isHarnessTool(name: string): boolean {
  return HARNESS_TOOL_NAMES.includes(name);
}

function reportStepDefinition(): ModelToolDefinition {
  // io 'input': what the model may send; $schema is noise to the API. Pure and deterministic.
  const { $schema: _schema, ...schema } = z.toJSONSchema(reportStepInputSchema, { io: 'input' });
  return {
    name: REPORT_STEP_TOOL,
    description: REPORT_STEP_DESCRIPTION,
    input_schema: { ...schema, type: 'object' },
  };
}

/** What the model is offered: the goal's catalogue, plus report_step when the goal plans. */
export function modelToolDefinitions(catalogue: ToolCatalogue, planning: boolean): ModelToolDefinition[] {
  const definitions: ModelToolDefinition[] = catalogue.map((entry) => ({
    name: entry.name,
    description: entry.description,
    input_schema: { ...entry.inputSchema, type: 'object' },
  }));
  return planning ? [...definitions, reportStepDefinition()] : definitions;
}

export type HarnessCallCheck = { ok: true; input: unknown; summary: string } | { ok: false; error: string };

/** Validates a harness tool call; the error names each wrong field for the model. */
export function checkHarnessCall(name: string, rawInput: unknown): HarnessCallCheck {
  if (name !== REPORT_STEP_TOOL) return { ok: false, error: `Unknown harness tool "${name}".` };
  const parsed = reportStepInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(input)'}: ${issue.message}`,
    );
    return { ok: false, error: `Invalid input for ${name}: ${problems.join('; ')}.` };
  }
  return { ok: true, input: parsed.data, summary: `report_step: ${parsed.data.status}` };
}
