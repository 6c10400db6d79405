/**
 * An irreversible call run at most once: the journal, and the attempts on hosts the goal has left,
 * decide whether a retry may run it, returns its recorded outcome, or reports it as unknown.
 */
import type { z } from 'zod';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import { claimVerdict, type EarlierAttempt } from '../../workflows/tools/earlier-attempts';
import type { activityContextOrUndefined } from '../activity-context';
import { nothingRanOutcome } from './sandbox/network-isolation-outcome';
import { describeUnknownAttempt, type createIrreversibleJournal } from './irreversible-journal';
import { errorText } from './registered-tool';
import type { executeToolInputSchema } from './tool-activity-inputs';
import { outcomeUnknown } from './tool-activity-failures';

/**
 * Runs an irreversible call unless an earlier attempt began it. Attempts are retried by
 * Temporal (see goal/lifecycle/activity-proxies.ts); this decides, from the journal, whether a retry may run:
 * never begun → run; begun and finished → its recorded outcome; begun and cut off → an
 * OutcomeUnknown failure, which is not retried.
 */
export async function runAtMostOnce(attempt: {
  call: z.output<typeof executeToolInputSchema>;
  summary: string;
  run: () => Promise<ToolOutcome>;
  journal: ReturnType<typeof createIrreversibleJournal>;
  journalId: string;
  activity: ReturnType<typeof activityContextOrUndefined>;
  beat: (details?: unknown) => void;
  signal: AbortSignal;
  /** This worker's host, when the call names none. */
  hostId: string | undefined;
}): Promise<ToolOutcome> {
  const { call, summary, journal, journalId } = attempt;
  const earlierJournal = journalOfEarlierAttempt(attempt.activity);
  const earlier: EarlierAttempt[] = [
    ...(call.earlierAttempts ?? []),
    // An earlier attempt of this same activity, on this host's queue, named its journal.
    ...(earlierJournal === undefined
      ? []
      : [
          {
            host: call.host ?? attempt.hostId ?? 'this host',
            mayHaveStarted: true,
            journalId: earlierJournal,
          },
        ]),
  ];
  const verdict = claimVerdict({ ownJournalId: journalId, earlier });
  if (verdict.kind === 'cannot-tell') {
    // This journal cannot prove the call never began; a marker here can still say it did.
    const marker = await journal.peek(call.idempotencyKey);
    if (marker?.earlier?.outcome !== undefined)
      return recordedOutcome(marker.earlier.outcome, marker.earlier.finishedAt);
    if (marker !== undefined)
      throw outcomeUnknown(describeUnknownAttempt(marker.earlier), {
        began: true,
        ...(marker.earlier === undefined ? {} : { startedAt: marker.earlier.startedAt }),
      });
    throw outcomeUnknown(verdict.reason, { began: 'unknown' });
  }
  attempt.beat(); // names this journal on the server before the call can begin
  const claim = await journal.claim({
    idempotencyKey: call.idempotencyKey,
    toolName: call.toolName,
    summary,
  });
  if (!claim.claimed) {
    const earlier = claim.earlier;
    if (earlier?.outcome !== undefined) return recordedOutcome(earlier.outcome, earlier.finishedAt);
    await journal.recordReportedUnknown(claim.markerPath);
    throw outcomeUnknown(describeUnknownAttempt(earlier), {
      began: true,
      ...(earlier === undefined ? {} : { startedAt: earlier.startedAt }),
    });
  }
  let outcome: ToolOutcome;
  try {
    outcome = await attempt.run();
  } catch (error) {
    // Thrown before anything started (no network isolation here): a plain failed call, not unknown.
    const notRun = nothingRanOutcome(error);
    await journal.recordFinish(claim.markerPath, notRun ? { outcome: notRun } : { error: errorText(error) });
    if (notRun !== undefined) return notRun;
    if (attempt.signal.aborted) throw error; // cancelled: Temporal must see the cancellation
    throw outcomeUnknown(`it began and then failed midway (${errorText(error)})`, {
      began: true,
    });
  }
  await journal.recordFinish(claim.markerPath, { outcome });
  return outcome;
}

/** What an irreversible call's heartbeats carry: its journal, and the tool's own details. */
export interface AttemptBeat {
  readonly journalId: string;
  readonly details: unknown;
}

/** The journal an earlier attempt of this activity named in its heartbeats, if any. */
function journalOfEarlierAttempt(
  activity: ReturnType<typeof activityContextOrUndefined>,
): string | undefined {
  const details: unknown = activity?.info.heartbeatDetails;
  if (typeof details !== 'object' || details === null || !('journalId' in details)) return undefined;
  return typeof details.journalId === 'string' ? details.journalId : undefined;
}

/** A finished call's recorded outcome, returned to a retry whose earlier attempt's answer was lost. */
function recordedOutcome(outcome: ToolOutcome, finishedAt: string | undefined): ToolOutcome {
  const note = `(Not run again: an earlier attempt of this irreversible call finished at ${finishedAt ?? 'an unrecorded time'}, and this is its recorded result.)`;
  return { ...outcome, content: `${note}\n${outcome.content}` };
}
