import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { hostsToAsk, type TaskQueueConnection } from '../../client/hosts';
import { parseHostActivityInput } from './host-activity-input';

export const listHostsInputSchema = z.object({ taskQueue: z.string().min(1).optional() }).strict();
export type ListHostsInput = z.infer<typeof listHostsInputSchema>;

/** Where this worker lists hosts: its own connection, namespace and shared task queue. */
export interface HostListing {
  connection: TaskQueueConnection;
  namespace: string;
  /** The shared queue, asked about when the input names none. */
  taskQueue: string;
}

/** The worker was created without a connection to ask (createActivities called on its own). */
export const HOSTS_UNLISTABLE = 'HostsUnlistable';

/**
 * The ids of the live keel hosts of a shared task queue (their workers beat: see
 * client/hosts.ts), so a goal can ask each whether it holds its workspace. Runs on the shared queue: any worker can answer, none needs the workspace.
 */
export function createListHostsActivity(listing: HostListing | undefined) {
  return {
    async listHosts(raw: ListHostsInput = {}): Promise<{ hosts: string[] }> {
      const input = parseHostActivityInput(listHostsInputSchema, raw, 'listHosts');
      if (listing === undefined)
        throw ApplicationFailure.nonRetryable(
          'this worker has no Temporal connection to list hosts',
          HOSTS_UNLISTABLE,
        );
      // A missing host would take the goal's question only once it is back: not asked.
      const hosts = await hostsToAsk({
        connection: listing.connection,
        namespace: listing.namespace,
        taskQueue: input.taskQueue ?? listing.taskQueue,
      });
      return { hosts };
    },
  };
}
