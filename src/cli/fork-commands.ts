/**
 * `keel fork GOAL --at TURN` and `keel rewind GOAL --to TURN` (issue 48): a goal taken back to a
 * turn, its files with it, as a new goal beside it or in its own place. Irreversible calls the
 * goal made after that turn are listed; a rewind asks for --yes before it leaves them behind.
 */
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { ConnectionSettings } from '../client/connection-settings';
import { defaultUserName } from '../client/os-user';
import type * as ForkGoal from '../client/fork/fork-goal';
import type * as BundleFile from '../worker/bundle-file';
import type * as WorkerSdk from '@temporalio/worker';
import { CliError } from './cli-error';
import { positiveInteger } from './flag-parsers';

type WithClient = <T>(
  command: Command,
  action: (client: Client, settings: ConnectionSettings) => Promise<T>,
) => Promise<T>;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the replayer loads the worker SDK: only these commands pay for it
const forkGoal = () => require('../client/fork/fork-goal') as typeof ForkGoal;

function irreversibleLines(calls: ForkGoal.ForkPlan['lineage']['irreversibleAfter']): string[] {
  return calls.map(
    (call) =>
      `  turn ${call.turn} ${call.callId}: ${call.summary}${call.unknownOutcome === true ? ' (outcome unknown)' : ''}`,
  );
}

/**
 * The worker's prebuilt bundle (built once per code version): the replay loads it instead of
 * bundling. The replay worker's INFO lines (its state changes) are not the user's business here.
 */
async function workflowBundle(): Promise<string | undefined> {
  /* eslint-disable @typescript-eslint/no-require-imports -- the worker SDK, only for these commands */
  const { prebuiltWorkflowBundle } = require('../worker/bundle-file') as typeof BundleFile;
  const { DefaultLogger, Runtime } = require('@temporalio/worker') as typeof WorkerSdk;
  /* eslint-enable @typescript-eslint/no-require-imports */
  Runtime.install({ logger: new DefaultLogger('WARN') });
  return prebuiltWorkflowBundle({ env: process.env, log: (line) => process.stderr.write(`${line}\n`) });
}

/**
 * The queue the original runs on, where its workers (its tools, its hosts) are: the fork or the
 * rewound run goes there, not to the CLI's default queue. The CLI's when the goal is not found
 * (planFork then says so).
 */
async function queueOf(client: Client, workflowId: string, fallback: string): Promise<string> {
  const description = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
  return description?.taskQueue ?? fallback;
}

async function refusedAsCliError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof forkGoal().ForkRefused) throw new CliError(error.message);
    throw error;
  }
}

export function registerForkCommands(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('fork')
    .description('a new goal that continues from a turn of another, with its files as they were then')
    .argument('<workflowId>')
    .requiredOption(
      '--at <turn>',
      'the model turn to continue at (keel status shows the turns)',
      positiveInteger,
    )
    .option('--say <text>', 'what to do differently: the next message the model reads')
    .option(
      '--workspace <dir>',
      "the fork's workspace, absolute, new or empty (default: beside the original's)",
    )
    .option(
      '--in-place',
      "write the original's files back in its own workspace (once the original has ended)",
    )
    .option('--id <forkId>', 'the new goal id (default: a new one)')
    .option('--by <name>', 'who forks it (default $USER, else the OS user)')
    .action(
      async (
        workflowId: string,
        options: {
          at: number;
          say?: string;
          workspace?: string;
          inPlace?: boolean;
          id?: string;
          by?: string;
        },
        command: Command,
      ) => {
        if (options.inPlace === true && options.workspace !== undefined)
          throw new CliError('--in-place and --workspace exclude each other');
        await withClient(command, async (client, settings) => {
          if (options.inPlace === true) {
            const running =
              (await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
            if (running)
              throw new CliError(
                `${workflowId} is running: --in-place waits until it has ended (or use keel rewind)`,
              );
          }
          const forkId = options.id ?? forkGoal().newForkId(workflowId, options.at);
          const taskQueue = await queueOf(client, workflowId, settings.taskQueue);
          const bundle = await workflowBundle();
          const plan = await refusedAsCliError(() =>
            forkGoal().planFork(client, {
              workflowId,
              kind: 'fork',
              turn: options.at,
              say: options.say,
              by: options.by ?? defaultUserName(),
              workspace: options.workspace,
              inPlace: options.inPlace,
              forkId,
              taskQueue,
              bundle,
            }),
          );
          await forkGoal().startFork(client, plan, { forkId, taskQueue });
          print(
            `forked ${workflowId} at turn ${plan.lineage.turn} as ${forkId}, workspace ${plan.lineage.workspace.to}`,
          );
          if (plan.lineage.irreversibleAfter.length > 0) {
            print(
              `irreversible calls ${workflowId} made from turn ${plan.lineage.turn} on, not undone (the fork does not repeat them unasked):`,
            );
            for (const line of irreversibleLines(plan.lineage.irreversibleAfter)) print(line);
          }
        });
      },
    );

  program
    .command('rewind')
    .description('take a goal back to a turn in place, its files with it, and go on from there')
    .argument('<workflowId>')
    .requiredOption('--to <turn>', 'the model turn to go back to', positiveInteger)
    .option('--say <text>', 'what to do differently: the next message the model reads')
    .option('--yes', 'go back although irreversible calls made since cannot be undone')
    .option('--by <name>', 'who rewinds it (default $USER, else the OS user)')
    .action(
      async (
        workflowId: string,
        options: { to: number; say?: string; yes?: boolean; by?: string },
        command: Command,
      ) => {
        await withClient(command, async (client, settings) => {
          const taskQueue = await queueOf(client, workflowId, settings.taskQueue);
          const bundle = await workflowBundle();
          const plan = await refusedAsCliError(() =>
            forkGoal().planFork(client, {
              workflowId,
              kind: 'rewind',
              turn: options.to,
              say: options.say,
              by: options.by ?? defaultUserName(),
              forkId: workflowId,
              taskQueue,
              bundle,
            }),
          );
          const irreversible = plan.lineage.irreversibleAfter;
          if (irreversible.length > 0 && options.yes !== true) {
            print(
              `irreversible calls ${workflowId} made from turn ${options.to} on, which a rewind does not undo:`,
            );
            for (const line of irreversibleLines(irreversible)) print(line);
            throw new CliError(
              `not rewound: ${irreversible.length} irreversible call(s) since turn ${options.to}; add --yes to go back anyway`,
            );
          }
          // The running run ends and the new one starts in one server call: no moment without the goal.
          await forkGoal().startFork(client, plan, {
            forkId: workflowId,
            taskQueue,
            replaceRunning: true,
          });
          print(
            `rewound ${workflowId} to turn ${options.to}: its files are restored in ${plan.lineage.workspace.to} before it goes on`,
          );
        });
      },
    );
}
