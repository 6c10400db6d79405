import type { Client } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import type { StreamProgress } from '../workflows/goal/model-call';
import type { GoalHandle } from './goal-client';

/**
 * The answer a goal's model is writing now, from the heartbeat details of its pending callModel
 * activity (decoded with the client's data converter, so encrypted payloads are read too);
 * undefined when no model call is streaming.
 */
export async function modelProgress(client: Client, handle: GoalHandle): Promise<StreamProgress | undefined> {
  const description = await handle.describe();
  for (const activity of description.raw.pendingActivities ?? []) {
    if (activity.activityType?.name !== 'callModel') continue;
    const payloads = activity.heartbeatDetails?.payloads;
    if (!payloads || payloads.length === 0) continue;
    const [details] = await decodeArrayFromPayloads(client.workflow.options.loadedDataConverter, payloads);
    if (isStreamProgress(details)) return details;
  }
  return undefined;
}

function isStreamProgress(value: unknown): value is StreamProgress {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'model-stream' &&
    typeof (value as { outputTokens?: unknown }).outputTokens === 'number' &&
    typeof (value as { latest?: unknown }).latest === 'string'
  );
}
