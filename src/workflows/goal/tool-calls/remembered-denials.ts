import { z } from 'zod';
import {
  callIntentSchema,
  intentOf,
  intentText,
  sameIntent,
  type CallIntent,
} from '../../principles/call-intent';
import type { HeldChanges } from '../../principles/denied-effects';

/**
 * Denials a human asked not to be asked again for (issue 22): the goal remembers what each denied
 * call was about (its intent, call-intent.ts), and a later call that would wait for a human and
 * shares an intent with one of them is refused at once, like a denial, instead of being asked.
 * Sharing an intent includes touching what the denied call would have deleted or overwritten,
 * through any tool (denied-effects.ts, issue 44).
 * Pure: the workflow matches in signal handlers and lanes, and replay must match alike.
 */

/** Enough for any goal a human watches; the oldest go first, so the newest wishes always hold. */
export const MAX_REMEMBERED_DENIALS = 50;

export const rememberedDenialSchema = z.lazy(() =>
  z.object({
    intent: callIntentSchema,
    /** The human decision that asked for it, as it was recorded on its call. */
    decision: z.object({
      callId: z.string(),
      summary: z.string(),
      approver: z.string(),
      reason: z.string(),
      decidedAt: z.string(),
      via: z.enum(['signal', 'update']),
    }),
  }),
);
export type RememberedDenial = z.infer<typeof rememberedDenialSchema>;

export const rememberedDenialsSchema = z.lazy(() =>
  z.array(rememberedDenialSchema).max(MAX_REMEMBERED_DENIALS),
);

/*
 * The call and decision shapes read here, structurally: goal/lifecycle/state.ts holds this module's schema,
 * so importing its types back would make a cycle (workflow-layout.test.ts forbids them).
 */
interface CallSeen {
  toolName: string;
  input: unknown;
  /** The changes its copy-on-write layer holds: part of what a denial of it refuses (issue 44). */
  escalation?: { changes?: HeldChanges | undefined } | undefined;
}
interface DeniedCall extends CallSeen {
  callId: string;
  summary: string;
}
interface DecisionSeen {
  approver: string;
  reason: string;
  decidedAt: string;
  via: string;
}
/** A denial by keel for a remembered intent; a valid goal-state ApprovalDecision. */
export interface AutoDenial extends DecisionSeen {
  approved: false;
  approver: 'keel';
  via: 'remembered-denial';
}

/**
 * The list with this human denial remembered: a denial of the very same intent replaces the older
 * one (its approver and reason are the latest), and past the cap the oldest goes.
 */
export function rememberDenial(
  remembered: readonly RememberedDenial[],
  call: DeniedCall,
  decision: DecisionSeen,
): RememberedDenial[] {
  if (decision.via !== 'signal' && decision.via !== 'update') return [...remembered];
  const intent = intentOf(call.toolName, call.input, call.escalation?.changes);
  const entry: RememberedDenial = {
    intent,
    decision: {
      callId: call.callId,
      summary: call.summary,
      approver: decision.approver,
      reason: decision.reason,
      decidedAt: decision.decidedAt,
      via: decision.via,
    },
  };
  const others = remembered.filter((earlier) => !sameWholeIntent(earlier.intent, intent));
  return [...others, entry].slice(-MAX_REMEMBERED_DENIALS);
}

/** The newest remembered denial this call shares an intent with, if any. */
export function rememberedDenialFor(
  remembered: readonly RememberedDenial[] | undefined,
  call: CallSeen,
): RememberedDenial | undefined {
  if (remembered === undefined || remembered.length === 0) return undefined;
  const intent = intentOf(call.toolName, call.input, call.escalation?.changes);
  for (let index = remembered.length - 1; index >= 0; index -= 1) {
    const earlier = remembered[index];
    if (earlier && sameIntent(earlier.intent, intent)) return earlier;
  }
  return undefined;
}

/**
 * The decision keel records on a call it refuses for a remembered denial: a denial in every
 * respect the rest of the workflow looks at (approved false), made by keel, whose reason says
 * plainly who denied what and that they asked not to be asked again.
 */
export function autoDenial(remembered: RememberedDenial, decidedAt: string): AutoDenial {
  const { approver, reason } = remembered.decision;
  const because = reason.trim() === '' ? '' : ` Their reason: ${reason.trim()}`;
  return {
    approved: false,
    approver: 'keel',
    reason:
      `a human (${approver}) denied this intent (${intentText(remembered.intent)}) earlier ` +
      `and asked not to be asked again, so keel refused it without asking.${because}`,
    decidedAt,
    via: 'remembered-denial',
  };
}

/**
 * Whether two kept intents are the very same (not merely overlapping): one replaces the other.
 * Targets are compared as JSON arrays, not joined by a separator: a target may hold a newline
 * (`rm -rf 'a<newline>b'`), and must not pass for two (`rm -rf a b`), or its denial would drop theirs.
 */
function sameWholeIntent(a: CallIntent, b: CallIntent): boolean {
  return (
    a.tool === b.tool &&
    a.call === b.call &&
    JSON.stringify(a.targets) === JSON.stringify(b.targets) &&
    JSON.stringify(a.effects ?? []) === JSON.stringify(b.effects ?? [])
  );
}
