import { temporal } from '@temporalio/proto';

const { TaskQueueType, TaskQueueKind } = temporal.api.enums.v1;

/** Both the client's Connection and the worker's NativeConnection have one. */
export interface PollerListingConnection {
  workflowService: Pick<temporal.api.workflowservice.v1.WorkflowService, 'describeTaskQueue'>;
}

/**
 * The pollers of one kind of a task queue's tasks, as DescribeTaskQueue lists them: the one
 * request the host listing, the host claim and the CLI's no-worker check all make. The server
 * keeps a poller listed for minutes after it went away, so callers judge each by its last poll.
 */
export async function taskQueuePollers(options: {
  connection: PollerListingConnection;
  namespace: string;
  taskQueue: string;
  tasks: 'workflow' | 'activity';
}): Promise<temporal.api.taskqueue.v1.IPollerInfo[]> {
  const response = await options.connection.workflowService.describeTaskQueue({
    namespace: options.namespace,
    taskQueue: { name: options.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType:
      options.tasks === 'workflow'
        ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW
        : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return response.pollers ?? [];
}
