import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { ConnectionSettings } from '../client/connection-settings';
import { hostsServing } from './lazy-modules';
import type { HostLiveness } from '../client/host-liveness';
import { hostsExitCode, HostsExitCode } from '../client/hosts-exit-code';
import type { ServingHost } from '../client/hosts';
import { ExitCode } from './exit-codes';
import { queueNoWorkerLine } from './queue-no-worker';

type WithClient = <T>(
  command: Command,
  action: (client: Client, settings: ConnectionSettings) => Promise<T>,
) => Promise<T>;

/**
 * `keel hosts`: the keel hosts of the task queue as Temporal's worker heartbeats show them (issue
 * 23): each live, missing or stopped, with its instances and the running goals bound to it. It
 * exits 3 when a host a running goal needs is missing, so a script or a monitor sees the loss,
 * and 3 when no worker serves the queue at all, as every command does (exit-codes.ts).
 */
export function registerHostsCommand(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('hosts')
    .description(
      'the keel hosts of the task queue: live, missing or stopped, their instances and running goals (exit 3: a host a running goal needs is missing)',
    )
    .option(
      '--json',
      'print one JSON array of {hostId, hostTaskQueue, state, secondsSinceBeat, missingSince, instances, runningGoals}',
    )
    .action(async (options: { json?: boolean }, command: Command) => {
      await withClient(command, async (client, settings) => {
        const listing = await hostsServing({
          connection: client.connection,
          namespace: settings.namespace,
          taskQueue: settings.taskQueue,
          countGoals: true,
        });
        if (listing.source === 'pollers') {
          process.stderr.write(`keel: ${listing.note}\n`);
          return printPolling(listing.hosts, options.json === true, settings.taskQueue, print);
        }
        const hosts = listing.hosts;
        process.exitCode = hostsCommandExitCode(hosts);
        if (options.json) print(JSON.stringify(hosts, null, 2));
        else for (const line of hostLines(hosts)) print(line);
        if (hosts.length === 0) process.stderr.write(`keel: ${noHostsLine(settings.taskQueue)}\n`);
        for (const host of hosts)
          if (
            hostsExitCode(hosts) === HostsExitCode.NeededHostMissing &&
            (host.runningGoals ?? 0) > 0 &&
            host.state !== 'live'
          )
            process.stderr.write(`keel: ${neededLine(host)}\n`);
      });
    });
}

/**
 * `keel hosts`' exit code: 0 when a live host serves the queue; ExitCode.NoWorker (3) when none
 * does, as every command says "no worker" (hosts-exit-code.ts has 1 for it, which read as a
 * failed goal), and 3 too when a host a running goal is bound to is missing.
 */
export function hostsCommandExitCode(hosts: readonly HostLiveness[]): number {
  const code = hostsExitCode(hosts);
  return code === HostsExitCode.NoHosts ? ExitCode.NoWorker : code;
}

/** What `keel hosts` says when no keel host serves the task queue, in the shared words. */
export function noHostsLine(taskQueue: string): string {
  return queueNoWorkerLine(
    { taskQueue, seen: 'no-poller' },
    'start one (keel worker), or name its queue with --task-queue',
  );
}

/** One line per host, and one under it per instance. Pure, so tests read what is printed. */
export function hostLines(hosts: readonly HostLiveness[]): string[] {
  const width = Math.max(0, ...hosts.map((host) => host.hostId.length));
  return hosts.flatMap((host) => [
    [
      host.hostId.padEnd(width),
      host.state.padEnd(7),
      beatText(host),
      goalsText(host.runningGoals),
      `queue "${host.hostTaskQueue}"`,
    ]
      .filter((part) => part !== '')
      .join('  '),
    ...host.instances.map(
      (instance) =>
        `  instance ${instance.instanceId ?? '?'}  ${instance.pid ?? '?'}@${instance.machine ?? '?'}  ${instance.state}${
          instance.secondsSinceBeat === undefined
            ? instance.state === 'live'
              ? '  polling, first beat to come'
              : ''
            : `  last beat ${instance.secondsSinceBeat}s ago`
        }`,
    ),
  ]);
}

function beatText(host: HostLiveness): string {
  if (host.secondsSinceBeat === undefined)
    return host.state === 'live' ? 'polling, first beat to come' : 'no worker has served it';
  if (host.state === 'missing')
    return `no beat for ${host.secondsSinceBeat}s (since ${host.missingSince ?? '?'})`;
  return `last beat ${host.secondsSinceBeat}s ago`;
}

function goalsText(count: number | undefined): string {
  if (count === undefined) return '';
  return count === 1 ? '1 running goal' : `${count} running goals`;
}

/** Why `keel hosts` exits 3: which host, how many goals wait for it, where to look. */
export function neededLine(host: HostLiveness): string {
  const goals = goalsText(host.runningGoals);
  return `host ${host.hostId} is ${host.state === 'stopped' ? 'stopped' : 'missing'} and ${goals} ${
    host.runningGoals === 1 ? 'is' : 'are'
  } bound to it: their calls wait for it (keel status <goal> says what you can do)`;
}

/** Hosts seen polling (a server without worker heartbeats): liveness cannot be judged. */
function printPolling(
  hosts: readonly ServingHost[],
  json: boolean,
  taskQueue: string,
  print: (line: string) => void,
): void {
  if (hosts.length === 0) process.exitCode = ExitCode.NoWorker;
  if (json) return print(JSON.stringify(hosts, null, 2));
  if (hosts.length === 0) return void process.stderr.write(`keel: ${noHostsLine(taskQueue)}\n`);
  const width = Math.max(...hosts.map((host) => host.hostId.length));
  for (const host of hosts) print(`${host.hostId.padEnd(width)}  queue "${host.hostTaskQueue}"`);
}
