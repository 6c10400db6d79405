import { z } from 'zod';
import { MAX_PATTERN_LENGTH } from './rule-pattern';

/**
 * Approval rules (issue 24): "approve, and do not ask again for `npm test*` in this goal", "never
 * ask me about `rm *` again, refuse it", a team's allow-list. A rule is data: the workflow
 * evaluates it deterministically (rule-book.ts), so replaying a goal decides alike.
 *
 * Text form, as people type it: `tool: pattern` (`run_command: npm test*`, `write_file: src/**`),
 * or just `tool` for every call of it; `*` as the tool covers every tool.
 */

export const RULES_SCHEMA_VERSION = 1;

/** Rules one goal holds at most; a human adding the next one past it is refused in words. */
export const MAX_RULES = 200;

export const RuleEffect = { Allow: 'allow', Forbid: 'forbid' } as const;
export type RuleEffect = (typeof RuleEffect)[keyof typeof RuleEffect];

export const RuleSource = {
  /** `keel run --allow/--forbid`, goal input approvalRules. */
  GoalInput: 'goal-input',
  /** The worker's policy file (KEEL_APPROVAL_RULES), read when the goal starts. */
  WorkerPolicy: 'worker-policy',
  /** Given with an approval or a denial of one call (`keel approve … --rule`, `keel deny … --forbid`). */
  Decision: 'decision',
  /** Added on its own (`keel rules <goal> --allow/--forbid`). */
  Added: 'added',
} as const;
export type RuleSource = (typeof RuleSource)[keyof typeof RuleSource];

const toolNameSchema = z
  .string({ error: 'tool is required' })
  .trim()
  .min(1, 'tool is required')
  .max(200, 'a tool name has at most 200 characters')
  .regex(/^[^\s:]+$/, 'a tool name has no blanks or colons');

const patternSchema = z
  .string()
  .trim()
  .min(1, 'pattern is empty')
  .max(MAX_PATTERN_LENGTH, `a pattern has at most ${MAX_PATTERN_LENGTH} characters`);

/** What a rule covers and until when; what people write. */
export const ruleScopeSchema = z
  .object({
    tool: toolNameSchema,
    pattern: patternSchema.default('*'),
    /**
     * Irreversible calls are covered by an allow rule only when it says so here: a rule made for
     * `npm test` must not also approve a deploy that happens to match its pattern.
     */
    irreversible: z.boolean({ error: 'irreversible must be true or false' }).default(false),
    /** ISO time after which the rule no longer applies (workflow time). */
    until: z.iso.datetime({ offset: true, error: 'until must be an ISO date-time' }).optional(),
  })
  .strict();
export type RuleScope = z.output<typeof ruleScopeSchema>;
export type RuleScopeInput = z.input<typeof ruleScopeSchema>;

/**
 * A rule given with one decision (`keel approve <goal> <call> --rule [pattern]`): an allow rule
 * with an approval, a forbid rule with a denial. The tool defaults to the call's, the pattern to
 * exactly the call's command, path or input.
 */
export const decisionRuleSchema = z
  .object({
    tool: toolNameSchema.optional(),
    pattern: patternSchema.optional(),
    irreversible: z.boolean({ error: 'rule.irreversible must be true or false' }).optional(),
    until: z.iso.datetime({ offset: true, error: 'rule.until must be an ISO date-time' }).optional(),
  })
  .strict();
export type DecisionRule = z.output<typeof decisionRuleSchema>;

/** A rule as goal input and a worker policy file give it. */
export const ruleSpecSchema = ruleScopeSchema
  .extend({ effect: z.enum([RuleEffect.Allow, RuleEffect.Forbid]), reason: z.string().max(2000).optional() })
  .strict();
export type RuleSpec = z.output<typeof ruleSpecSchema>;
export type RuleSpecInput = z.input<typeof ruleSpecSchema>;

/** A rule a goal holds: what it covers, who made it, from where, and whether it was revoked. */
export const approvalRuleSchema = ruleScopeSchema
  .extend({
    id: z.string(),
    effect: z.enum([RuleEffect.Allow, RuleEffect.Forbid]),
    source: z.enum([RuleSource.GoalInput, RuleSource.WorkerPolicy, RuleSource.Decision, RuleSource.Added]),
    by: z.string(),
    reason: z.string(),
    createdAt: z.string(),
    /** The call whose decision made it (source decision). */
    fromCallId: z.string().optional(),
    /** Made with a verified signature (goals that require signed decisions hold no other). */
    signed: z.boolean().optional(),
    revoked: z.object({ by: z.string(), at: z.string(), reason: z.string() }).optional(),
  })
  .strict();
export type ApprovalRule = z.output<typeof approvalRuleSchema>;

export const approvalRulesStateSchema = z.lazy(() =>
  z.object({
    schemaVersion: z.literal(RULES_SCHEMA_VERSION),
    /** The number of the next rule's id (rule-<n>): ids are never reused, revoked ones included. */
    nextNumber: z.number().int().positive(),
    rules: z.array(approvalRuleSchema).max(MAX_RULES),
  }),
);
export type ApprovalRulesState = z.output<typeof approvalRulesStateSchema>;

/** `tool: pattern`, `tool` alone, or `*: pattern`, as a scope; an error names what is wrong. */
export function parseRuleText(text: string): { ok: true; scope: RuleScope } | { ok: false; error: string } {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  const tool = colon < 0 ? trimmed : trimmed.slice(0, colon).trim();
  const pattern = colon < 0 ? '*' : trimmed.slice(colon + 1).trim();
  const parsed = ruleScopeSchema.safeParse({ tool, pattern: pattern === '' ? '*' : pattern });
  if (parsed.success) return { ok: true, scope: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    error: `"${text}" is not a rule (${issue?.message ?? 'invalid'}); write it as tool: pattern, e.g. "run_command: npm test*"`,
  };
}

/** A rule's scope as people write it, with its limits. */
export function ruleText(rule: RuleScope & { effect?: RuleEffect }): string {
  const limits = [
    ...(rule.irreversible ? ['irreversible calls too'] : []),
    ...(rule.until === undefined ? [] : [`until ${rule.until}`]),
  ];
  const effect = rule.effect === undefined ? '' : `${rule.effect} `;
  return `${effect}${rule.tool}: ${rule.pattern}${limits.length === 0 ? '' : ` (${limits.join(', ')})`}`;
}

/**
 * The rule of a decision as its signature covers it: the fields as sent, an absent tool or
 * pattern as '' (the workflow fills them from the call, which the signature binds by its id).
 */
export function signedDecisionRule(approved: boolean, rule: DecisionRule) {
  return {
    effect: approved ? RuleEffect.Allow : RuleEffect.Forbid,
    tool: rule.tool ?? '',
    pattern: rule.pattern ?? '',
    irreversible: rule.irreversible ?? false,
    until: rule.until,
  };
}
