import type { LedgerEvent } from '../workflows/common/ledger';
import type { StreamProgress } from '../workflows/goal/model-turn/call-settings';

/**
 * The pure parts of a goal's live event stream (client/goal-events.ts): offsets, gaps, the text a
 * model is writing, and the Server-Sent Events wire format.
 *
 * Offsets. Durable events are the goal's ledger, whose sequence runs across continue-as-new; the
 * event with sequence s has offset s × OFFSET_SLOTS. The text a model is writing lives only in its
 * pending activity's heartbeat, between two ledger events: a text event after ledger event s has
 * offset s × OFFSET_SLOTS + n, where n is the number of stream events the call had received (its
 * heartbeat's `events`, and `eventsBefore` of its earlier attempts), so every viewer gives the same text the same offset and a viewer that
 * resumes after it gets only newer text. Offsets therefore rise strictly, across runs too.
 */
export const OFFSET_SLOTS = 1_000_000;

/** One event of a goal's live stream; `offset` resumes it (`after`, SSE's Last-Event-ID). */
export interface GoalStreamEvent {
  offset: number;
  /** ISO 8601: the workflow clock for ledger events, the viewer's clock for text and gaps. */
  at: string;
  /** A ledger kind (common/ledger.ts), or model.text or stream.gap (below). */
  kind: string;
  summary: string;
  data: Record<string, unknown>;
}

export const StreamEventKind = {
  /** Text the model is writing, read off its streaming call's heartbeat (not durable). */
  ModelText: 'model.text',
  /** Events the goal no longer keeps (its ledger is bounded) were skipped: how many, which offsets. */
  Gap: 'stream.gap',
} as const;

export function offsetOfSequence(sequence: number): number {
  return sequence * OFFSET_SLOTS;
}

/** The last ledger sequence an offset has seen (0: none). */
export function sequenceOfOffset(offset: number): number {
  return Math.max(0, Math.floor(offset / OFFSET_SLOTS));
}

/**
 * The stream events for ledger events read after `after`, oldest first. When the first of them is
 * not the next sequence, the goal's bounded ledger dropped the ones between: a stream.gap event
 * says exactly how many and which offsets, just before the first event kept (never a silent skip).
 */
export function ledgerStreamEvents(
  events: readonly LedgerEvent[],
  after: number,
  now: () => Date = () => new Date(),
): GoalStreamEvent[] {
  const out: GoalStreamEvent[] = [];
  let seen = sequenceOfOffset(after);
  for (const event of [...events].sort((a, b) => a.sequence - b.sequence)) {
    if (event.sequence <= seen) continue;
    if (event.sequence > seen + 1) {
      const missed = event.sequence - seen - 1;
      out.push({
        offset: offsetOfSequence(event.sequence) - 1,
        at: now().toISOString(),
        kind: StreamEventKind.Gap,
        summary: `${missed} event${missed === 1 ? '' : 's'} missed: the goal keeps only its newest events`,
        data: {
          missed,
          fromOffset: offsetOfSequence(seen + 1),
          toOffset: offsetOfSequence(event.sequence - 1),
        },
      });
    }
    out.push({
      offset: offsetOfSequence(event.sequence),
      at: event.at,
      kind: event.kind,
      summary: event.summary,
      data: { ...event.data, sequence: event.sequence },
    });
    seen = event.sequence;
  }
  return out;
}

/**
 * What `now` adds to `before`, two windows of the latest characters of one streaming answer (the
 * heartbeat keeps the last 160): the part of `now` after its longest overlap with the end of
 * `before`. `joined` is false when no overlap was found (a first look, a new block, or more text
 * between two beats than the window holds): then `text` is the whole window and some may be missing.
 */
export function textDelta(before: string | undefined, now: string): { text: string; joined: boolean } {
  if (before === undefined || before === '') return { text: now, joined: false };
  if (now === before) return { text: '', joined: true };
  for (let length = Math.min(before.length, now.length); length > 0; length -= 1) {
    if (before.endsWith(now.slice(0, length))) return { text: now.slice(length), joined: true };
  }
  return { text: now, joined: false };
}

/**
 * The model.text event for a heartbeat, or undefined when it adds nothing after `after` (no new
 * stream events since, nothing written yet, or the model is thinking: its thinking is not its
 * answer). `before` is the window the viewer saw last, to send only what is new.
 */
export function textStreamEvent(
  progress: StreamProgress,
  after: number,
  before: string | undefined,
  now: () => Date = () => new Date(),
): GoalStreamEvent | undefined {
  if (progress.writing !== 'text' && progress.writing !== 'tool') return undefined;
  // Counted across the call's attempts: a retried answer's text comes after what viewers saw.
  const received = (progress.eventsBefore ?? 0) + (progress.events ?? progress.outputTokens);
  const offset =
    offsetOfSequence(sequenceOfOffset(after)) + Math.min(Math.max(received, 1), OFFSET_SLOTS - 1);
  if (offset <= after) return undefined;
  const delta = textDelta(before, progress.latest);
  if (delta.text === '') return undefined;
  return {
    offset,
    at: now().toISOString(),
    kind: StreamEventKind.ModelText,
    summary: delta.text,
    data: {
      text: delta.text,
      joined: delta.joined,
      writing: progress.writing,
      outputTokens: progress.outputTokens,
      ...(progress.tool === undefined ? {} : { tool: progress.tool }),
    },
  };
}

/**
 * One event as Server-Sent Events: `id:` is the offset, so a browser's EventSource resumes with
 * Last-Event-ID; `event:` is the kind; `data:` is the event as JSON (one line: JSON escapes newlines).
 */
export function formatServerSentEvent(event: GoalStreamEvent): string {
  return `id: ${event.offset}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The last event of a stream whose goal ended. It has no `id:`, so a resume starts after the last
 * real event; a client that sees it should close, or EventSource reconnects by itself.
 */
export function formatServerSentEnd(data: Record<string, unknown> = {}): string {
  return `event: end\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The offset to resume after, from SSE's Last-Event-ID header or a ?after= parameter; 0 if none. */
export function resumeOffset(value: string | null | undefined): number {
  if (value === null || value === undefined || value.trim() === '') return 0;
  const offset = Number(value.trim());
  return Number.isSafeInteger(offset) && offset >= 0 ? offset : 0;
}
