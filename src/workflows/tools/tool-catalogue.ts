import { z } from 'zod';
import { Reversibility } from './reversibility';

/**
 * The tools one goal may use, learned from the worker when the goal starts and kept in its state
 * (across continue-as-new). Workflow code never imports a tool: it sees only this data, so a
 * worker deployed later with other tools cannot change what a running goal replays.
 */
export const reversibilityTierSchema = z.lazy(() =>
  z.enum([Reversibility.ReadOnly, Reversibility.Mutating, Reversibility.Irreversible]),
);

/**
 * How a call's tier is decided. `fixed`: the same for every call, known from the catalogue alone.
 * `per-call`: a function of the input that only the worker can run; the workflow asks for it in
 * a recorded (local) activity before the call, so replay sees the very same tier.
 */
export const tierRuleSchema = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('fixed'), tier: reversibilityTierSchema }),
    z.object({ kind: z.literal('per-call') }),
  ]),
);
export type TierRule = z.infer<typeof tierRuleSchema>;

export const toolCatalogueEntrySchema = z.lazy(() =>
  z.object({
    name: z.string(),
    description: z.string(),
    /** The JSON schema the model is sent (converted from the tool's zod schema on the worker). */
    inputSchema: z.record(z.string(), z.unknown()),
    tier: tierRuleSchema,
    /** The tool's own start-to-close timeout; the goal's tool timeout when absent. */
    timeoutMs: z.number().int().positive().optional(),
    /** Where the tool comes from, for people reading status: builtin, worker, or mcp:<server>. */
    source: z.string(),
  }),
);
export type ToolCatalogueEntry = z.infer<typeof toolCatalogueEntrySchema>;

export const toolCatalogueSchema = z.lazy(() => z.array(toolCatalogueEntrySchema));
export type ToolCatalogue = z.infer<typeof toolCatalogueSchema>;

/** Anthropic's rule for tool names; a name outside it would fail every model call. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export function catalogueEntry(catalogue: ToolCatalogue, name: string): ToolCatalogueEntry | undefined {
  return catalogue.find((entry) => entry.name === name);
}

/** What the worker decided about one call before it runs (validated input, tier, label). */
export const preparedCallSchema = z.lazy(() =>
  z.discriminatedUnion('ok', [
    z.object({
      ok: z.literal(true),
      callId: z.string(),
      /** The parsed input, defaults applied: what the tool will receive. */
      input: z.unknown(),
      tier: reversibilityTierSchema,
      /** Why this tier, when the tool says (per-call tiers). */
      reason: z.string().optional(),
      summary: z.string(),
    }),
    z.object({
      ok: z.literal(false),
      callId: z.string(),
      /** The text the model reads, naming what was wrong. */
      error: z.string(),
      candidates: z.array(z.string()),
    }),
  ]),
);
export type PreparedCall = z.infer<typeof preparedCallSchema>;
