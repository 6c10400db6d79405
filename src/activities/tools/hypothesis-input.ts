import { hypothesisField } from '../../workflows/tools/hypothesis-field';

/**
 * The `hypothesis` field for tools whose own schema has none (the user's tools, MCP servers'
 * tools). The model is offered it like a built-in's; the workflow reads it from the call's input
 * (principle 1); the tool never sees it, so its own schema and types stay as written and an MCP
 * server with a strict schema is not sent a field it would refuse.
 */
export const HYPOTHESIS = 'hypothesis';

/** Whether a JSON schema already has a `hypothesis` property of its own (then it is left alone). */
export function hasHypothesisProperty(schema: Record<string, unknown>): boolean {
  const properties = schema.properties;
  return typeof properties === 'object' && properties !== null && HYPOTHESIS in properties;
}

/** The schema with the hypothesis property added (optional, described as for the built-ins). */
export function withHypothesisProperty(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return {
    ...schema,
    properties: { ...properties, [HYPOTHESIS]: { type: 'string', description: hypothesisField.description } },
  };
}

export type SplitInput =
  { ok: true; rest: unknown; hypothesis: string | undefined } | { ok: false; error: string };

/** The call's input without its hypothesis, and the hypothesis (a string, when given). */
export function splitHypothesis(raw: unknown): SplitInput {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !(HYPOTHESIS in raw)) {
    return { ok: true, rest: raw, hypothesis: undefined };
  }
  const { [HYPOTHESIS]: hypothesis, ...rest } = raw as Record<string, unknown>;
  if (hypothesis === undefined) return { ok: true, rest, hypothesis: undefined };
  if (typeof hypothesis !== 'string') {
    return { ok: false, error: `${HYPOTHESIS}: expected a string (what you expect this call to show)` };
  }
  return { ok: true, rest, hypothesis };
}

/** The input a tool's own code sees: the hypothesis left out (the workflow has it). */
export function withoutHypothesis(input: unknown): unknown {
  const split = splitHypothesis(input);
  return split.ok ? split.rest : input;
}
