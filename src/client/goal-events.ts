import type { WorkflowExecutionDescription } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import type { StreamProgress } from '../workflows/goal/model-turn/call-settings';
import { ledgerQuery } from '../workflows/goal/messages';
import type { GoalHandle } from './goal-client';
import { within } from './within';
import { ledgerStreamEvents, sequenceOfOffset, textStreamEvent, type GoalStreamEvent } from './goal-stream';

export {
  formatServerSentEnd,
  formatServerSentEvent,
  OFFSET_SLOTS,
  resumeOffset,
  StreamEventKind,
  type GoalStreamEvent,
} from './goal-stream';

export interface FollowGoalEventsOptions {
  /** Resume after this offset (the last one a viewer saw); 0 or absent: from the start. */
  after?: number;
  /** Ends the stream (the generator returns) without waiting for the goal. */
  signal?: AbortSignal;
  /** How often the goal is asked; 500 ms by default. */
  pollMs?: number;
}

/** Failed reads of a goal that ended before the stream gives up on its last events. */
const CLOSED_READS = 5;

/**
 * How long the last read of a goal that ended may take: a query of a closed workflow needs a worker
 * to replay it, and with none the server holds the query until its own deadline.
 */
const CLOSED_READ_MS = 10_000;

/**
 * A goal's live event stream: its ledger (model answers, tool calls and results, approvals, guard
 * decisions, budgets, the goal's end; views/turn-events.ts and common/ledger.ts) as it grows, and
 * the text its model is writing, with offsets (goal-stream.ts) that rise strictly across
 * continue-as-new; ends when the goal ends.
 *
 * Backed by Temporal with no history event per read: each poll is one describe (is the goal
 * running, and what does its streaming call's heartbeat say) and one ledger query (queries are not
 * recorded). The ledger is bounded (config.ledger.maxEvents): a viewer that resumes from an offset
 * older than the oldest event kept gets a stream.gap event that says what it missed. Text events
 * are a live view only: what a heartbeat shows (the last 160 characters, at most every 2 s under
 * keel's worker), not replayed on resume; each turn's answer is in its model.answered event.
 * A worker restart or a moment between runs only delays the next read.
 */
export async function* followGoalEvents(
  handle: GoalHandle,
  options: FollowGoalEventsOptions = {},
): AsyncGenerator<GoalStreamEvent> {
  const { signal } = options;
  const pollMs = options.pollMs ?? 500;
  let last = Math.max(0, options.after ?? 0);
  let window: string | undefined;
  let closedReads = 0;
  while (!signal?.aborted) {
    let description: WorkflowExecutionDescription;
    try {
      description = await handle.describe();
    } catch {
      await pause(pollMs, signal); // not started yet, or the server is away for a moment
      continue;
    }
    const closed = description.status.name !== 'RUNNING';
    let read: GoalStreamEvent[];
    try {
      const query = handle.query(ledgerQuery, { afterSequence: sequenceOfOffset(last) });
      const events = closed ? await within(query, CLOSED_READ_MS) : await query;
      if (events === undefined) return; // ended, and no worker to read its last events from
      read = ledgerStreamEvents(events, last);
    } catch {
      // No worker to answer (a restart), or a run that has not taken its first task yet.
      if (closed && ++closedReads >= CLOSED_READS) return;
      await pause(pollMs, signal);
      continue;
    }
    for (const event of read) {
      if (signal?.aborted) return;
      last = event.offset;
      yield event;
    }
    if (closed) return;
    // Text read before events that came after it would be out of place: the next look reads it again.
    if (read.length === 0) {
      const progress = await streamingProgress(handle, description);
      const text = progress ? textStreamEvent(progress, last, window) : undefined;
      if (progress) window = progress.latest;
      if (text && !signal?.aborted) {
        last = text.offset;
        yield text;
      }
    } else window = undefined;
    await pause(pollMs, signal);
  }
}

/** The heartbeat of the goal's streaming callModel activity, when one is running and beating. */
async function streamingProgress(
  handle: GoalHandle,
  description: WorkflowExecutionDescription,
): Promise<StreamProgress | undefined> {
  for (const activity of description.raw.pendingActivities ?? []) {
    if (activity.activityType?.name !== 'callModel') continue;
    const payloads = activity.heartbeatDetails?.payloads;
    if (!payloads?.length) return undefined;
    const [details] = await decodeArrayFromPayloads(
      handle.client.options.loadedDataConverter,
      payloads,
    ).catch(() => []);
    return isStreamProgress(details) ? details : undefined;
  }
  return undefined;
}

function isStreamProgress(value: unknown): value is StreamProgress {
  if (typeof value !== 'object' || value === null) return false;
  const progress = value as Partial<Record<keyof StreamProgress, unknown>>;
  return (
    progress.kind === 'model-stream' &&
    typeof progress.latest === 'string' &&
    typeof progress.outputTokens === 'number' &&
    progress.lastError === undefined // a failed attempt's last stream is not an answer forming
  );
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
