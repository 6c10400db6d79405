import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { ConnectionSettings } from '../client/connection-settings';
import type { ToolCatalogue } from '../workflows/tools/tool-catalogue';
import { goalToolsQuery } from '../workflows/goal/messages';
import type { CliError } from './cli-error';
import { duration } from './flag-parsers';
import { goalHandle, hostsToAsk, workerTools } from './lazy-modules';
import { approvalRule, toolLines } from '../client/tool-lines';
import { askGoal } from './ask-goal';
import { queueNoWorkerError } from './queue-no-worker';

type WithClient = <T>(
  command: Command,
  action: (client: Client, settings: ConnectionSettings) => Promise<T>,
) => Promise<T>;

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * `keel tools [goalId]`: the tools a worker of the task queue offers (names, tiers, approval,
 * source, input schema), or those one goal recorded at its start. A worker's tools exist only in
 * its process, so the CLI asks one through Temporal (workerToolsWorkflow); with none polling the
 * queue it says so at once, and one that does not answer is given up on after --timeout.
 */
export function registerToolsCommand(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('tools')
    .description("the tools a worker offers (tier, approval, source, input), or a goal's tools")
    .argument('[goalId]', 'list the tools this goal may use, as recorded at its start')
    .option('--json', 'print one JSON array of {name, description, source, tier, approval, inputSchema}')
    .option('--timeout <duration>', 'how long to wait for a worker (default 10s)', duration)
    .action(
      async (goalId: string | undefined, options: { json?: boolean; timeout?: number }, command: Command) => {
        const timeoutMs = options.timeout ?? DEFAULT_TIMEOUT_MS;
        await withClient(command, async (client, settings) => {
          const catalogue =
            goalId === undefined
              ? await workerCatalogue(client, settings, timeoutMs)
              : await goalCatalogue(client, goalId, timeoutMs);
          if (options.json) return print(JSON.stringify(catalogue.map(withApproval), null, 2));
          if (goalId !== undefined && catalogue.length === 0)
            return print(`goal ${goalId} has recorded no tools (yet)`);
          for (const line of toolLines(catalogue)) print(line);
        });
      },
    );
}

async function workerCatalogue(
  client: Client,
  settings: ConnectionSettings,
  timeoutMs: number,
): Promise<ToolCatalogue> {
  const { taskQueue, namespace } = settings;
  // Asked first: without a worker the answer is one line now, not a wait for the timeout.
  const hosts = await hostsToAsk({ connection: client.connection, namespace, taskQueue });
  if (hosts.length === 0) throw noPollerError(taskQueue, namespace);
  try {
    return await workerTools(client, { taskQueue, timeoutMs });
  } catch (error) {
    // By name, not instanceof: the CLI loads the Temporal client only when a command needs it.
    const cause = (error as { cause?: Error }).cause;
    if (error instanceof Error && error.name === 'WorkflowFailedError' && cause?.name === 'TimeoutFailure')
      throw noAnswerError(taskQueue, timeoutMs, hosts);
    throw error;
  }
}

/** `keel tools` when nothing polls the task queue: the shared words, exit 3. */
export function noPollerError(taskQueue: string, namespace: string): CliError {
  return queueNoWorkerError(
    { taskQueue, seen: 'no-poller' },
    `a worker's tools exist only in its process: start one (keel worker), or name its queue with --task-queue (namespace ${namespace})`,
  );
}

/** `keel tools` when the queue's workers did not answer within --timeout: the shared words, exit 3. */
export function noAnswerError(taskQueue: string, timeoutMs: number, hosts: readonly string[]): CliError {
  return queueNoWorkerError(
    { taskQueue, seen: 'no-answer', waitedMs: timeoutMs },
    `live hosts: ${hosts.join(', ')}; one older than keel tools cannot answer`,
  );
}

/** The tools a goal recorded at its start: in its state, so its worker is asked (ask-goal.ts). */
function goalCatalogue(client: Client, goalId: string, timeoutMs: number): Promise<ToolCatalogue> {
  return askGoal(
    client,
    goalId,
    () => goalHandle(client, goalId).query(goalToolsQuery),
    { reads: 'the tools' },
    timeoutMs,
  );
}

function withApproval(entry: ToolCatalogue[number]) {
  return { ...entry, approval: approvalRule(entry) };
}
