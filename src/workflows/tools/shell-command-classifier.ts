import { Reversibility } from './reversibility';
import { splitSimpleCommands, type ShellWord } from './shell-words';
import { whyOutsideWorkspace } from './workspace-path-rule';

/**
 * Decides from the text of a shell command alone whether it only reads. Conservative by design:
 * a command counts as read-only only when every part of it is a known inspection command with
 * no argument that writes, deletes or executes something else; anything unknown, any output
 * redirection to a file, any command substitution or subshell makes it irreversible. A wrong
 * "irreversible" costs an approval; a wrong "read-only" could run a deletion unapproved.
 * Reading is not harmless either (`cat /proc/$PPID/environ` leaks the worker's secrets), so every
 * word must also stay inside the workspace (see workspace-path-rule.ts).
 */
export interface ShellCommandClassification {
  readonly reversibility: typeof Reversibility.ReadOnly | typeof Reversibility.Irreversible;
  /** Why, for the ledger: the first thing that made it irreversible, or why it is read-only. */
  readonly reason: string;
}

export function classifyShellCommand(command: string): ShellCommandClassification {
  const parsed = splitSimpleCommands(command);
  if (!parsed.ok) return irreversible(parsed.reason);
  if (parsed.commands.length === 0) return irreversible('the command is empty');
  for (const words of parsed.commands) {
    const reason = whyNotReadOnly(words) ?? whyNotConfined(words);
    if (reason !== undefined) return irreversible(reason);
  }
  return { reversibility: Reversibility.ReadOnly, reason: 'every part is a known read-only command' };
}

function irreversible(reason: string): ShellCommandClassification {
  return { reversibility: Reversibility.Irreversible, reason };
}

/** Returns why the arguments are not read-only, or undefined when they are. */
type ArgumentRule = (args: readonly string[]) => string | undefined;

const anyArguments: ArgumentRule = () => undefined;

const isShortOptionCluster = (argument: string): boolean => /^-[^-]/.test(argument);
const positionals = (args: readonly string[]): string[] =>
  args.filter((argument) => !argument.startsWith('-'));

const READ_ONLY_COMMANDS: Readonly<Record<string, ArgumentRule>> = {
  ls: anyArguments,
  cat: anyArguments,
  head: anyArguments,
  tail: anyArguments,
  wc: anyArguments,
  pwd: anyArguments,
  echo: anyArguments,
  cd: anyArguments,
  grep: anyArguments,
  egrep: anyArguments,
  fgrep: anyArguments,
  stat: anyArguments,
  du: anyArguments,
  df: anyArguments,
  which: anyArguments,
  cut: anyArguments,
  nl: anyArguments,
  diff: anyArguments,
  cmp: anyArguments,
  basename: anyArguments,
  dirname: anyArguments,
  realpath: anyArguments,
  readlink: anyArguments,
  sha256sum: anyArguments,
  md5sum: anyArguments,
  true: anyArguments,
  rg: (args) =>
    args.some((argument) => argument.startsWith('--pre')) ? 'rg --pre runs another program' : undefined,
  find: (args) => {
    const acting = args.find(
      (argument) =>
        ['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fls'].includes(argument) ||
        argument.startsWith('-fprint'),
    );
    return acting === undefined ? undefined : `find ${acting} deletes, writes or runs commands`;
  },
  file: (args) =>
    args.some((argument) => argument === '-C' || argument === '--compile')
      ? 'file -C writes files'
      : undefined,
  tree: (args) =>
    args.some((argument) => argument.startsWith('-o') || argument === '-R')
      ? 'tree -o/-R writes files'
      : undefined,
  sort: (args) =>
    args.some(
      (argument) =>
        argument.startsWith('--output') ||
        argument.startsWith('--compress-program') ||
        (isShortOptionCluster(argument) && argument.includes('o')),
    )
      ? 'sort -o writes a file'
      : undefined,
  // uniq's second file argument is an output file.
  uniq: (args) => (positionals(args).length > 1 ? 'uniq INPUT OUTPUT writes a file' : undefined),
  git: (args) => {
    let index = 0;
    while (args[index] === '--no-pager') index += 1;
    const subcommand = args[index];
    if (subcommand === undefined) return 'git without a subcommand';
    if (subcommand.startsWith('-'))
      return `git option ${subcommand} before the subcommand can change behaviour`;
    const rule = Object.hasOwn(READ_ONLY_GIT_SUBCOMMANDS, subcommand)
      ? READ_ONLY_GIT_SUBCOMMANDS[subcommand]
      : undefined;
    return rule === undefined
      ? `git ${subcommand} is not a known read-only git command`
      : rule(args.slice(index + 1));
  },
};

/** --output writes a file; --ext-diff runs a configured external program. */
const gitDiffLike: ArgumentRule = (args) =>
  args.some((argument) => argument.startsWith('--output') || argument === '--ext-diff')
    ? 'git --output/--ext-diff writes a file or runs a program'
    : undefined;

const GIT_BRANCH_LISTING_FLAGS = new Set([
  '-a',
  '-r',
  '-v',
  '-vv',
  '--all',
  '--remotes',
  '--verbose',
  '--list',
  '--show-current',
  '--no-color',
]);

const READ_ONLY_GIT_SUBCOMMANDS: Readonly<Record<string, ArgumentRule>> = {
  status: anyArguments,
  log: gitDiffLike,
  diff: gitDiffLike,
  show: gitDiffLike,
  'rev-parse': anyArguments,
  'ls-files': anyArguments,
  blame: anyArguments,
  // Any other argument to git branch creates, renames or deletes a branch.
  branch: (args) =>
    args.every((argument) => GIT_BRANCH_LISTING_FLAGS.has(argument))
      ? undefined
      : 'git branch with arguments can create, rename or delete branches',
};

function whyNotReadOnly(words: readonly ShellWord[]): string | undefined {
  // The file after `<` is opened by the shell, not passed to the command.
  const [name, ...args] = words.filter((word) => word.redirectedInput !== true).map((word) => word.text);
  if (name === undefined) return undefined;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(name)) return 'a leading variable assignment can change what runs';
  // Own properties only: a command named "constructor" must not find Object.prototype's.
  const rule = Object.hasOwn(READ_ONLY_COMMANDS, name) ? READ_ONLY_COMMANDS[name] : undefined;
  if (rule === undefined) return `"${name}" is not a known read-only command`;
  return rule(args);
}

/** Why a command may reach outside the workspace, or undefined when every word stays inside. */
function whyNotConfined(words: readonly ShellWord[]): string | undefined {
  const [name, ...args] = words;
  // cd with no directory goes to $HOME, cd - to $OLDPWD: both outside the workspace.
  if (name?.text === 'cd' && (args.length === 0 || args.some((word) => word.text === '-')))
    return 'cd without a directory (or cd -) leaves the workspace';
  for (const word of words) {
    const reason = whyOutsideWorkspace(word);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
