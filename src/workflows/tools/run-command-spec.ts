import { z } from 'zod';
import { HYPOTHESIS_RECOMMENDED, hypothesisField } from './hypothesis-field';
import { classifyShellCommand } from './shell-command-classifier';
import { shorten } from './suggest-call';
import type { ToolSpec } from './tool-spec';

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
  hypothesis: hypothesisField,
});
export type RunCommandInput = z.infer<typeof runCommandInputSchema>;

export const runCommandSpec: ToolSpec<RunCommandInput> = {
  name: 'run_command',
  description: [
    'Run a shell command in the workspace and return its exit code, stdout and stderr (long output keeps its head and tail).',
    'The environment holds no credentials. Files the command creates, modifies or deletes are reported.',
    'Only simple inspection commands (ls, cat, grep, find, git status/log/diff, …) count as read-only; anything else is treated as irreversible and may need approval.',
    HYPOTHESIS_RECOMMENDED,
  ].join(' '),
  inputSchema: runCommandInputSchema,
  reversibility: (input) => classifyShellCommand(input.command).reversibility,
  summarize: (input) => `run_command: ${shorten(input.command, 100)}`,
};
