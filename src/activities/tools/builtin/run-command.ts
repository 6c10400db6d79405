import { HYPOTHESIS_RECOMMENDED } from '../../../workflows/tools/hypothesis-field';
import { classifyShellCommand } from '../../../workflows/tools/shell-command-classifier';
import { shorten } from '../../../workflows/tools/suggest-call';
import { defineTool } from '../define-tool';
import { runCommand } from '../run-command';
import { runCommandInputSchema } from './run-command-input';

export * from './run-command-input';

/**
 * The built-in run_command tool. Its tier is decided per call from the command's text: simple
 * inspection commands are read-only, anything else irreversible (see shell-command-classifier).
 */
export const runCommandTool = defineTool({
  name: 'run_command',
  description: [
    'Run a shell command in the workspace and return its exit code, stdout and stderr (long output keeps its head and tail).',
    'The environment holds no credentials. Files the command creates, modifies or deletes are reported.',
    'Only simple inspection commands (ls, cat, grep, find, git status/log/diff, …) count as read-only; anything else is treated as irreversible and may need approval.',
    HYPOTHESIS_RECOMMENDED,
  ].join(' '),
  input: runCommandInputSchema,
  reversibility: (input, { network }) => {
    // With network allowed a command can send anything anywhere: every call needs approval.
    if (network) return { tier: 'irreversible', reason: 'the goal allows network access' };
    const classified = classifyShellCommand(input.command);
    return { tier: classified.reversibility, reason: classified.reason };
  },
  summarize: (input) => `run_command: ${shorten(input.command, 100)}`,
  execute: runCommand,
});
