import { z } from 'zod';
import type { Reversibility } from '../../workflows/tools/reversibility';
import type { TierRule } from '../../workflows/tools/tool-catalogue';
import { shorten } from '../../workflows/tools/suggest-call';
import { toolOutcomeSchema, type ToolOutcome } from '../../workflows/tools/tool-outcome';
import type { AnyToolDefinition, TierContext, TierDecision, ToolExecutionContext } from './define-tool';
import { ToolDefinitionError } from './define-tool';
import { failure, isSystemError, systemErrorOutcome } from './tool-outcomes';
import {
  hasHypothesisProperty,
  splitHypothesis,
  withHypothesisProperty,
  withoutHypothesis,
} from './hypothesis-input';

export type ParsedInput = { ok: true; input: unknown } | { ok: false; error: string };

/**
 * A tool as the worker runs it, whatever it came from: defineTool (built-ins and the user's own)
 * or an MCP server. The registry and the activities see only this shape.
 */
export interface RegisteredTool {
  readonly name: string;
  readonly description: string;
  /** builtin, worker, or mcp:<server> */
  readonly source: string;
  readonly inputJsonSchema: Record<string, unknown>;
  readonly tier: TierRule;
  readonly timeoutMs?: number;
  parse(raw: unknown): ParsedInput;
  decideTier(input: unknown, context: TierContext): TierDecision;
  summarize(input: unknown): string;
  /** Never throws for what the tool does: failures are outcomes with candidate next actions. */
  execute(input: unknown, context: ToolExecutionContext): Promise<ToolOutcome>;
}

/** Wraps a defineTool definition; its zod schema is converted here, so a bad one fails at start. */
export function registeredFromDefinition(definition: AnyToolDefinition, source: string): RegisteredTool {
  const name = definition.name;
  let jsonSchema: Record<string, unknown>;
  try {
    // io 'input': what the model may send (optional fields stay optional); $schema is noise to the API.
    const { $schema: _schema, ...schema } = z.toJSONSchema(definition.input, { io: 'input' });
    jsonSchema = schema;
  } catch (error) {
    throw new ToolDefinitionError(
      `tool "${name}": its input schema cannot be converted to JSON schema (${errorText(error)})`,
    );
  }
  if (jsonSchema.type !== 'object') {
    throw new ToolDefinitionError(`tool "${name}": its input schema must be a z.object(...)`);
  }
  const reversibility = definition.reversibility;
  // Built-ins declare hypothesisField in their schemas; every other tool gets it here unless it
  // opts out, and its own code never sees it (hypothesis-input.ts).
  const addsHypothesis = definition.hypothesis !== false && !hasHypothesisProperty(jsonSchema);
  const own = (input: unknown): unknown => (addsHypothesis ? withoutHypothesis(input) : input);
  const parseOwn = (raw: unknown): ParsedInput => {
    const parsed = (definition.input as z.ZodType).safeParse(raw);
    if (parsed.success) return { ok: true, input: parsed.data };
    const problems = parsed.error.issues.map(
      (issue: z.core.$ZodIssue) =>
        `${issue.path.length > 0 ? issue.path.join('.') : '(input)'}: ${issue.message}`,
    );
    return { ok: false, error: `Invalid input for ${name}: ${problems.join('; ')}.` };
  };
  return {
    name,
    description: definition.description,
    source,
    inputJsonSchema: addsHypothesis
      ? withHypothesisProperty({ ...jsonSchema, type: 'object' })
      : { ...jsonSchema, type: 'object' },
    tier: typeof reversibility === 'function' ? { kind: 'per-call' } : { kind: 'fixed', tier: reversibility },
    ...(definition.timeoutMs === undefined ? {} : { timeoutMs: definition.timeoutMs }),
    parse(raw) {
      if (!addsHypothesis) return parseOwn(raw);
      const split = splitHypothesis(raw);
      if (!split.ok) return { ok: false, error: `Invalid input for ${name}: ${split.error}.` };
      const parsed = parseOwn(split.rest);
      // Kept in the prepared input: the workflow compares it with the outcome (principle 1).
      if (!parsed.ok || split.hypothesis === undefined) return parsed;
      return { ok: true, input: { ...(parsed.input as object), hypothesis: split.hypothesis } };
    },
    decideTier(input, context) {
      if (typeof reversibility !== 'function')
        return { tier: reversibility, reason: `${name} is ${reversibility}` };
      const decided = reversibility(own(input), context);
      return typeof decided === 'string' ? { tier: decided, reason: `${name} decided ${decided}` } : decided;
    },
    summarize(input) {
      if (definition.summarize) return definition.summarize(own(input));
      return defaultSummary(name, input);
    },
    async execute(withHypothesis, context) {
      const input = own(withHypothesis);
      let returned: unknown;
      try {
        returned = await definition.execute(input, context);
      } catch (error) {
        if (context.signal.aborted) throw error; // cancellation stays a cancellation
        // File-system errors (EACCES, ENOTDIR, …) get the path-specific next actions.
        if (isSystemError(error)) {
          const target = (input as { path?: unknown } | null)?.path;
          return systemErrorOutcome({
            toolName: name,
            relative: typeof target === 'string' ? target : '.',
            error,
          });
        }
        const content = `${name} failed: ${errorText(error)}`;
        return failure({ content, candidates: candidatesFor(definition, { input, error }) });
      }
      const outcome = toOutcome(returned);
      if (outcome.ok || outcome.candidates.length > 0) return outcome;
      return { ...outcome, candidates: candidatesFor(definition, { input, outcome }) };
    },
  };
}

/** "send_invoice: {"customer":"ACME",…}": the tool and its input, hypothesis left out. */
export function defaultSummary(name: string, input: unknown): string {
  if (input === null || typeof input !== 'object') return name;
  const { hypothesis: _hypothesis, ...rest } = input as Record<string, unknown>;
  const shown = JSON.stringify(rest);
  return shown === '{}' ? name : `${name}: ${shorten(shown, 100)}`;
}

/** A string is the result text; an outcome is taken as is; anything else is sent as JSON. */
export function toOutcome(returned: unknown): ToolOutcome {
  if (typeof returned === 'string') return { ok: true, content: returned, candidates: [], facts: {} };
  const asOutcome = toolOutcomeSchema.safeParse(returned);
  if (asOutcome.success && typeof (returned as { ok?: unknown }).ok === 'boolean') return asOutcome.data;
  if (returned === undefined) return { ok: true, content: '(no result)', candidates: [], facts: {} };
  return { ok: true, content: JSON.stringify(returned, null, 2), candidates: [], facts: {} };
}

const GENERIC_CANDIDATES = [
  'Read the error above and call the tool again with the input corrected',
  'Reach the goal another way that does not depend on this tool',
  'Explain in your answer what failed, so the user can act on it',
];

function candidatesFor(
  definition: AnyToolDefinition,
  failed: { input: unknown; error?: unknown; outcome?: ToolOutcome },
): string[] {
  if (!definition.nextActionsOnFailure) return [...GENERIC_CANDIDATES];
  try {
    const own = definition
      .nextActionsOnFailure(failed)
      .filter((candidate: unknown) => typeof candidate === 'string');
    return own.length > 0 ? own.slice(0, 3) : [...GENERIC_CANDIDATES];
  } catch {
    return [...GENERIC_CANDIDATES];
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export type { Reversibility };
