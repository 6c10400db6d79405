import { Option, type Command } from 'commander';
import type { Client } from '@temporalio/client';
import { goalHandle, submitReview } from './lazy-modules';
import { askGoal } from './ask-goal';
import { CliError } from './cli-error';

type WithClient = <T>(command: Command, action: (client: Client) => Promise<T>) => Promise<T>;

/**
 * `keel review <workflowId> --accept | --reject`: the human review a goal with
 * `reflection.review: human` waits for, sent as the `submitReview` Update (so a goal that is not
 * waiting refuses it at once). `keel pending` lists the goals that wait for one.
 */
export function registerReviewCommand(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('review')
    .description("accept or reject a goal's output when it waits for a human review")
    .argument('<workflowId>')
    .addOption(new Option('--accept', 'accept the output').conflicts('reject'))
    .addOption(new Option('--reject', 'reject the output (the goal ends as rejected)'))
    .option('--reviewer <name>', 'who reviews (default $USER, else the OS user)')
    .option('--notes <text>', 'why; kept with the review and in the ledger')
    .action(async (workflowId: string, options: ReviewOptions, command: Command) => {
      if (options.accept === options.reject) throw new CliError('say --accept or --reject');
      await withClient(command, async (client) => {
        const review = {
          accepted: options.accept === true,
          ...(options.reviewer === undefined ? {} : { reviewer: options.reviewer }),
          ...(options.notes === undefined ? {} : { notes: options.notes }),
        };
        const receipt = await askGoal(
          client,
          workflowId,
          () => submitReview(goalHandle(client, workflowId), review),
          {
            changes: 'the review',
          },
        );
        print(`${receipt.accepted ? 'accepted' : 'rejected'}: the output of ${workflowId}`);
      });
    });
}

interface ReviewOptions {
  accept?: boolean;
  reject?: boolean;
  reviewer?: string;
  notes?: string;
}
