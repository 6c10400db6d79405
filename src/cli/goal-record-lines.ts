import type { GoalRecord } from '../client/goal-record';
import { noWorkerCause, serverRecordNote, type NoWorker } from '../client/no-worker';
import { labelText } from './approval-lines';

/**
 * What `keel status`, `keel plan` and `keel pending` print when the goal's worker does not answer:
 * the server's record of it (goal-record.ts), under the one note that says so (no-worker.ts).
 */

/** `keel status <goal>` from the server's record. */
export function recordStatusLines(record: GoalRecord, noWorker: NoWorker): string[] {
  const lines = [serverRecordNote(noWorker, record.lastEventAt)];
  const keel = record.status ?? 'status not recorded';
  const temporal = record.execution === record.status ? '' : `; Temporal: ${record.execution}`;
  lines.push(`${record.workflowId}: ${keel} (${record.phase ?? 'phase not recorded'})${temporal}`);
  if (record.goal !== undefined) lines.push(`goal: ${labelText(record.goal)}`);
  lines.push(
    `started ${record.startedAt}${record.closedAt === undefined ? '' : `; closed ${record.closedAt}`}`,
  );
  const counts = [
    record.toolCalls === undefined ? undefined : `tool calls ${record.toolCalls} (may lag a few)`,
    record.planAttempt === undefined || record.planAttempt === 0
      ? undefined
      : `plan attempt ${record.planAttempt}`,
  ].filter((part) => part !== undefined);
  if (counts.length > 0) lines.push(counts.join('; '));
  if (record.host !== undefined) lines.push(`host: ${record.host}`);
  const pending = record.pendingApprovals ?? 0;
  if (pending > 0)
    lines.push(
      `awaiting approval: ${callCount(pending)} (which calls, and what they do, a worker shows: keel status ${record.workflowId})`,
    );
  for (const activity of record.pendingActivities) {
    // A model call the API turned away says why and until when (model-wait.ts), not just "attempt 4".
    if (activity.modelWait !== undefined) {
      lines.push(`waiting on the model: ${labelText(activity.modelWait.line)}`);
      continue;
    }
    lines.push(
      `waiting on ${activity.type} (attempt ${activity.attempt}${activity.lastFailure === undefined ? '' : `; last failure: ${labelText(activity.lastFailure)}`})`,
    );
  }
  return lines;
}

/** `keel status <goal> --json` from the server's record: marked, so it is not read as the query's view. */
export function recordStatusJson(record: GoalRecord, noWorker: NoWorker): Record<string, unknown> {
  return { source: 'server-record', noWorker: noWorkerCause(noWorker), ...record };
}

/** `keel plan <goal>` from the server's record: the attempt is there, the steps are not. */
export function recordPlanLines(record: GoalRecord, noWorker: NoWorker): string[] {
  const attempt =
    record.planAttempt === undefined || record.planAttempt === 0
      ? `${record.workflowId}: no plan attempt recorded (planning may be off for this goal)`
      : `${record.workflowId}: plan attempt ${record.planAttempt}`;
  return [
    serverRecordNote(noWorker, record.lastEventAt),
    `${attempt}; the plan's steps are in the goal's state: a worker shows them`,
  ];
}

/**
 * `keel pending`'s line (on stderr) for a goal that awaits decisions and whose worker does not
 * answer; undefined when its record says it awaits none.
 */
export function recordPendingLine(record: GoalRecord, noWorker: NoWorker): string | undefined {
  const pending = record.pendingApprovals ?? 0;
  const reviewing = record.phase === 'reviewing';
  if (pending === 0 && !reviewing) return undefined;
  const what = [pending > 0 ? callCount(pending) : undefined, reviewing ? 'a review' : undefined]
    .filter((part) => part !== undefined)
    .join(' and ');
  return `${record.workflowId} awaits ${what}, which a worker lists ${serverRecordNote(noWorker, record.lastEventAt)}`;
}

function callCount(count: number): string {
  return count === 1 ? '1 call' : `${count} calls`;
}
