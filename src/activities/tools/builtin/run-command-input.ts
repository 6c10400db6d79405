import { z } from 'zod';
import { hypothesisField } from '../../../workflows/tools/hypothesis-field';

export const RUN_COMMAND_DEFAULT_TIMEOUT_SECONDS = 60;
export const RUN_COMMAND_MAX_TIMEOUT_SECONDS = 600;

export const runCommandInputSchema = z.object({
  command: z
    .string()
    .min(1)
    .describe('Shell command, run with /bin/sh -c in the workspace root, e.g. "ls -la src | head -50".'),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(RUN_COMMAND_MAX_TIMEOUT_SECONDS)
    .optional()
    .describe(
      `Kill the command (and everything it started) after this many seconds. Default ${RUN_COMMAND_DEFAULT_TIMEOUT_SECONDS}, at most ${RUN_COMMAND_MAX_TIMEOUT_SECONDS}.`,
    ),
  changesFiles: z
    .boolean()
    .optional()
    .describe(
      'Set true when the command creates, changes or deletes files. A command judged read-only otherwise runs on a read-only workspace, where any write fails.',
    ),
  hypothesis: hypothesisField,
});
export type RunCommandInput = z.infer<typeof runCommandInputSchema>;
