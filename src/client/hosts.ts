import { temporal } from '@temporalio/proto';
import { hostIdOfIdentity, hostTaskQueue } from '../workflows/hosts/host-queues';

/** Both the client's Connection and the worker's NativeConnection have one. */
export interface TaskQueueConnection {
  workflowService: Pick<temporal.api.workflowservice.v1.WorkflowService, 'describeTaskQueue'>;
}

/** A keel host seen polling a task queue. */
export interface ServingHost {
  hostId: string;
  /** The queue of the host's own (hostTaskQueue), where its workspace activities go. */
  hostTaskQueue: string;
  /**
   * When one of its workers last began a poll of the shared queue (ISO 8601), when the server
   * says. A poll waits up to a minute for a task, so an idle host's may be that old.
   */
  lastPolledAt?: string;
}

const { TaskQueueType, TaskQueueKind } = temporal.api.enums.v1;

/**
 * The keel hosts serving a shared task queue, sorted by host id: read off the pollers of its
 * workflow and activity tasks (DescribeTaskQueue), whose identities name their host
 * (workerIdentity). Pollers of other programs are left out. The server forgets a poller about
 * five minutes after its last poll, so a host that just went away may still be listed.
 */
export async function hostsServing(options: {
  connection: TaskQueueConnection;
  namespace: string;
  taskQueue: string;
}): Promise<ServingHost[]> {
  const { connection, namespace, taskQueue } = options;
  const types = [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY];
  const responses = await Promise.all(
    types.map((taskQueueType) =>
      connection.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType,
      }),
    ),
  );
  const lastPolled = new Map<string, number | undefined>();
  for (const poller of responses.flatMap((response) => response.pollers ?? [])) {
    const hostId = hostIdOfIdentity(poller.identity ?? '');
    if (hostId === undefined) continue;
    const at = millisecondsOf(poller.lastAccessTime);
    const known = lastPolled.get(hostId);
    lastPolled.set(hostId, known === undefined ? at : at === undefined ? known : Math.max(known, at));
  }
  return [...lastPolled.keys()].sort().map((hostId) => {
    const at = lastPolled.get(hostId);
    return {
      hostId,
      hostTaskQueue: hostTaskQueue(taskQueue, hostId),
      ...(at === undefined ? {} : { lastPolledAt: new Date(at).toISOString() }),
    };
  });
}

function millisecondsOf(
  timestamp: temporal.api.taskqueue.v1.IPollerInfo['lastAccessTime'],
): number | undefined {
  if (!timestamp?.seconds) return undefined;
  return Number(timestamp.seconds) * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6);
}
