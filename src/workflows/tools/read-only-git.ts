import { parseArguments, type OptionSpec, type ParsedOptions } from './option-parser';
import type { ShellWord } from './shell-words';

/**
 * git's read-only subcommands and the options they may take. git's option parser accepts unique
 * prefixes of long options too (`git diff --outp=x` is `--output=x`), so names are exact. Values
 * are only taken glued (`-n5`, `--author=x`) except `-n`: a value given as the next word is then
 * checked as an argument of its own. Global options before the subcommand (-c, -C, --git-dir,
 * --exec-path, --config-env, …) change which repository, configuration or programs git uses.
 *
 * What the words cannot show: the repository's own configuration can make these commands run
 * programs (core.fsmonitor for status, diff.external and textconv drivers for diff, log -p and
 * show, gpg.program with log.showSignature). The kernel's read-only mount is what holds there.
 */

const WRITES = 'writes a file';
const RUNS = 'runs a configured program';

// `satisfies`, not a type annotation: log's and diff's options extend its lists, known to be there.
const DIFF = {
  flags: 'psuzwbRaWD',
  gluedValue: 'MCBUSGl',
  longFlags: [
    ...['patch', 'no-patch', 'raw', 'patch-with-raw', 'patch-with-stat', 'numstat', 'shortstat'],
    ...['compact-summary', 'summary', 'name-only', 'name-status', 'full-index', 'binary', 'minimal'],
    ...['patience', 'histogram', 'no-renames', 'find-copies-harder', 'irreversible-delete', 'text'],
    ...['ignore-cr-at-eol', 'ignore-space-at-eol', 'ignore-space-change', 'ignore-all-space'],
    ...['ignore-blank-lines', 'function-context', 'exit-code', 'quiet', 'no-ext-diff', 'no-textconv'],
    ...['no-prefix', 'default-prefix', 'no-color', 'no-color-moved', 'no-relative', 'check'],
    ...['indent-heuristic', 'no-indent-heuristic', 'pickaxe-all', 'pickaxe-regex', 'cumulative'],
  ],
  longOptional: [
    ...['stat', 'dirstat', 'abbrev', 'find-renames', 'find-copies', 'break-rewrites', 'color'],
    ...['color-words', 'color-moved', 'word-diff', 'word-diff-regex', 'src-prefix', 'dst-prefix'],
    ...['line-prefix', 'relative', 'unified', 'inter-hunk-context', 'diff-algorithm', 'diff-filter'],
    ...['ignore-submodules', 'submodule', 'stat-width', 'stat-name-width', 'stat-count'],
    ...['stat-graph-width', 'ws-error-highlight', 'anchored'],
  ],
  dangerous: {
    output: WRITES,
    'ext-diff': RUNS,
    textconv: RUNS,
    'no-index': 'compares files outside the repository',
  },
} satisfies OptionSpec;

const LOG: OptionSpec = {
  ...DIFF,
  flags: `${DIFF.flags}icEFPgmtr`,
  valued: 'n',
  numberOption: true,
  longFlags: [
    ...DIFF.longFlags,
    ...['oneline', 'graph', 'no-decorate', 'all', 'first-parent', 'merges', 'no-merges', 'reverse'],
    ...['topo-order', 'date-order', 'author-date-order', 'abbrev-commit', 'no-abbrev-commit'],
    ...['relative-date', 'all-match', 'invert-grep', 'regexp-ignore-case', 'extended-regexp'],
    ...['fixed-strings', 'perl-regexp', 'basic-regexp', 'follow', 'left-right', 'cherry-pick'],
    ...['cherry-mark', 'cherry', 'boundary', 'full-history', 'simplify-by-decoration', 'source'],
    ...['use-mailmap', 'mailmap', 'no-mailmap', 'full-diff', 'parents', 'children', 'no-notes'],
    ...['no-expand-tabs', 'log-size', 'walk-reflogs', 'dense', 'sparse', 'show-linear-break'],
    ...['clear-decorations', 'show-pulls', 'no-min-parents', 'no-max-parents', 'cc'],
  ],
  longOptional: [
    ...DIFF.longOptional,
    ...['decorate', 'branches', 'tags', 'remotes', 'format', 'pretty', 'date', 'since', 'after'],
    ...['until', 'before', 'author', 'committer', 'grep', 'max-count', 'skip', 'notes', 'expand-tabs'],
    ...['encoding', 'max-parents', 'min-parents', 'exclude', 'decorate-refs', 'decorate-refs-exclude'],
    ...['ancestry-path', 'no-walk', 'since-as-filter'],
  ],
  dangerous: { ...DIFF.dangerous, 'show-signature': 'runs gpg', stdin: 'reads revisions it does not name' },
};

/** Built-in --pretty formats; any other name may be a pretty.<name> alias from the repository. */
const PRETTY_NAMES = ['oneline', 'short', 'medium', 'full', 'fuller', 'reference', 'email', 'raw', 'mboxrd'];

/** %G placeholders verify signatures: they run gpg (or the repository's gpg.program). */
function whyFormatRuns(parsed: ParsedOptions): string | undefined {
  for (const { name, value } of parsed.options) {
    if ((name !== 'format' && name !== 'pretty') || value === undefined) continue;
    // %G?, %+GS, % GK …: a modifier may stand between % and G.
    if (/%[-+ ]?G/.test(value)) return `git --${name} with %G runs gpg to verify signatures`;
    if (!value.includes('%') && !PRETTY_NAMES.includes(value) && !/^t?format:/.test(value))
      return `git --${name}=${value} may name a format the repository configures`;
  }
  return undefined;
}

interface GitSubcommand {
  readonly options: OptionSpec;
  readonly check?: (parsed: ParsedOptions) => string | undefined;
}

const READ_ONLY_GIT: Readonly<Record<string, GitSubcommand>> = {
  status: {
    options: {
      flags: 'sbvz',
      gluedValue: 'u',
      longFlags: ['short', 'branch', 'show-stash', 'long', 'verbose', 'no-column', 'renames', 'no-renames'],
      longOptional: [
        ...['porcelain', 'untracked-files', 'ignored', 'ignore-submodules', 'column', 'find-renames'],
        ...['ahead-behind', 'no-ahead-behind'],
      ],
    },
  },
  log: { options: LOG, check: whyFormatRuns },
  show: { options: LOG, check: whyFormatRuns },
  diff: {
    options: { ...DIFF, longFlags: [...DIFF.longFlags, 'cached', 'staged', 'merge-base'] },
  },
  'rev-parse': {
    options: {
      flags: 'q',
      longFlags: [
        ...['verify', 'quiet', 'show-toplevel', 'show-prefix', 'show-cdup', 'git-dir', 'git-common-dir'],
        ...['absolute-git-dir', 'is-inside-work-tree', 'is-inside-git-dir', 'is-bare-repository'],
        ...['is-shallow-repository', 'symbolic', 'symbolic-full-name', 'all', 'revs-only', 'no-revs'],
        ...['flags', 'no-flags', 'not', 'sq', 'show-object-format', 'show-superproject-working-tree'],
      ],
      longOptional: [
        'short',
        'abbrev-ref',
        'branches',
        'tags',
        'remotes',
        'since',
        'after',
        'until',
        'before',
      ],
    },
  },
  'ls-files': {
    options: {
      flags: 'cdmoiskuztvf',
      longFlags: [
        ...['cached', 'deleted', 'modified', 'others', 'ignored', 'stage', 'unmerged', 'killed'],
        ...['full-name', 'exclude-standard', 'directory', 'no-empty-directory', 'error-unmatch', 'eol'],
        ...['deduplicate', 'sparse', 'recurse-submodules', 'debug'],
      ],
      longOptional: ['abbrev', 'exclude', 'exclude-from', 'exclude-per-directory', 'format'],
    },
  },
  blame: {
    options: {
      flags: 'bltpcsefnw',
      gluedValue: 'LMC',
      longFlags: [
        ...['root', 'show-stats', 'porcelain', 'line-porcelain', 'incremental', 'show-email'],
        ...['show-name', 'show-number', 'minimal', 'color-lines', 'color-by-age', 'progress'],
        'no-progress',
      ],
      longOptional: ['date', 'abbrev', 'encoding', 'since', 'ignore-rev', 'ignore-revs-file', 'contents'],
    },
  },
  // Listing only: any operand creates, renames or deletes a branch.
  branch: {
    options: {
      flags: 'arvl',
      longFlags: ['all', 'remotes', 'verbose', 'list', 'show-current', 'no-color', 'no-abbrev'],
    },
    check: (parsed) =>
      parsed.positionals.length === 0
        ? undefined
        : 'git branch with operands can create, rename or delete branches',
  },
};

/** Why `git ARGS` is not read-only, or undefined when it is. */
export function whyGitIsNotReadOnly(args: readonly ShellWord[]): string | undefined {
  let index = 0;
  // --no-pager and -P only turn the pager off; every other global option changes what git does.
  while (args[index]?.text === '--no-pager' || args[index]?.text === '-P') index += 1;
  const subcommand = args[index]?.text;
  if (subcommand === undefined) return 'git without a subcommand';
  if (subcommand.startsWith('-'))
    return `git option ${subcommand} before the subcommand can change what git reads or runs`;
  // Own properties only: a subcommand named "constructor" must not find Object.prototype's.
  const known = Object.hasOwn(READ_ONLY_GIT, subcommand) ? READ_ONLY_GIT[subcommand] : undefined;
  if (known === undefined) return `git ${subcommand} is not a known read-only git command`;
  const parsed = parseArguments(`git ${subcommand}`, args.slice(index + 1), known.options);
  if (!parsed.ok) return parsed.reason;
  return known.check?.(parsed);
}
