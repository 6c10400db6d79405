import type { ServerResponse } from 'node:http';
import { formatServerSentEnd, resumeOffset, type GoalStreamEvent } from '../client/goal-events';
import type { InboxGoals } from './goals';

/**
 * A goal's live events as Server-Sent Events, from the client's followGoalEvents (its ledger and
 * the text its model is writing, with offsets that rise across continue-as-new). Each event's id
 * is its offset: a browser that reconnects sends the last one it saw (Last-Event-ID) and gets
 * every event after it, or a stream.gap event saying what the bounded ledger no longer holds.
 * Every event is sent as `event: goal` (the page's one listener), its kind inside the data.
 */

/** Where to resume: Last-Event-ID first (a reconnect), else the page's ?after=. */
export function eventsAfter(lastEventId: string | undefined, after: string | null): number {
  return lastEventId !== undefined && lastEventId.trim() !== ''
    ? resumeOffset(lastEventId)
    : resumeOffset(after);
}

export function serverSentGoalEvent(event: GoalStreamEvent): string {
  return `id: ${event.offset}\nevent: goal\ndata: ${JSON.stringify(event)}\n\n`;
}

export async function streamEvents(
  response: ServerResponse,
  options: { goals: InboxGoals; workflowId: string; after: number; signal: AbortSignal },
): Promise<void> {
  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
  });
  response.write('retry: 2000\n\n');
  for await (const event of options.goals.follow(options.workflowId, options.after, options.signal))
    response.write(serverSentGoalEvent(event));
  // The goal ended: say so, so the page closes its EventSource instead of reconnecting.
  if (!options.signal.aborted) response.write(formatServerSentEnd());
  response.end();
}
