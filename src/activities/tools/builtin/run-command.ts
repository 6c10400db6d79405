import { HYPOTHESIS_RECOMMENDED } from '../../../workflows/tools/hypothesis-field';
import { classifyShellCommand } from '../../../workflows/tools/shell-command-classifier';
import { shorten } from '../../../workflows/tools/suggest-call';
import { defineTool } from '../define-tool';
import { runCommand } from '../run-command';
import {
  isNetworkIsolationUnavailable,
  networkIsolationUnavailableOutcome,
} from '../sandbox/network-isolation-outcome';
import { runCommandInputSchema } from './run-command-input';

export * from './run-command-input';

/**
 * The built-in run_command tool. Its tier is decided per call from the command's text, as a hint:
 * known inspection commands are read-only (and run on a read-only workspace), anything else
 * mutating (and runs on a copy-on-write layer whose changes keel checks before any reach the
 * workspace). What the kernel enforces is the tier; see run-command.ts and docs/approvals-and-security.md, Sandbox.
 */
export const runCommandTool = defineTool({
  name: 'run_command',
  description: [
    'Run a shell command in the workspace and return its exit code, stdout and stderr (long output keeps its head and tail).',
    'The environment holds no credentials. Files the command creates, modifies or deletes are reported.',
    'Simple inspection commands (ls, cat, grep, find, git status/log/diff, …) run on a read-only workspace. Anything else runs on a copy-on-write layer: creating and changing files is applied, while deleting or replacing existing files, or touching .git configuration or hooks, waits for an approver of irreversible calls.',
    HYPOTHESIS_RECOMMENDED,
  ].join(' '),
  input: runCommandInputSchema,
  reversibility: (input, { network, commands }) => {
    // With network allowed a command can send anything anywhere: every call needs approval.
    if (network) return { tier: 'irreversible', reason: 'the goal allows network access' };
    if (commands === 'none')
      return { tier: 'irreversible', reason: 'this worker has no sandbox to hold a command to a tier' };
    const classified = classifyShellCommand(input.command);
    if (classified.readOnly && input.changesFiles !== true)
      return { tier: 'read-only', reason: `${classified.reason}; it runs on a read-only workspace` };
    const why = input.changesFiles === true ? 'the call says it changes files' : classified.reason;
    if (commands !== 'layers')
      return {
        tier: 'irreversible',
        reason: `${why}, and this worker has no copy-on-write layer to hold it in`,
      };
    return {
      tier: 'mutating',
      reason: `${why}; it runs on a copy-on-write layer, and a change beyond a mutating call (a deletion, git's configuration) waits for an approver of irreversible calls`,
    };
  },
  summarize: (input) => `run_command: ${shorten(input.command, 100)}`,
  execute: async (input, context) => {
    try {
      return await runCommand(input, context);
    } catch (error) {
      // Thrown before anything starts: the model reads "not run", not a generic tool failure.
      if (isNetworkIsolationUnavailable(error)) return networkIsolationUnavailableOutcome(error);
      throw error;
    }
  },
});
