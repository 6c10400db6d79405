import type { LedgerEvent } from '../../src/workflows/common/ledger';

/** The ledger's events as a goal's query returns them (re-exported for the chaos tests). */
export type { LedgerEvent };
import { countEffects, effectIndexIn } from './chaos-goal';

export interface UnknownOutcome {
  readonly callId: string;
  readonly effect: number | undefined;
  /** As the tool's journal told it: true, or 'unknown' when no journal could say. */
  readonly began: unknown;
  /** Whether the effect is in the file after all. */
  readonly effectPresent: boolean;
}

/** What one chaos goal's irreversible calls did, read from its effects file and its ledger. */
export interface EffectOutcome {
  /** Effects that appear more than once: an irreversible call that ran twice. */
  readonly duplicatedEffects: number[];
  readonly missingEffects: number[];
  readonly unknownOutcomes: UnknownOutcome[];
  /** Effects missing that no unknown outcome accounts for: lost silently. */
  readonly unexplainedMissing: number[];
  readonly approvalsSent: number;
  /** Approvals the server accepted that the goal never decided. */
  readonly lostApprovals: string[];
}

/** Judges a goal's effects file and ledger against the `calls` it was scripted to make. */
export function effectOutcome(input: {
  effects: string;
  ledger: readonly LedgerEvent[];
  signaled: ReadonlySet<string>;
  calls: number;
}): EffectOutcome {
  const counted = countEffects(input.effects, input.calls);
  const present = new Set(input.effects.split('\n').map(effectIndexIn));
  const unknownOutcomes = input.ledger
    .filter((event) => event.kind === 'tool.outcome_unknown')
    .map((event) => {
      const effect = effectIndexIn(event.summary);
      return {
        callId: String(event.data.callId),
        effect,
        began: event.data.began,
        effectPresent: effect !== undefined && present.has(effect),
      };
    });
  const decided = new Set(
    input.ledger
      .filter((event) => event.kind === 'approval.decided')
      .map((event) => String(event.data.callId)),
  );
  const accountedFor = new Set(unknownOutcomes.map((outcome) => outcome.effect));
  return {
    duplicatedEffects: counted.duplicated,
    missingEffects: counted.missing,
    unknownOutcomes,
    unexplainedMissing: counted.missing.filter((index) => !accountedFor.has(index)),
    approvalsSent: input.signaled.size,
    lostApprovals: [...input.signaled].filter((callId) => !decided.has(callId)),
  };
}
