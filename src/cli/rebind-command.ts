import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { goalHandle, rebindHost } from './lazy-modules';
import { askGoal } from './ask-goal';
import { CliError } from './cli-error';
import { defaultUserName } from '../client/os-user';
import { hostIdSchema } from '../workflows/hosts/host-queues';

const VIA_NOTE: Partial<Record<string, string>> = {
  cloned: ' (workspace cloned there)',
  carried: ' (workspace carried there)',
};

type WithClient = <T>(command: Command, action: (client: Client) => Promise<T>) => Promise<T>;

/**
 * `keel rebind <workflowId> --host <id>`: moves a goal whose workspace host is unavailable to
 * another host, through the `rebindHost` Update. The goal refuses unless its host is away and the
 * new host has the workspace or can clone it from the goal's git source (`keel run --git`).
 * With `--carry` the goal moves while its host is alive, and takes its workspace along.
 */
export function registerRebindCommand(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('rebind')
    .description('move a goal whose workspace host is unavailable to another host')
    .argument('<workflowId>')
    .requiredOption('--host <id>', 'the host to move to (`keel hosts` lists them)')
    .option('--by <name>', 'who moves it (default $USER, else the OS user)')
    .option(
      '--carry',
      'move it while its host is alive, carrying the workspace there (up to 4 MB packed; see docs/several-machines.md)',
    )
    .action(
      async (
        workflowId: string,
        options: { host: string; by?: string; carry?: boolean },
        command: Command,
      ) => {
        const host = hostIdSchema.safeParse(options.host);
        if (!host.success)
          throw new CliError(`--host: ${host.error.issues[0]?.message ?? 'invalid host id'}`);
        await withClient(command, async (client) => {
          const move = {
            host: host.data,
            by: options.by ?? defaultUserName(),
            ...(options.carry === true ? { carry: true } : {}),
          };
          // A move may clone or carry the workspace: a worker that polls is waited for as long as it takes.
          const receipt = await askGoal(
            client,
            workflowId,
            () => rebindHost(goalHandle(client, workflowId), move),
            { changes: 'the move' },
            undefined,
          );
          print(`moved ${workflowId} to host ${receipt.host}${VIA_NOTE[receipt.via] ?? ''}`);
        });
      },
    );
}
