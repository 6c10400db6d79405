import { intentOf, type CallIntent } from './call-intent';
import { DEFAULT_DENIAL_SETTINGS, observeDenial, type DeniedIntent } from './denial-guard';
import type { HeldChanges } from './denied-effects';
import type { GuardDecision } from './guard-decisions';
import { CallEffect } from './progress';

/** A call of a finished turn as the denial record sees it. */
export interface RecordedCall {
  toolName: string;
  input: unknown;
  /** read (or failed), a successful change, or denied (it never ran). */
  effect: CallEffect;
  /** The changes its copy-on-write layer held when a human was asked (escalation.changes). */
  held?: HeldChanges;
}

/**
 * What a denied call asked for: the intent the human refused. The held changes are its effects
 * whatever the call's text: `python3 wipe.py` and a perl one-liner that delete build/ are the same
 * refused deletion, so the denials stop counts them together instead of asking the human anew.
 */
export function deniedIntentOf(call: RecordedCall): CallIntent {
  return intentOf(call.toolName, call.input, call.held);
}

/**
 * A turn with the guards switched off: no decision, but each denied call is still remembered in
 * `denied`. That list is bookkeeping, not a guard: the approvals read it to hold a later call with
 * the same effect for a human (goal/tool-calls/denied-effects-check.ts), so switching the guards off must not
 * silently switch that protection off too.
 */
export function turnWithGuardsOff(denied: DeniedIntent[], calls: readonly RecordedCall[]): GuardDecision[] {
  const recordOnly = { ...DEFAULT_DENIAL_SETTINGS, enabled: false };
  for (const call of calls)
    if (call.effect === CallEffect.Denied)
      observeDenial(denied, deniedIntentOf(call), recordOnly, () => false);
  return [];
}
