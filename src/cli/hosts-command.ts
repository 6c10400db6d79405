import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { ConnectionSettings } from '../connection-settings';
import { hostsServing } from './lazy-modules';

type WithClient = <T>(
  command: Command,
  action: (client: Client, settings: ConnectionSettings) => Promise<T>,
) => Promise<T>;

/**
 * `keel hosts`: the keel hosts polling the task queue (issue 9), one line each with the queue of
 * its own, where the workspace tools of the goals bound to it run. The same list a goal asks for
 * when it looks for its workspace (the listHosts activity).
 */
export function registerHostsCommand(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('hosts')
    .description('list the keel hosts serving the task queue, each with its own queue')
    .option('--json', 'print one JSON array of {hostId, hostTaskQueue, lastPolledAt}')
    .action(async (options: { json?: boolean }, command: Command) => {
      await withClient(command, async (client, settings) => {
        const hosts = await hostsServing({
          connection: client.connection,
          namespace: settings.namespace,
          taskQueue: settings.taskQueue,
        });
        if (hosts.length === 0) process.exitCode = 1;
        if (options.json) return print(JSON.stringify(hosts, null, 2));
        if (hosts.length === 0)
          return process.stderr.write(`keel: no keel worker polls task queue ${settings.taskQueue}\n`);
        const width = Math.max(...hosts.map((host) => host.hostId.length));
        for (const host of hosts)
          print(`${host.hostId.padEnd(width)}  queue "${host.hostTaskQueue}"${staleness(host)}`);
      });
    });
}

/**
 * A poll is long (up to a minute), so an idle healthy host's last poll may be that old; past
 * STALE_AFTER_MS its worker is busy (every slot taken) or gone. The server forgets it after ~5 min.
 */
const STALE_AFTER_MS = 90_000;

function staleness(host: { lastPolledAt?: string }, now = Date.now()): string {
  if (host.lastPolledAt === undefined) return '';
  const seconds = Math.round((now - Date.parse(host.lastPolledAt)) / 1000);
  if (seconds * 1000 < STALE_AFTER_MS) return '';
  return `  (no poll for ${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s: busy or gone)`;
}
