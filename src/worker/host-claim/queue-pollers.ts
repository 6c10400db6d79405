import { taskQueuePollers, type PollerListingConnection } from '../../client/task-queue-pollers';
import { millisecondsOf } from '../../client/worker-heartbeats';
import { parseWorkerIdentity } from '../../workflows/hosts/host-queues';
import type { KeelWorkerPoll } from './claim-decision';

/**
 * The keel workers polling a host's queue (activity tasks only: a host queue carries no
 * workflows), as DescribeTaskQueue lists them. Pollers of other programs are left out. The server
 * keeps a poller listed for minutes after it went away: judge each by when its poll began.
 */
export async function listKeelPollers(options: {
  connection: PollerListingConnection;
  namespace: string;
  taskQueue: string;
}): Promise<KeelWorkerPoll[]> {
  const pollers = await taskQueuePollers({ ...options, tasks: 'activity' });
  return pollers.flatMap((poller) => {
    const identity = poller.identity ?? '';
    const keel = parseWorkerIdentity(identity);
    const polledAtMs = millisecondsOf(poller.lastAccessTime);
    return keel === undefined || polledAtMs === undefined ? [] : [{ ...keel, identity, polledAtMs }];
  });
}
