import type { ServerResponse } from 'node:http';
import type { InboxGoals } from './goals';

/**
 * A goal's live events as Server-Sent Events: its ledger, polled with `afterSequence`, each event
 * sent with its sequence as the SSE id. A browser that reconnects sends the last id it saw
 * (Last-Event-ID) and gets every event after it, so a dropped connection misses nothing the
 * ledger still holds (it keeps the newest 500).
 */

export const EVENTS_POLL_MS = 1000;

export function eventsAfter(lastEventId: string | undefined, after: string | null): number {
  for (const candidate of [lastEventId, after ?? undefined]) {
    if (candidate !== undefined && /^\d{1,15}$/.test(candidate)) return Number(candidate);
  }
  return 0;
}

export async function streamEvents(
  response: ServerResponse,
  options: { goals: InboxGoals; workflowId: string; after: number; signal: AbortSignal; pollMs?: number },
): Promise<void> {
  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
  });
  response.write('retry: 2000\n\n');
  let after = options.after;
  while (!options.signal.aborted) {
    try {
      for (const event of await options.goals.events(options.workflowId, after)) {
        const data = { sequence: event.sequence, at: event.at, kind: event.kind, summary: event.summary };
        response.write(`id: ${event.sequence}\nevent: ledger\ndata: ${JSON.stringify(data)}\n\n`);
        after = Math.max(after, event.sequence);
      }
    } catch {
      // No worker answers the query just now: say so as a comment and keep the stream open.
      response.write(': the goal did not answer; trying again\n\n');
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.pollMs ?? EVENTS_POLL_MS);
      options.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
  response.end();
}
