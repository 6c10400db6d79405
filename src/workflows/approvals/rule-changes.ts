import type { Ed25519Verify } from '../common/ed25519';
import {
  approverAllowed,
  canonicalRuleChangeText,
  checkSignedText,
  type ApprovalSignatures,
  type Approvers,
} from './approval-authority';
import { z } from 'zod';
import {
  RuleEffect,
  RuleSource,
  ruleScopeSchema,
  type ApprovalRulesState,
  type RuleScope,
} from './approval-rule';

/**
 * Whether a human may add or revoke a rule on its own (`keel rules`), as data. The Update's
 * validator throws a refusal back before anything is written to history; its handler judges again.
 * Pure, so replay judges alike.
 *
 * Who may: a rule decides calls the way its maker would, so its maker must be allowed to decide
 * the tiers it covers (an allow rule: mutating calls, and irreversible ones when it says so).
 * A forbid rule only refuses, so anyone who may decide either tier may add one; revoking it lets
 * those calls be asked again, so it takes someone who may decide both. Goals that require signed
 * decisions require signed rule changes, bound to the goal and the approver.
 */

/** A rule added on its own (`keel rules <goal> --allow/--forbid`). */
export const addRulePayloadSchema = ruleScopeSchema
  .extend({
    effect: z.enum(['allow', 'forbid']),
    approver: z.string({ error: 'approver is required' }).trim().min(1, 'approver is required'),
    reason: z.string().default(''),
    signature: z.string().optional(),
  })
  .strict();
export type AddRulePayload = z.input<typeof addRulePayloadSchema>;

export const revokeRulePayloadSchema = z
  .object({
    ruleId: z.string({ error: 'ruleId is required' }).min(1, 'ruleId is required'),
    approver: z.string({ error: 'approver is required' }).trim().min(1, 'approver is required'),
    reason: z.string().default(''),
    signature: z.string().optional(),
  })
  .strict();
export type RevokeRulePayload = z.input<typeof revokeRulePayloadSchema>;

export interface RuleChangeAuthority {
  workflowId: string;
  approvers: Approvers;
  signatures?: ApprovalSignatures;
  verify: Ed25519Verify | undefined;
  nowMs: number;
}

export type RuleChangeVerdict<T> = ({ ok: true } & T) | { ok: false; message: string };

export interface RuleAddition {
  scope: RuleScope;
  effect: RuleEffect;
  by: string;
  reason: string;
  source: typeof RuleSource.Added;
  signed: boolean;
}

export function judgeRuleAddition(
  raw: unknown,
  authority: RuleChangeAuthority,
): RuleChangeVerdict<RuleAddition> {
  const parsed = addRulePayloadSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: `malformed rule: ${firstIssue(parsed.error)}` };
  const { effect, approver, reason, signature, ...scope } = parsed.data;
  if (scope.until !== undefined && Date.parse(scope.until) <= authority.nowMs) {
    return { ok: false, message: `until ${scope.until} has already passed` };
  }
  const may =
    effect === RuleEffect.Allow
      ? approverAllowed(authority.approvers, 'mutating', approver) &&
        (!scope.irreversible || approverAllowed(authority.approvers, 'irreversible', approver))
      : approverAllowed(authority.approvers, 'mutating', approver) ||
        approverAllowed(authority.approvers, 'irreversible', approver);
  if (!may) return { ok: false, message: `${approver} may not decide the calls this rule would decide` };
  if (authority.signatures !== undefined) {
    const checked = checkSignedText({
      signatures: authority.signatures,
      approver,
      text: canonicalRuleChangeText({
        workflowId: authority.workflowId,
        change: 'add',
        approver,
        rule: { effect, ...scope },
      }),
      signature,
      verify: authority.verify,
      what: 'rule',
    });
    if (!checked.ok) return { ok: false, message: checked.message };
  }
  return {
    ok: true,
    scope,
    effect,
    by: approver,
    reason,
    source: RuleSource.Added,
    signed: authority.signatures !== undefined,
  };
}

export interface RuleRevocation {
  ruleId: string;
  by: string;
  reason: string;
}

export function judgeRuleRevocation(
  raw: unknown,
  rules: ApprovalRulesState | undefined,
  authority: RuleChangeAuthority,
): RuleChangeVerdict<RuleRevocation> {
  const parsed = revokeRulePayloadSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: `malformed revocation: ${firstIssue(parsed.error)}` };
  const { ruleId, approver, reason, signature } = parsed.data;
  const rule = rules?.rules.find((candidate) => candidate.id === ruleId);
  if (rule === undefined) return { ok: false, message: `this goal has no rule ${ruleId}` };
  if (rule.revoked !== undefined)
    return { ok: false, message: `${ruleId} was already revoked by ${rule.revoked.by}` };
  const may =
    rule.effect === RuleEffect.Forbid
      ? approverAllowed(authority.approvers, 'mutating', approver) &&
        approverAllowed(authority.approvers, 'irreversible', approver)
      : approverAllowed(authority.approvers, 'mutating', approver) ||
        approverAllowed(authority.approvers, 'irreversible', approver);
  if (!may) return { ok: false, message: `${approver} may not revoke ${ruleId}` };
  if (authority.signatures !== undefined) {
    const checked = checkSignedText({
      signatures: authority.signatures,
      approver,
      text: canonicalRuleChangeText({ workflowId: authority.workflowId, change: 'revoke', ruleId, approver }),
      signature,
      verify: authority.verify,
      what: 'rule change',
    });
    if (!checked.ok) return { ok: false, message: checked.message };
  }
  return { ok: true, ruleId, by: approver, reason };
}

function firstIssue(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${field}${issue?.message ?? 'invalid'}`;
}
