import { z } from 'zod';

/**
 * What is known of an irreversible call's attempts on a host the goal has since left, handed to
 * the host it moved to so that host's journal can decide, as it does after a crash.
 */
export const earlierAttemptSchema = z.lazy(() =>
  z.object({
    host: z.string(),
    /** false only when Temporal proves no attempt started there (see earlierAttemptOf). */
    mayHaveStarted: z.boolean(),
    /** The journal an attempt named in its heartbeats before it could begin, when one did. */
    journalId: z.string().optional(),
  }),
);
export type EarlierAttempt = z.infer<typeof earlierAttemptSchema>;

/**
 * Reads the failure of an irreversible call on a host that went away. A schedule-to-start timeout
 * means the last attempt was never handed to a worker; Temporal attaches the failure of any
 * earlier attempt as its cause, and the journal id an attempt heartbeats before it begins stays
 * with the activity. Without either, no attempt ever started: the call provably never began.
 */
export function earlierAttemptOf(facts: {
  host: string;
  scheduleToStart: boolean;
  earlierFailure: boolean;
  heartbeatJournalId: string | undefined;
}): EarlierAttempt {
  const mayHaveStarted =
    !facts.scheduleToStart || facts.earlierFailure || facts.heartbeatJournalId !== undefined;
  return {
    host: facts.host,
    mayHaveStarted,
    ...(facts.heartbeatJournalId === undefined ? {} : { journalId: facts.heartbeatJournalId }),
  };
}

/** The attempts to declare to `host`: those on other hosts (the same host reads its own journal). */
export function attemptsElsewhere(
  earlier: readonly EarlierAttempt[],
  host: string | undefined,
): EarlierAttempt[] {
  return earlier.filter((attempt) => attempt.host !== host);
}

export type ClaimVerdict =
  /** Every attempt that may have begun used this journal (or none may have): its claim decides. */
  | { readonly kind: 'journal-decides' }
  /** An attempt may have begun where this journal cannot see: only a marker here could tell. */
  | { readonly kind: 'cannot-tell'; readonly reason: string };

/**
 * Whether the journal of the worker about to run an irreversible call can decide it: a call
 * that began elsewhere left its marker in another journal, so a missing marker here proves
 * nothing unless every attempt that may have begun used this very journal.
 */
export function claimVerdict(options: {
  ownJournalId: string;
  earlier: readonly EarlierAttempt[];
}): ClaimVerdict {
  for (const attempt of options.earlier) {
    if (!attempt.mayHaveStarted || attempt.journalId === options.ownJournalId) continue;
    const journal =
      attempt.journalId === undefined
        ? 'a journal it never named'
        : `its journal (${attempt.journalId}), which this worker cannot read`;
    return {
      kind: 'cannot-tell',
      reason: `an earlier attempt may have begun on host ${attempt.host}, with ${journal}, so whether it began is not known here`,
    };
  }
  return { kind: 'journal-decides' };
}
