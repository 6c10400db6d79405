import { parseArguments, type OptionSpec } from './option-parser';
import { whyFindIsNotReadOnly } from './read-only-find';
import { whyGitIsNotReadOnly } from './read-only-git';
import { READ_ONLY_OPTIONS } from './read-only-options';
import { splitSimpleCommands, type ShellWord } from './shell-words';
import { whyOutsideWorkspace } from './workspace-path-rule';

/**
 * Decides from the text of a shell command alone whether it only reads. Conservative by design:
 * a command counts as read-only only when every part of it is a known inspection command given
 * only options known not to write, delete or execute something else (an allowlist per command);
 * anything unknown, any output redirection to a file, any command substitution or subshell, any
 * syntax dash and bash read differently makes it not read-only. The kernel enforces read-only
 * calls, so this is a hint for the tier and the label; still, a wrong "read-only" is a bug, while
 * a wrong "not read-only" only runs the call on a copy-on-write layer.
 * Reading is not harmless either (`cat /proc/$PPID/environ` leaks the worker's secrets), so every
 * word must also stay inside the workspace (see workspace-path-rule.ts).
 */
export interface ShellCommandClassification {
  readonly readOnly: boolean;
  /** Why, for the ledger: the first thing that made it not read-only, or why it is read-only. */
  readonly reason: string;
}

export function classifyShellCommand(command: string): ShellCommandClassification {
  const parsed = splitSimpleCommands(command);
  if (!parsed.ok) return notReadOnly(parsed.reason);
  if (parsed.commands.length === 0) return notReadOnly('the command is empty');
  for (const words of parsed.commands) {
    const reason = whyNotReadOnly(words) ?? whyNotConfined(words);
    if (reason !== undefined) return notReadOnly(reason);
  }
  return { readOnly: true, reason: 'every part is a known read-only command' };
}

function notReadOnly(reason: string): ShellCommandClassification {
  return { readOnly: false, reason };
}

/** Returns why the arguments are not read-only, or undefined when they are. */
type ArgumentRule = (args: readonly ShellWord[]) => string | undefined;

/** Builtins that only print their arguments. */
const anyArguments: ArgumentRule = () => undefined;

/** Parses with the program's option allowlist, then applies the check on its operands, if any. */
function withOptions(
  program: string,
  spec: OptionSpec,
  check?: (operands: readonly ShellWord[], args: readonly ShellWord[]) => string | undefined,
): ArgumentRule {
  return (args) => {
    const parsed = parseArguments(program, args, spec);
    if (!parsed.ok) return parsed.reason;
    return check?.(parsed.positionals, args);
  };
}

/**
 * uniq's second operand is its output file. With POSIXLY_CORRECT an option after the first
 * operand is an operand too (`uniq in -c` writes -c), so no word may follow the first operand.
 */
const uniq = withOptions('uniq', READ_ONLY_OPTIONS.uniq, (operands, args) => {
  const first = operands[0];
  return first !== undefined && args.indexOf(first) < args.length - 1
    ? 'uniq writes to its second operand (its output file)'
    : undefined;
});

/** cd without a directory goes to $HOME, `cd -` to $OLDPWD: both outside the workspace. */
const cd = withOptions('cd', READ_ONLY_OPTIONS.cd, (operands) =>
  operands.length !== 1 || operands[0]?.text === '-'
    ? 'cd without a directory (or cd -) leaves the workspace'
    : undefined,
);

const READ_ONLY_COMMANDS: Readonly<Record<string, ArgumentRule>> = {
  ...Object.fromEntries(
    Object.entries(READ_ONLY_OPTIONS).map(([program, spec]) => [program, withOptions(program, spec)]),
  ),
  // Rules on the operands too, or on their own grammar.
  uniq,
  cd,
  find: whyFindIsNotReadOnly,
  git: whyGitIsNotReadOnly,
  echo: anyArguments,
  true: anyArguments,
};

function whyNotReadOnly(words: readonly ShellWord[]): string | undefined {
  // The file after `<` is opened by the shell, not passed to the command.
  const [name, ...args] = words.filter((word) => word.redirectedInput !== true);
  if (name === undefined) return undefined;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(name.text)) return 'a leading variable assignment can change what runs';
  // Own properties only: a command named "constructor" must not find Object.prototype's.
  const rule = Object.hasOwn(READ_ONLY_COMMANDS, name.text) ? READ_ONLY_COMMANDS[name.text] : undefined;
  if (rule === undefined) return `"${name.text}" is not a known read-only command`;
  return rule(args);
}

/** Why a command may reach outside the workspace, or undefined when every word stays inside. */
function whyNotConfined(words: readonly ShellWord[]): string | undefined {
  for (const word of words) {
    const reason = whyOutsideWorkspace(word);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
