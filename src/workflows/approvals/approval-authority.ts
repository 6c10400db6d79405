import { z } from 'zod';
import { decodeBase64 } from '../common/base64';
import type { Ed25519Verify } from '../common/ed25519';

/**
 * Who may decide a goal's approvals, and how a decision proves who made it. Pure: the workflow
 * runs these checks in signal handlers and in the Update validator, and replay gets the same
 * answers from the same history.
 */

/** Anyone (who passes the signature check, when signatures are required). */
export const ANYONE = '*';

const approverListSchema = z.lazy(() =>
  z.array(z.string().trim().min(1)).min(1, 'name at least one approver or "*"'),
);

/** Per tier, the names allowed to decide; read-only calls never wait, so they have no list. */
export const approversSchema = z
  .object({
    mutating: approverListSchema.default([ANYONE]),
    irreversible: approverListSchema.default([ANYONE]),
  })
  .strict();
export type Approvers = z.output<typeof approversSchema>;

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

/**
 * Signed decisions: every decision must carry an Ed25519 signature by the approver's key. Only
 * public keys are stored (goal input lives in history); the private key never leaves the approver.
 */
export const approvalSignaturesSchema = z
  .object({
    scheme: z.literal('ed25519'),
    /** Approver name → base64 raw 32-byte Ed25519 public key (`keel keygen` prints one). */
    keys: z
      .record(
        z.string().trim().min(1),
        z
          .string()
          .refine(
            (key) => decodeBase64(key)?.length === ED25519_PUBLIC_KEY_BYTES,
            'must be a base64 raw Ed25519 public key (32 bytes)',
          ),
      )
      .refine((keys) => Object.keys(keys).length > 0, 'name at least one approver key'),
  })
  .strict();
export type ApprovalSignatures = z.output<typeof approvalSignaturesSchema>;

export type ApprovalTier = 'mutating' | 'irreversible';

/** Whether the policy lets this approver decide calls of this tier. */
export function approverAllowed(approvers: Approvers, tier: ApprovalTier, approver: string): boolean {
  const allowed = approvers[tier];
  return allowed.includes(ANYONE) || allowed.includes(approver);
}

export const SIGNATURE_VERSION = 'keel-approval-v1';

/** What a signature covers: everything that decides what the goal does with the decision. */
export interface SignedDecision {
  workflowId: string;
  callId: string;
  approved: boolean;
  approver: string;
  /** A denial that asks not to be asked again for this intent (goal/tool-calls/remembered-denials.ts). */
  doNotAskAgain?: boolean;
  /** The rule made with the decision (approvals/approval-rule.ts): signed with it, or not at all. */
  rule?: SignedRule;
  /** Which of the call's asks this decides; absent in the text signers sign without a listing. */
  stage?: SignedStage;
}

/**
 * One ask of a call. A call can be asked twice: first at its own tier, then again, irreversible,
 * when the worker escalates it (its layer held more than its tier allows). The tier and the
 * request time differ between the two, so a signature for the first ask decides only the first.
 */
export interface SignedStage {
  tier: ApprovalTier;
  /** The ask's requestedAt, as the goal's state holds it and `keel pending` lists it. */
  requestedAt: string;
  /** The held changes the approver named (change-set-digest.ts); absent when they named none. */
  changesDigest?: string | undefined;
}

/** A stage's element of a signed text; its own JSON array, like a rule's. */
function stageElement(stage: SignedStage): string {
  return `stage:${JSON.stringify([stage.tier, stage.requestedAt, stage.changesDigest ?? ''])}`;
}

/** What a signature over a rule covers: everything that decides which calls it decides, and how. */
export interface SignedRule {
  effect: 'allow' | 'forbid';
  tool: string;
  pattern: string;
  irreversible: boolean;
  until?: string | undefined;
}

/** A rule's element of a signed text; its own JSON array, so no field can pass for another. */
function ruleElement(rule: SignedRule): string {
  return `rule:${JSON.stringify([rule.effect, rule.tool, rule.pattern, rule.irreversible, rule.until ?? ''])}`;
}

/** The sixth element of the signed text of a denial with doNotAskAgain. */
export const DO_NOT_ASK_AGAIN_MARK = 'do-not-ask-again';

/**
 * The exact text an approver signs. A JSON array, so no field can smuggle a separator into
 * another; the workflow id binds it to one goal (any run of it, so continue-as-new keeps it
 * valid), the call id to one call, and the stage to one of its asks (an escalated call is asked
 * twice). The reason is not signed.
 * doNotAskAgain adds a sixth element, and only when true: decisions without it sign exactly the
 * five elements they always did (existing signers keep working), and a signature over one form
 * does not verify for the other, so nobody can replay a signature to add or drop the flag.
 * The stage comes last, and likewise only when given: see SignedStage, and judgeSignature
 * (goal/approval-decision.ts) for which asks accept a text without it.
 */
export function canonicalDecisionText(decision: SignedDecision): string {
  return JSON.stringify([
    SIGNATURE_VERSION,
    decision.workflowId,
    decision.callId,
    decision.approved ? 'approve' : 'deny',
    decision.approver,
    ...(decision.doNotAskAgain === true ? [DO_NOT_ASK_AGAIN_MARK] : []),
    ...(decision.rule === undefined ? [] : [ruleElement(decision.rule)]),
    ...(decision.stage === undefined ? [] : [stageElement(decision.stage)]),
  ]);
}

export const RULE_SIGNATURE_VERSION = 'keel-rule-v1';

/** A rule added or revoked on its own (`keel rules`), as its maker signs it. */
export type SignedRuleChange =
  | { workflowId: string; change: 'add'; rule: SignedRule; approver: string }
  | { workflowId: string; change: 'revoke'; ruleId: string; approver: string };

/** The exact text signed for a rule change: bound to one goal and one approver, like a decision. */
export function canonicalRuleChangeText(change: SignedRuleChange): string {
  return JSON.stringify([
    RULE_SIGNATURE_VERSION,
    change.workflowId,
    change.change,
    change.change === 'add' ? ruleElement(change.rule) : change.ruleId,
    change.approver,
  ]);
}

export type SignatureCheck =
  | { ok: true }
  | { ok: false; reason: 'missing-signature' | 'bad-signature' | 'unauthorized-approver'; message: string };

/** Checks a decision's signature against the approver's public key; never throws. */
export function checkSignature(options: {
  signatures: ApprovalSignatures;
  decision: SignedDecision;
  signature: string | undefined;
  verify: Ed25519Verify | undefined;
}): SignatureCheck {
  return checkSignedText({
    signatures: options.signatures,
    approver: options.decision.approver,
    text: canonicalDecisionText(options.decision),
    signature: options.signature,
    verify: options.verify,
    what: 'decision',
  });
}

/** Checks a signature over a canonical text (a decision's, a rule change's); never throws. */
export function checkSignedText(options: {
  signatures: ApprovalSignatures;
  approver: string;
  text: string;
  signature: string | undefined;
  verify: Ed25519Verify | undefined;
  what: string;
}): SignatureCheck {
  const { approver } = options;
  const keyText = Object.hasOwn(options.signatures.keys, approver)
    ? options.signatures.keys[approver]
    : undefined;
  if (keyText === undefined) {
    return {
      ok: false,
      reason: 'unauthorized-approver',
      message: `${approver} has no approval key for this goal`,
    };
  }
  if (options.signature === undefined || options.signature.trim() === '') {
    return { ok: false, reason: 'missing-signature', message: `this goal requires a signed ${options.what}` };
  }
  if (!options.verify) {
    return {
      ok: false,
      reason: 'bad-signature',
      message: 'signature cannot be checked: this worker has no Ed25519 verifier',
    };
  }
  const publicKey = decodeBase64(keyText);
  const signature = decodeBase64(options.signature);
  if (!publicKey || signature?.length !== ED25519_SIGNATURE_BYTES) {
    return { ok: false, reason: 'bad-signature', message: 'signature is not base64 of 64 bytes' };
  }
  const message = new TextEncoder().encode(options.text);
  let valid: boolean;
  try {
    valid = options.verify(signature, message, publicKey);
  } catch {
    valid = false; // a malformed key or point is a bad signature, not a crashed handler
  }
  return valid
    ? { ok: true }
    : {
        ok: false,
        reason: 'bad-signature',
        message: `signature does not match ${approver}'s key for this ${options.what}`,
      };
}
