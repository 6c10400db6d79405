/**
 * The Temporal client a command's action runs with: connected with the global connection flags
 * (else the environment, else the local dev server's defaults) and closed when the action ends.
 */
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { connectionSettings, type ConnectionSettings } from '../client/connection-settings';
import { CliError } from './cli-error';
import { closedGoalStatus, connectClient } from './lazy-modules';

/** The program's global options: where Temporal is and which task queue keel's workers poll. */
export interface GlobalOptions {
  address?: string;
  namespace?: string;
  taskQueue?: string;
}

const settingsOf = (command: Command): ConnectionSettings =>
  connectionSettings(command.optsWithGlobals<GlobalOptions>());

export const withClient = async <T>(
  command: Command,
  action: (client: Client, settings: ConnectionSettings) => Promise<T>,
) => {
  const settings = settingsOf(command);
  const client = await connectClient(settings);
  try {
    return await action(client, settings);
  } catch (error) {
    // A signal or Update to a goal that has ended fails as "not found"; say what happened instead.
    // By name, not instanceof: the CLI loads the Temporal client only when a command needs it.
    const workflowId =
      error instanceof Error && error.name === 'WorkflowNotFoundError'
        ? (error as Error & { workflowId?: string }).workflowId
        : undefined;
    const ended = workflowId ? await closedGoalStatus(client, workflowId) : undefined;
    if (ended) throw new CliError(`goal ${workflowId} has ended (${ended}): it takes no decisions now`);
    throw error;
  } finally {
    await client.connection.close();
  }
};
