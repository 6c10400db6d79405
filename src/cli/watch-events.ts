import type { GoalStreamEvent } from '../client/goal-events';

/** How much of an event's summary a line shows. */
const SUMMARY_CHARS = 160;

/**
 * One event of a goal's stream as `keel watch` prints it: its offset (what `--after` resumes
 * from), its kind and its summary on one line; the text a model is writing is marked as a part.
 */
export function eventLine(event: GoalStreamEvent): string {
  const summary = event.summary.replace(/\s+/g, ' ').trim();
  const shown = summary.length > SUMMARY_CHARS ? `${summary.slice(0, SUMMARY_CHARS - 1)}…` : summary;
  return `[${event.offset}] ${event.kind}: ${event.kind === 'model.text' ? `…${shown}` : shown}`;
}

/** How a goal ended: the view's last line and the result's lines say it, so a log does not (said once). */
const ENDINGS: ReadonlySet<string> = new Set([
  'goal.completed',
  'goal.failed',
  'goal.stuck',
  'goal.cancelled',
]);

/** The line a log (not a TTY) prints for an event, if any. */
export function logLine(event: GoalStreamEvent): string | undefined {
  return ENDINGS.has(event.kind) ? undefined : eventLine(event);
}

/** The latest events under a TTY frame, with how to resume after the last of them. */
export function eventLines(events: readonly GoalStreamEvent[], workflowId: string): string[] {
  const last = events.at(-1);
  if (!last) return [];
  return [
    `events (resume: keel watch ${workflowId} --after ${last.offset}):`,
    ...events.map((event) => `  ${eventLine(event)}`),
  ];
}
