import { Reversibility } from './reversibility';

/**
 * Decides from the text of a shell command alone whether it only reads. Conservative by design:
 * a command counts as read-only only when every part of it is a known inspection command with
 * no argument that writes, deletes or executes something else; anything unknown, any output
 * redirection to a file, any command substitution or subshell makes it irreversible. A wrong
 * "irreversible" costs an approval; a wrong "read-only" could run a deletion unapproved.
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
    const reason = whyNotReadOnly(words);
    if (reason !== undefined) return irreversible(reason);
  }
  return { reversibility: Reversibility.ReadOnly, reason: 'every part is a known read-only command' };
}

function irreversible(reason: string): ShellCommandClassification {
  return { reversibility: Reversibility.Irreversible, reason };
}

type SplitResult = { ok: true; commands: string[][] } | { ok: false; reason: string };

/** Output redirections that cannot write a file: fd duplication (2>&1, >&-) and /dev/null. */
const HARMLESS_REDIRECTION = /^(?:&\d+|&-|>?[ \t]*\/dev\/null(?=$|[\s;|&]))/;

/**
 * Splits on ; newline | || && into simple commands of unquoted words, following sh quoting.
 * Fails (not read-only) on anything whose effect it cannot see from the words.
 */
function splitSimpleCommands(command: string): SplitResult {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false; // distinguishes an empty quoted word ('') from no word at all
  let skipNextWord = false; // the word after `<` is a file to read, not an argument
  let quote: "'" | '"' | undefined;
  const endWord = (): void => {
    if (inWord && !skipNextWord) words.push(word);
    if (inWord) skipNextWord = false;
    word = '';
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
    skipNextWord = false;
  };
  const fail = (reason: string): SplitResult => ({ ok: false, reason });

  for (let index = 0; index < command.length; index += 1) {
    const char = command.charAt(index);
    const next = command.charAt(index + 1);
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
      continue;
    }
    // Substitutions run another command, even inside double quotes.
    if (char === '`') return fail('command substitution (backticks) runs another command');
    if (char === '$' && next === '(') return fail('command substitution $(…) runs another command');
    if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && '$`"\\\n'.includes(next) && next !== '') {
        word += next;
        index += 1;
      } else word += char;
      continue;
    }
    switch (char) {
      case '\\':
        if (next === '') return fail('the command ends with a backslash');
        word += next;
        inWord = true;
        index += 1;
        break;
      case "'":
      case '"':
        quote = char;
        inWord = true;
        break;
      case ' ':
      case '\t':
        endWord();
        break;
      case '\n':
      case ';':
        endCommand();
        break;
      case '|':
        if (next === '&') return fail('|& is not plain sh');
        if (next === '|') index += 1;
        endCommand();
        break;
      case '&':
        if (next !== '&') return fail('& runs a background job (or redirects output)');
        index += 1;
        endCommand();
        break;
      case '(':
      case ')':
        return fail('subshells are not classified');
      case '>': {
        // A digit word glued to `>` is a file descriptor number, not an argument.
        if (inWord && /^\d+$/.test(word)) {
          word = '';
          inWord = false;
        } else endWord();
        const harmless = HARMLESS_REDIRECTION.exec(command.slice(index + 1));
        if (harmless === null) return fail('output redirection (>) can write files');
        index += harmless[0].length;
        break;
      }
      case '<':
        if (next === '(' || next === '>') return fail('process substitution or <> can write or execute');
        if (inWord && /^\d+$/.test(word)) {
          word = '';
          inWord = false;
        } else endWord();
        if (next === '<') index += 1;
        skipNextWord = true;
        break;
      default:
        word += char;
        inWord = true;
    }
  }
  if (quote !== undefined) return fail('unbalanced quotes');
  endCommand();
  return { ok: true, commands };
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

function whyNotReadOnly(words: readonly string[]): string | undefined {
  const [name, ...args] = words;
  if (name === undefined) return undefined;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(name)) return 'a leading variable assignment can change what runs';
  // Own properties only: a command named "constructor" must not find Object.prototype's.
  const rule = Object.hasOwn(READ_ONLY_COMMANDS, name) ? READ_ONLY_COMMANDS[name] : undefined;
  if (rule === undefined) return `"${name}" is not a known read-only command`;
  return rule(args);
}
