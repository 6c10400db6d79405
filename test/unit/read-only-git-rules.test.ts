import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShellCommand } from '../../src/workflows/tools/shell-command-classifier';
import { optionForms, type ManualOptions } from './option-forms';

/**
 * Which git subcommands and options leave a call read-only (issue 27: mutation testing), one
 * subcommand at a time, through the classifier's public verdict. The lists are git's manuals
 * (git-diff, git-log, git-status, git-rev-parse, git-ls-files, git-blame, git-branch), written
 * here as the specification: an option dropped from read-only-git.ts fails its subcommand's test,
 * and each option that writes, runs a program or reads what the words do not name is refused
 * with its own reason. tools-classifier.test.ts shows the rules on everyday commands.
 */

const READ_ONLY = { readOnly: true, reason: 'every part is a known read-only command' };

function assertReadOnly(commands: readonly string[]): void {
  for (const command of commands) assert.deepEqual(classifyShellCommand(command), READ_ONLY, command);
}

function assertRefused(cases: ReadonlyArray<readonly [command: string, reason: string]>): void {
  for (const [command, reason] of cases)
    assert.deepEqual(classifyShellCommand(command), { readOnly: false, reason }, command);
}

/** git-diff's options that only choose what is compared and how it is shown (diff, log, show). */
const DIFF_OPTIONS: ManualOptions = {
  // -p/-u patch, -s no patch, -z NUL, -w -b whitespace, -R reverse, -a text, -W function context,
  // -D irreversible delete.
  flags: 'psuzwbRaWD',
  // -M[<n>] -C[<n>] -B[<n>] renames, copies, rewrites; -U<n> context; -S<string> -G<regex>
  // pickaxe; -l<num> rename limit.
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
};

/** git-log's own options (log and show take them with diff's), --format and --pretty apart. */
const LOG_OPTIONS: ManualOptions = {
  // -i -E -F -P regexp kinds, -c combined diff, -g walk reflogs, -m merges' diffs, -t trees, -r recurse.
  flags: 'icEFPgmtr',
  valued: 'n',
  longFlags: [
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
    ...['decorate', 'branches', 'tags', 'remotes', 'date', 'since', 'after'],
    ...['until', 'before', 'author', 'committer', 'grep', 'max-count', 'skip', 'notes', 'expand-tabs'],
    ...['encoding', 'max-parents', 'min-parents', 'exclude', 'decorate-refs', 'decorate-refs-exclude'],
    ...['ancestry-path', 'no-walk', 'since-as-filter'],
  ],
};

const WRITES = 'writes a file';
const RUNS = 'runs a configured program';

/** Options of diff (so of log and show too) that write, run a program or read outside the repository. */
function diffDangers(subcommand: string): Array<readonly [string, string]> {
  const git = `git ${subcommand}`;
  return [
    [`${git} --output=patch.txt`, `${git} --output ${WRITES}`],
    [`${git} --output patch.txt`, `${git} --output ${WRITES}`],
    [`${git} -p --outp=patch.txt`, `${git} --outp may abbreviate --output, which ${WRITES}`],
    [`${git} --o=patch.txt`, `${git} --o may abbreviate --output, which ${WRITES}`],
    [`${git} --ext-diff`, `${git} --ext-diff ${RUNS}`],
    [`${git} --ext`, `${git} --ext may abbreviate --ext-diff, which ${RUNS}`],
    [`${git} --textconv`, `${git} --textconv ${RUNS}`],
    // --text is an option of its own: one letter more is already textconv's prefix.
    [`${git} --textc`, `${git} --textc may abbreviate --textconv, which ${RUNS}`],
    [`${git} --no-index a.txt b.txt`, `${git} --no-index compares files outside the repository`],
    [
      `${git} --no-ind a.txt b.txt`,
      `${git} --no-ind may abbreviate --no-index, which compares files outside the repository`,
    ],
  ];
}

test('git diff: the manual’s flags alone and clustered, -M -C -B -U -S -G -l with a glued value, its long options, --cached --staged --merge-base stay read-only', () => {
  assertReadOnly(optionForms('git diff', DIFF_OPTIONS));
  assertReadOnly(optionForms('git diff', { longFlags: ['cached', 'staged', 'merge-base'] }));
  assertReadOnly(['git diff -pM50% --stat=80 HEAD~1 -- src', 'git diff --cached --name-only']);
});

test('git diff: --output writes a file, --ext-diff and --textconv run a configured program, --no-index compares files outside the repository: each refused with its reason, prefixes too', () => {
  assertRefused(diffDangers('diff'));
  // Whatever else the call holds.
  assertRefused([['git diff --stat --cached --output=x HEAD', `git diff --output ${WRITES}`]]);
});

test('git diff has no -NUM form and no -n, and git log’s own options are not diff’s', () => {
  assertRefused([
    ['git diff -5', 'git diff -5 is not a known read-only option'],
    ['git diff -n 5', 'git diff -n is not a known read-only option'],
    ['git diff --oneline', 'git diff --oneline is not a known read-only option'],
    ['git diff --show-signature', 'git diff --show-signature is not a known read-only option'],
  ]);
});

test('a glued-only value given as the next word is checked as an argument of its own (git -S --output=x still writes)', () => {
  assertRefused([
    ['git diff -S --output=x', `git diff --output ${WRITES}`],
    ['git log -G --ext-diff', `git log --ext-diff ${RUNS}`],
    ['git log --author --output=x', `git log --output ${WRITES}`],
    ['git status -u --output=x', 'git status --output is not a known read-only option'],
  ]);
});

test('git log: diff’s options, its own flags alone and clustered, -n N glued and as the next word, -NUM, and its long options stay read-only', () => {
  assertReadOnly(optionForms('git log', DIFF_OPTIONS));
  assertReadOnly(optionForms('git log', LOG_OPTIONS));
  assertReadOnly(['git log -5', 'git log -20 -- src', 'git log -n 3', 'git log -n3', 'git log -pn 2']);
  assertReadOnly(['git log -psuzwbRaWDicEFPgmtr', 'git log --oneline --graph --decorate=short -n 20']);
  // --cached and --staged are diff's, not log's.
  assertRefused([['git log --cached', 'git log --cached is not a known read-only option']]);
});

test('git log: diff’s dangers, plus --show-signature runs gpg and --stdin reads revisions it does not name, prefixes too', () => {
  assertRefused(diffDangers('log'));
  assertRefused([
    ['git log --show-signature', 'git log --show-signature runs gpg'],
    ['git log --show-sig', 'git log --show-sig may abbreviate --show-signature, which runs gpg'],
    ['git log --stdin', 'git log --stdin reads revisions it does not name'],
    ['git log --std', 'git log --std may abbreviate --stdin, which reads revisions it does not name'],
  ]);
});

test('git show takes what git log takes and refuses what it refuses', () => {
  assertReadOnly(optionForms('git show', DIFF_OPTIONS));
  assertReadOnly(optionForms('git show', LOG_OPTIONS));
  assertReadOnly(['git show -3', 'git show --stat HEAD', 'git show HEAD@{1}', "git show --format='%h %s'"]);
  assertRefused(diffDangers('show'));
  assertRefused([
    ['git show --show-signature HEAD', 'git show --show-signature runs gpg'],
    ['git show --stdin', 'git show --stdin reads revisions it does not name'],
  ]);
});

/** The formats git builds in; any other name may be a pretty.<name> the repository configures. */
const BUILT_IN_FORMATS = [
  'oneline',
  'short',
  'medium',
  'full',
  'fuller',
  'reference',
  'email',
  'raw',
  'mboxrd',
];

test('--pretty and --format: each built-in format, format: and tformat: strings and any string with % stay read-only', () => {
  for (const subcommand of ['log', 'show']) {
    for (const option of ['pretty', 'format']) {
      assertReadOnly(BUILT_IN_FORMATS.map((name) => `git ${subcommand} --${option}=${name}`));
      assertReadOnly([
        `git ${subcommand} --${option}=format:plain`,
        `git ${subcommand} --${option}=tformat:plain`,
        `git ${subcommand} --${option}=%H`,
        `git ${subcommand} --${option}='%h %an %s'`,
      ]);
    }
    // Without a value: the default format.
    assertReadOnly([`git ${subcommand} --pretty`]);
  }
  // Other options' values are not formats, whatever they hold.
  assertReadOnly(['git log --grep=%G', 'git log --author=mine', 'git log --since=yesterday']);
});

test('--pretty and --format: another name may be a format the repository configures, and is refused with its name', () => {
  assertRefused([
    ['git log --pretty=mine', 'git --pretty=mine may name a format the repository configures'],
    ['git log --format=mine', 'git --format=mine may name a format the repository configures'],
    ['git show --pretty=mine HEAD', 'git --pretty=mine may name a format the repository configures'],
    // Only a format: or tformat: at the start makes a format string.
    [
      'git log --pretty=xformat:plain',
      'git --pretty=xformat:plain may name a format the repository configures',
    ],
    ['git log --pretty=formats', 'git --pretty=formats may name a format the repository configures'],
    // The first --pretty or --format that runs or may run something decides.
    [
      'git log --pretty=oneline --format=mine',
      'git --format=mine may name a format the repository configures',
    ],
  ]);
});

test('--pretty and --format: %G placeholders verify signatures (they run gpg), a modifier between % and G too', () => {
  const gpg = (option: string) => `git --${option} with %G runs gpg to verify signatures`;
  assertRefused([
    ['git log --format=%G?', gpg('format')],
    ['git log --pretty=%GS', gpg('pretty')],
    ["git log --pretty='format:%h %GK'", gpg('pretty')],
    ["git log --format='tformat:%+GS'", gpg('format')],
    ["git log --format='%-GS'", gpg('format')],
    ["git log --format='% G?'", gpg('format')],
    ['git show --format=%GG HEAD', gpg('format')],
    ['git log --oneline --pretty=%G?', gpg('pretty')],
  ]);
});

test('git status: -s -b -v -z alone and clustered, -u[mode] glued, and its long options stay read-only', () => {
  assertReadOnly(
    optionForms('git status', {
      flags: 'sbvz',
      gluedValue: 'u',
      longFlags: ['short', 'branch', 'show-stash', 'long', 'verbose', 'no-column', 'renames', 'no-renames'],
      longOptional: [
        ...['porcelain', 'untracked-files', 'ignored', 'ignore-submodules', 'column', 'find-renames'],
        ...['ahead-behind', 'no-ahead-behind'],
      ],
    }),
  );
  assertReadOnly(['git status -uno', 'git status --porcelain=v2 --untracked-files=all -- src']);
  assertRefused([['git status -5', 'git status -5 is not a known read-only option']]);
});

test('git rev-parse: -q and its long options stay read-only', () => {
  assertReadOnly(
    optionForms('git rev-parse', {
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
    }),
  );
  assertReadOnly(['git rev-parse --abbrev-ref HEAD', 'git rev-parse --verify -q HEAD~1']);
  // --git-path and --resolve-git-dir name paths git resolves itself: not listed.
  assertRefused([['git rev-parse --git-path x', 'git rev-parse --git-path is not a known read-only option']]);
});

test('git ls-files: its flags alone and clustered and its long options stay read-only', () => {
  assertReadOnly(
    optionForms('git ls-files', {
      flags: 'cdmoiskuztvf',
      longFlags: [
        ...['cached', 'deleted', 'modified', 'others', 'ignored', 'stage', 'unmerged', 'killed'],
        ...['full-name', 'exclude-standard', 'directory', 'no-empty-directory', 'error-unmatch', 'eol'],
        ...['deduplicate', 'sparse', 'recurse-submodules', 'debug'],
      ],
      longOptional: ['abbrev', 'exclude', 'exclude-from', 'exclude-per-directory', 'format'],
    }),
  );
  assertReadOnly(["git ls-files -mo --exclude-standard -- '*.ts'"]);
  // -X reads the patterns from a file: only the long form, whose value the path rule can see glued.
  assertRefused([['git ls-files -X list.txt', 'git ls-files -X is not a known read-only option']]);
});

test('git blame: its flags alone and clustered, -L -M -C with a glued value, and its long options stay read-only', () => {
  assertReadOnly(
    optionForms('git blame', {
      flags: 'bltpcsefnw',
      gluedValue: 'LMC',
      longFlags: [
        ...['root', 'show-stats', 'porcelain', 'line-porcelain', 'incremental', 'show-email'],
        ...['show-name', 'show-number', 'minimal', 'color-lines', 'color-by-age', 'progress'],
        'no-progress',
      ],
      longOptional: ['date', 'abbrev', 'encoding', 'since', 'ignore-rev', 'ignore-revs-file', 'contents'],
    }),
  );
  assertReadOnly(['git blame -L 10,20 src/index.ts', 'git blame -wL10,20 -- README.md']);
  // -S reads the revisions to walk from a file.
  assertRefused([['git blame -S revs.txt README.md', 'git blame -S is not a known read-only option']]);
});

test('git branch: only listing (-a -r -v -l, their long forms, --show-current); any operand is refused', () => {
  assertReadOnly(
    optionForms('git branch', {
      flags: 'arvl',
      longFlags: ['all', 'remotes', 'verbose', 'list', 'show-current', 'no-color', 'no-abbrev'],
    }),
  );
  assertReadOnly(['git branch', 'git branch -vv', 'git branch --']);
  const operands = 'git branch with operands can create, rename or delete branches';
  assertRefused([
    ['git branch feature', operands],
    ['git branch -v feature', operands],
    ['git branch -- feature', operands],
    ['git branch --list feature', operands],
    ['git branch -d feature', 'git branch -d is not a known read-only option'],
    // --edit-description runs the editor.
    ['git branch --edit-description', 'git branch --edit-description is not a known read-only option'],
  ]);
});

test('git: only --no-pager and -P may come before the subcommand, any number of times; any other option is refused by name', () => {
  assertReadOnly(['git --no-pager status', 'git -P log -1', 'git --no-pager -P --no-pager branch']);
  const before = (option: string) =>
    `git option ${option} before the subcommand can change what git reads or runs`;
  assertRefused([
    ['git -c core.pager=sh log', before('-c')],
    ['git --no-pager -C src status', before('-C')],
    ['git -P --git-dir=x log', before('--git-dir=x')],
    ['git --exec-path=. status', before('--exec-path=.')],
    ['git -p log', before('-p')],
    ['git --paginate log', before('--paginate')],
  ]);
});

test('git: a subcommand is needed, and only the seven listed ones are read-only', () => {
  assertRefused([
    ['git', 'git without a subcommand'],
    ['git --no-pager', 'git without a subcommand'],
    ['git -P -P', 'git without a subcommand'],
    ['git push', 'git push is not a known read-only git command'],
    ['git --no-pager commit -m x', 'git commit is not a known read-only git command'],
    ['git stauts', 'git stauts is not a known read-only git command'],
    ['git help log', 'git help is not a known read-only git command'],
    // Names Object.prototype has are not subcommands.
    ['git constructor', 'git constructor is not a known read-only git command'],
    ['git toString', 'git toString is not a known read-only git command'],
    ['git __proto__', 'git __proto__ is not a known read-only git command'],
  ]);
  assertReadOnly([
    'git status',
    'git log',
    'git show',
    'git diff',
    'git rev-parse HEAD',
    'git ls-files',
    'git blame x',
  ]);
});

test('git: a word or -n value that starts with a glob may expand to option-like file names and is refused; after -- it is a path', () => {
  assertRefused([
    ['git diff *', '* may expand to file names that git diff reads as options'],
    ['git log -n *', '* may expand to file names that git log reads as options'],
  ]);
  assertReadOnly(['git log -- *']);
});
