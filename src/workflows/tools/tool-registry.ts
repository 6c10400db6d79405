import { z } from 'zod';
import type { Reversibility } from '../reversibility';
import { editFileSpec } from './edit-file-spec';
import { listDirSpec } from './list-dir-spec';
import { readFileSpec } from './read-file-spec';
import { REPORT_STEP_TOOL, reportStepSpec } from './report-step-spec';
import { runCommandSpec } from './run-command-spec';
import { searchSpec } from './search-spec';
import type { ToolSpec } from './tool-spec';
import { writeFileSpec } from './write-file-spec';

/** Every tool keel offers, by the name the model calls it with. */
export const toolSpecs = {
  read_file: readFileSpec,
  list_dir: listDirSpec,
  search: searchSpec,
  write_file: writeFileSpec,
  edit_file: editFileSpec,
  run_command: runCommandSpec,
} as const;
export type ToolName = keyof typeof toolSpecs;
export const TOOL_NAMES: readonly ToolName[] = Object.freeze(Object.keys(toolSpecs) as ToolName[]);

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(toolSpecs, name);
}

/** Tools the workflow runs itself (they change only the goal's own state). */
export const HARNESS_TOOL_NAMES: readonly string[] = [REPORT_STEP_TOOL];

export function isHarnessTool(name: string): boolean {
  return HARNESS_TOOL_NAMES.includes(name);
}

export function getToolSpec(name: string): ToolSpec | undefined {
  if (name === REPORT_STEP_TOOL) return reportStepSpec;
  return isToolName(name) ? toolSpecs[name] : undefined;
}

/** The shape of an Anthropic Messages API tool definition (kept local: workflow code imports no SDK). */
export interface ModelToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly input_schema: { readonly type: 'object'; readonly [key: string]: unknown };
}

/** Tool definitions for the model request, in the order given. Unknown names are a programming error. */
export function toolDefinitionsForModel(names: readonly string[]): ModelToolDefinition[] {
  return names.map((name) => {
    const spec = getToolSpec(name);
    if (spec === undefined) throw new Error(`Unknown tool "${name}"; known tools: ${TOOL_NAMES.join(', ')}`);
    // io 'input': what the model may send (optional fields stay optional); $schema is noise to the API.
    const { $schema: _schema, ...schema } = z.toJSONSchema(spec.inputSchema, { io: 'input' });
    if (schema.type !== 'object') throw new Error(`Tool "${name}" must take an object input`);
    return { name, description: spec.description, input_schema: { ...schema, type: 'object' } };
  });
}

export type ToolCallClassification =
  | {
      readonly ok: true;
      readonly input: unknown;
      readonly reversibility: Reversibility;
      readonly summary: string;
    }
  | { readonly ok: false; readonly error: string };

/** Tools whose calls reach the network when the goal allows it (sandbox.network). */
const NETWORK_TOOLS: readonly string[] = ['run_command'];

/**
 * Validates a model's tool call and decides its reversibility and label before anything runs.
 * The error text goes back to the model, so it names each wrong field and what was expected.
 * With network allowed a command can send anything anywhere, so every call of a network tool is
 * irreversible (needs approval), whatever it looks like.
 */
export function classifyToolCall(
  name: string,
  rawInput: unknown,
  options: { network?: boolean } = {},
): ToolCallClassification {
  const spec = getToolSpec(name);
  if (spec === undefined) {
    return { ok: false, error: `Unknown tool "${name}". Available tools: ${TOOL_NAMES.join(', ')}.` };
  }
  const parsed = spec.inputSchema.safeParse(rawInput);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(input)'}: ${issue.message}`,
    );
    return { ok: false, error: `Invalid input for ${name}: ${problems.join('; ')}.` };
  }
  return {
    ok: true,
    input: parsed.data,
    reversibility:
      options.network === true && NETWORK_TOOLS.includes(name)
        ? 'irreversible'
        : spec.reversibility(parsed.data),
    summary: spec.summarize(parsed.data),
  };
}

// Callers that hold the registry also format results; one import serves both.
export { formatToolResult } from './format-tool-result';
