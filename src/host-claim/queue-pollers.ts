import { temporal } from '@temporalio/proto';
import { millisecondsOf } from '../client/worker-heartbeats';
import { parseWorkerIdentity } from '../workflows/hosts/host-queues';
import type { KeelWorkerPoll } from './claim-decision';

/** Both the client's Connection and the worker's NativeConnection have one. */
export interface PollerListingConnection {
  workflowService: Pick<temporal.api.workflowservice.v1.WorkflowService, 'describeTaskQueue'>;
}

const { TaskQueueType, TaskQueueKind } = temporal.api.enums.v1;

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
  const response = await options.connection.workflowService.describeTaskQueue({
    namespace: options.namespace,
    taskQueue: { name: options.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return (response.pollers ?? []).flatMap((poller) => {
    const identity = poller.identity ?? '';
    const keel = parseWorkerIdentity(identity);
    const polledAtMs = millisecondsOf(poller.lastAccessTime);
    return keel === undefined || polledAtMs === undefined ? [] : [{ ...keel, identity, polledAtMs }];
  });
}
