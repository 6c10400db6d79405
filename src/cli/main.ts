/**
 * The `keel` CLI (bin/keel.js loads it): the commander program, with each group of commands
 * registered from its own file, and main(), which runs it and turns errors into one line.
 */
import { Command, CommanderError } from 'commander';
import { connectionSettings } from '../client/connection-settings';
import { CliError, describeCliError } from './cli-error';
import { ExitCode } from './exit-codes';
import { registerRunCommand } from './run-command';
import { registerCancelCommand, registerGoalCommands } from './goal-commands';
import { registerKeygenCommand } from './keygen-command';
import { registerInboxCommand } from './inbox-command';
import { registerRebindCommand } from './rebind-command';
import { registerForkCommands } from './fork-commands';
import { registerCodecServerCommand } from './codec-server-command';
import { registerReflectionCommands } from './reflections-command';
import { registerReviewCommand } from './review-command';
import { registerApprovalCommands } from './approval-commands';
import { registerStatusCommands } from './status-commands';
import { registerHostsCommand } from './hosts-command';
import { registerToolsCommand } from './tools-command';
import { registerWorkerCommand } from './worker-command';
import { withClient, type GlobalOptions } from './with-client';

const print = (line: string) => console.log(line);

export function buildProgram(): Command {
  const program = new Command('keel')
    .description('Durable AI agent goals on Temporal')
    .option('--address <host:port>', 'Temporal frontend (env TEMPORAL_ADDRESS; default 127.0.0.1:7233)')
    .option('--namespace <name>', 'Temporal namespace (env TEMPORAL_NAMESPACE; default "default")')
    .option('--task-queue <name>', 'task queue of keel workers (env KEEL_TASK_QUEUE; default "keel")')
    .showHelpAfterError(false)
    .exitOverride()
    // One line, no usage dump: the first line of commander's message, in keel's own voice.
    .configureOutput({
      writeErr: (text) =>
        process.stderr.write(`keel: ${(text.split('\n')[0] ?? '').replace(/^error: /, '')}\n`),
    });

  // In this order: `keel --help` lists the commands as they are registered.
  registerRunCommand(program, withClient, print);
  registerStatusCommands(program, withClient, print);
  registerApprovalCommands(program, withClient, print);
  registerGoalCommands(program, withClient, print);
  registerReflectionCommands(program);
  registerReviewCommand(program, withClient, print);
  registerRebindCommand(program, withClient, print);
  registerForkCommands(program, withClient, print);
  registerCodecServerCommand(program, print);
  registerCancelCommand(program, withClient, print);
  registerKeygenCommand(program, print);
  registerWorkerCommand(program);
  registerHostsCommand(program, withClient, print);
  registerToolsCommand(program, withClient, print);
  registerInboxCommand(program, print);

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.Ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander already printed its one-line message. Help and version exit 0; its own errors
      // (an unknown option, a missing argument, a value a flag parser refused) exit 1 in
      // commander, and are bad input here, like every other mistake keel reports.
      return error.exitCode === 0 ? ExitCode.Ok : ExitCode.BadInput;
    }
    const address = connectionSettings(program.opts<GlobalOptions>()).address;
    process.stderr.write(`keel: ${describeCliError(error, { address })}\n`);
    return error instanceof CliError ? error.exitCode : ExitCode.Failed;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
