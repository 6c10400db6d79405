import type { z } from 'zod';
import type { Ed25519Verify } from '../../common/ed25519';
import {
  approverAllowed,
  checkSignature,
  type ApprovalSignatures,
  type Approvers,
  type SignedDecision,
} from '../../approvals/approval-authority';
import { decisionTier } from '../../approvals/decision-tier';
import { ChangeSetRefusal, checkChangeSet } from '../../approvals/change-set-digest';
import type { ToolCallRecord } from '../lifecycle/state';
import { approvalSignalPayloadSchema, approvalUpdatePayloadSchema } from '../messages';
import {
  RuleEffect,
  signedDecisionRule,
  type DecisionRule,
  type RuleScope,
} from '../../approvals/approval-rule';
import { exactPatternFor, whyNoExactAllowRule, whyScopeMissesCall } from '../../approvals/rule-book';

type ApprovalSignalPayload = z.output<typeof approvalSignalPayloadSchema>;

/**
 * Whether one approve/deny message may decide a call, as data: either the call and the decision,
 * or a refusal with its reason. Signals record refusals in the ledger (`approval.ignored`); the
 * Update validator throws them back to the caller. Pure, so replay judges alike.
 */

export const DecisionRefusalReason = {
  MalformedPayload: 'malformed-payload',
  UnknownCall: 'unknown-call',
  AlreadyDecided: 'already-decided',
  UnauthorizedApprover: 'unauthorized-approver',
  MissingSignature: 'missing-signature',
  BadSignature: 'bad-signature',
  /** doNotAskAgain on an approval: it only means something for a denial, so it is refused, not dropped. */
  DoNotAskAgainOnApproval: 'do-not-ask-again-on-approval',
  /** The rule given with the decision would not cover its own call, or has already expired. */
  RuleRefused: 'rule-refused',
  /** The goal requires encrypted decisions and this one arrived in plain text. */
  PlainTextDecision: 'plain-text-decision',
  /** A signature made for the call's first ask, sent for its escalated (irreversible) ask. */
  SignatureForAnotherStage: 'signature-for-another-stage',
  /** A signed approval of an escalated call's held changes that does not name them by digest. */
  MissingChangesDigest: 'missing-changes-digest',
  /** A decision for the ask it was listed, sent when the call waits on another (escalated since). */
  AnotherAsk: 'another-ask',
  /** An approval naming other held changes than the call's, or of changes its list does not name. */
  ...ChangeSetRefusal,
} as const;
export type DecisionRefusalReason = (typeof DecisionRefusalReason)[keyof typeof DecisionRefusalReason];

export interface DecisionRefusal {
  reason: DecisionRefusalReason;
  message: string;
  callId?: string;
  approver?: string;
}

export interface AcceptedDecision {
  call: ToolCallRecord;
  approved: boolean;
  approver: string;
  reason: string;
  /** A denial whose intent the goal remembers and refuses from now on without asking. */
  doNotAskAgain: boolean;
  /** The rule to add with it (allow with an approval, forbid with a denial), defaults filled in. */
  rule?: RuleScope;
  /** Where it was made, as the sender says (messages.ts). */
  origin?: string;
}

export type DecisionVerdict = ({ ok: true } & AcceptedDecision) | ({ ok: false } & DecisionRefusal);

export interface DecisionAuthority {
  workflowId: string;
  approvers: Approvers;
  signatures?: ApprovalSignatures;
  verify: Ed25519Verify | undefined;
  /** Workflow time, for a rule's `until`. */
  nowMs?: number;
  /** The goal's workspace, so a rule's path is read as the goal's tools read it. */
  workspace?: string;
}

/**
 * Judges a raw approve/deny signal payload (`approved` from the signal's name) or a raw Update
 * payload (`approved` inside it: pass `'from-payload'`).
 */
export function judgeDecision(
  raw: unknown,
  approved: boolean | 'from-payload',
  turn: readonly ToolCallRecord[] | undefined,
  authority: DecisionAuthority,
): DecisionVerdict {
  const parsed: z.ZodSafeParseResult<ApprovalSignalPayload & { approved?: boolean }> =
    approved === 'from-payload'
      ? approvalUpdatePayloadSchema.safeParse(raw)
      : approvalSignalPayloadSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return {
      ok: false,
      reason: DecisionRefusalReason.MalformedPayload,
      message: `malformed decision: ${field}${issue?.message ?? 'invalid'}`,
      ...knownFields(raw),
    };
  }
  const payload = parsed.data;
  const isApproved = approved === 'from-payload' ? payload.approved === true : approved;
  const known = { callId: payload.callId, approver: payload.approver };
  const refuse = (reason: DecisionRefusalReason, message: string): DecisionVerdict => ({
    ok: false,
    reason,
    message,
    ...known,
  });

  const doNotAskAgain = payload.doNotAskAgain === true;
  if (doNotAskAgain && isApproved) {
    // Refused rather than ignored: an approver who sent it meant something, and silently
    // approving would hide that nothing was remembered.
    return refuse(
      DecisionRefusalReason.DoNotAskAgainOnApproval,
      'doNotAskAgain applies to denials only: deny with it, or approve without it',
    );
  }

  const call = turn?.find((candidate) => candidate.callId === payload.callId);
  if (!call)
    return refuse(DecisionRefusalReason.UnknownCall, `no pending approval with call id ${payload.callId}`);
  if (call.status !== 'awaiting-approval' || call.approval?.decision) {
    return refuse(DecisionRefusalReason.AlreadyDecided, `call ${payload.callId} was already decided`);
  }
  const tier = decisionTier(call.reversibility);
  if (!approverAllowed(authority.approvers, tier, payload.approver)) {
    return refuse(
      DecisionRefusalReason.UnauthorizedApprover,
      `${payload.approver} may not decide ${tier} calls of this goal`,
    );
  }
  if (authority.signatures) {
    const unsigned = judgeSignature(authority.signatures, payload, isApproved, call, authority);
    if (unsigned) return refuse(unsigned.reason, unsigned.message);
  }
  // After who may decide: a stranger learns nothing of what the call holds.
  if (payload.requestedAt !== undefined && payload.requestedAt !== call.approval?.requestedAt) {
    return refuse(
      DecisionRefusalReason.AnotherAsk,
      `call ${payload.callId} was listed as asked at ${payload.requestedAt}, but waits on an ask of ${call.approval?.requestedAt ?? 'no time'}: list it again (keel pending) and decide what it holds`,
    );
  }
  const changeSet = checkChangeSet({
    approved: isApproved,
    held: call.escalation?.changes,
    digest: payload.changesDigest,
  });
  if (!changeSet.ok) return refuse(changeSet.reason, changeSet.message);
  let rule: RuleScope | undefined;
  if (payload.rule !== undefined) {
    const judged = judgeDecisionRule(payload.rule, isApproved, call, payload.approver, authority);
    if (!judged.ok) return refuse(judged.reason, judged.message);
    rule = judged.scope;
  }
  return {
    ok: true,
    call,
    approved: isApproved,
    approver: payload.approver,
    reason: payload.reason,
    doNotAskAgain,
    ...(rule === undefined ? {} : { rule }),
    ...(payload.origin === undefined ? {} : { origin: payload.origin }),
  };
}

/**
 * The rule given with a decision, defaults filled from the call: refused when it would not cover
 * the call it came with (a typo the human would otherwise find only when asked again), when it
 * has already expired, or when it would cover irreversible calls and its maker may not decide them.
 */
function judgeDecisionRule(
  given: DecisionRule,
  approved: boolean,
  call: ToolCallRecord,
  approver: string,
  authority: DecisionAuthority,
): { ok: true; scope: RuleScope } | { ok: false; reason: DecisionRefusalReason; message: string } {
  const effect = approved ? RuleEffect.Allow : RuleEffect.Forbid;
  const inexact =
    given.pattern === undefined && approved ? whyNoExactAllowRule(call, authority.workspace) : undefined;
  if (inexact !== undefined) {
    return { ok: false, reason: DecisionRefusalReason.RuleRefused, message: inexact };
  }
  const scope: RuleScope = {
    tool: given.tool ?? call.toolName,
    pattern: given.pattern ?? exactPatternFor(call, authority.workspace),
    irreversible: given.irreversible ?? false,
    ...(given.until === undefined ? {} : { until: given.until }),
  };
  if (
    scope.until !== undefined &&
    authority.nowMs !== undefined &&
    Date.parse(scope.until) <= authority.nowMs
  ) {
    return {
      ok: false,
      reason: DecisionRefusalReason.RuleRefused,
      message: `rule.until ${scope.until} has already passed`,
    };
  }
  const miss = whyScopeMissesCall(scope, effect, call, authority.workspace);
  if (miss !== undefined) return { ok: false, reason: DecisionRefusalReason.RuleRefused, message: miss };
  if (
    effect === RuleEffect.Allow &&
    scope.irreversible &&
    !approverAllowed(authority.approvers, 'irreversible', approver)
  ) {
    return {
      ok: false,
      reason: DecisionRefusalReason.UnauthorizedApprover,
      message: `${approver} may not decide irreversible calls of this goal, so cannot make a rule that covers them`,
    };
  }
  return { ok: true, scope };
}

/**
 * The signature of a decision, when the goal requires one; a refusal, or undefined when it holds.
 * The signer signs the ask it was listed (SignedStage); a first ask also takes the text without
 * the stage, which a signer that could not list the call signs (a signal sent with no worker).
 * An escalated ask takes only its own stage, so no signature of the first ask can decide it, and
 * a signed approval of held changes names them: the signer signs the set it was shown.
 */
function judgeSignature(
  signatures: ApprovalSignatures,
  payload: ApprovalSignalPayload,
  approved: boolean,
  call: ToolCallRecord,
  authority: DecisionAuthority,
): { reason: DecisionRefusalReason; message: string } | undefined {
  const decision: SignedDecision = {
    workflowId: authority.workflowId,
    callId: payload.callId,
    approved,
    approver: payload.approver,
    doNotAskAgain: payload.doNotAskAgain === true,
    ...(payload.rule === undefined ? {} : { rule: signedDecisionRule(approved, payload.rule) }),
  };
  const check = (signed: SignedDecision) =>
    checkSignature({ signatures, decision: signed, signature: payload.signature, verify: authority.verify });
  const stage = {
    tier: decisionTier(call.reversibility),
    requestedAt: call.approval?.requestedAt ?? '',
    changesDigest: payload.changesDigest,
  };
  const staged = check({ ...decision, stage });
  if (!staged.ok) {
    const unstaged = check(decision);
    if (call.escalation === undefined) return unstaged.ok ? undefined : unstaged;
    if (!unstaged.ok) return staged;
    return {
      reason: DecisionRefusalReason.SignatureForAnotherStage,
      message: `this signature decides call ${payload.callId} as first asked, but it was escalated to an irreversible approval at ${stage.requestedAt}: list it again (keel pending) and sign that`,
    };
  }
  if (approved && call.escalation?.changes !== undefined && payload.changesDigest === undefined) {
    return {
      reason: DecisionRefusalReason.MissingChangesDigest,
      message: `call ${payload.callId} holds changes: a signed approval names them by the digest keel pending shows (--changes)`,
    };
  }
  return undefined;
}

/** The call id and approver of a malformed payload, when they are there to name. */
function knownFields(raw: unknown): Pick<DecisionRefusal, 'callId' | 'approver'> {
  if (typeof raw !== 'object' || raw === null) return {};
  const record = raw as Record<string, unknown>;
  return {
    ...(typeof record.callId === 'string' && record.callId !== ''
      ? { callId: record.callId.slice(0, 200) }
      : {}),
    ...(typeof record.approver === 'string' && record.approver !== ''
      ? { approver: record.approver.slice(0, 200) }
      : {}),
  };
}
