/**
 * Commands that act on one running goal: `keel message`, `keel watch`, `keel assess` and
 * `keel ledger`, and `keel cancel` (registered apart, so the help lists it where it always was).
 */
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { assessNowSignal, ledgerQuery } from '../workflows/goal/messages';
import { askGoal } from './ask-goal';
import { ExitCode } from './exit-codes';
import { wholeNumber } from './flag-parsers';
import { goalHandle, sendUserMessage, watchCommandAction } from './lazy-modules';

type WithClient = <T>(command: Command, action: (client: Client) => Promise<T>) => Promise<T>;

/** `keel message`, `keel watch`, `keel assess` and `keel ledger`. */
export function registerGoalCommands(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('message')
    .description('send a follow-up message to a running goal (starts a new task in it)')
    .argument('<workflowId>')
    .argument('<text...>')
    .action(async (workflowId: string, words: string[], _options: unknown, command: Command) => {
      await withClient(command, async (client) => {
        await sendUserMessage(goalHandle(client, workflowId), words.join(' '));
        print('message sent');
      });
    });

  program
    .command('watch')
    .description(
      'a live view of a goal (progress, plan, counters, pending approvals) and its events, with offsets, until it ends',
    )
    .argument('<workflowId>')
    .option('--after <offset>', 'resume the events after this offset (the last one seen)', wholeNumber)
    .action(async (workflowId: string, options: { after?: number }, command: Command) => {
      await withClient(command, async (client) => {
        const result = await watchCommandAction({
          client,
          workflowId,
          write: (text) => process.stdout.write(text),
          isTTY: Boolean(process.stdout.isTTY),
          ...(options.after === undefined ? {} : { after: options.after }),
        });
        if (result.status !== 'completed') process.exitCode = ExitCode.Failed;
      });
    });

  program
    .command('assess')
    .description('ask a goal for a self-assessment at its next turn boundary')
    .argument('<workflowId>')
    .action(async (workflowId: string, _options: unknown, command: Command) => {
      await withClient(command, async (client) => {
        await goalHandle(client, workflowId).signal(assessNowSignal);
        print(`assessment requested for ${workflowId}`);
      });
    });

  program
    .command('ledger')
    .description("a goal's notable events (plans, checkpoints, approvals, budgets, reflections)")
    .argument('<workflowId>')
    .option('--json', 'print the events as one JSON array (like status --json and pending --json)')
    .action(async (workflowId: string, options: { json?: boolean }, command: Command) => {
      await withClient(command, async (client) => {
        const events = await askGoal(
          client,
          workflowId,
          () => goalHandle(client, workflowId).query(ledgerQuery, {}),
          {
            reads: 'the ledger events',
          },
        );
        if (options.json) return print(JSON.stringify(events, null, 2));
        for (const event of events) print(`${event.sequence}  ${event.at}  ${event.kind}  ${event.summary}`);
        if (events.length === 0) print('no events');
      });
    });
}

/** `keel cancel`. */
export function registerCancelCommand(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('cancel')
    .description('cancel a goal')
    .argument('<workflowId>')
    .action(async (workflowId: string, _options: unknown, command: Command) => {
      await withClient(command, async (client) => {
        await goalHandle(client, workflowId).cancel();
        print(`cancellation requested for ${workflowId}`);
      });
    });
}
