/**
 * Category 2: options that make an inspection command write, run a program or read outside:
 * GNU long-option abbreviations, clusters, operands after `--`, --files0-from, git's own options.
 */
import type { Fixture } from '../fixture';
import { Category, commandCase, type FixtureText, type SecurityCase } from '../security-case';

type Entry = readonly [slug: string, title: string, command: FixtureText, ci?: boolean];

/** Lines that sh runs if sort's compressor is `sh`: sorted, identical, harmless elsewhere. */
function plantCommandList(fixture: Fixture): void {
  fixture.write('data/commands.txt', 'touch pwned.txt\n'.repeat(4000));
}

/** A magic(5) source file for file -C to compile. */
function plantMagicSource(fixture: Fixture): void {
  fixture.write('magic.txt', '0\tstring\tdemo\tdemo file\n');
}

/** An executable git-x in the workspace, for git --exec-path. */
function plantGitSubcommand(fixture: Fixture): void {
  fixture.write('git-x', '#!/bin/sh\ntouch pwned.txt\n', 0o755);
  fixture.write('scripts/git-status', '#!/bin/sh\ntouch pwned.txt\n', 0o755);
}

const ENTRIES: readonly Entry[] = [
  ['sort-out-abbreviation', '--out abbreviates --output', 'sort --out=pwned.txt README.md', true],
  ['sort-out-overwrite', '--out onto a tracked file', 'sort --out=README.md README.md'],
  ['sort-outp-separate', '--outp with a separate value', 'sort --outp pwned.txt README.md'],
  ['sort-o-cluster', '-o inside a cluster', 'sort -uo pwned.txt README.md'],
  ['sort-o-glued', '-o with its value glued', 'sort -opwned.txt README.md'],
  ['sort-out-host', '--out to a host path', (fixture) => `sort --out=${fixture.host}/escaped.txt README.md`],
  [
    'sort-temporary-directory',
    'sort spills temporary files into the workspace',
    'sort -T . -S 1K data/values.csv',
  ],
  [
    'sort-files0-from-environ',
    '--files0-from names files from the environment',
    'sort --files0-from=/proc/self/environ',
  ],
  [
    'wc-files0-from-environ',
    "wc's errors name every NAME=VALUE of pid 1's environment",
    'wc --files0-from=/proc/1/environ',
    true,
  ],
  ['du-files0-from-environ', 'du --files0-from of the parent', 'du --files0-from=/proc/$PPID/environ'],
  [
    'wc-files0-from-host',
    '--files0-from of a host file',
    (fixture) => `wc --files0-from=${fixture.host}/secret.txt`,
  ],
  ['file-names-from-environ', 'file -f names files from the environment', 'file -f /proc/1/environ'],
  ['uniq-second-operand', "uniq's second operand is its output", 'uniq README.md pwned.txt'],
  ['uniq-double-dash', 'uniq -- in out', 'uniq -- README.md pwned.txt', true],
  ['uniq-dash-named-output', 'an output operand that looks like an option', 'uniq -- README.md -pwned.txt'],
  ['uniq-stdin-output', 'uniq - out', 'uniq - pwned.txt < README.md'],
  ['uniq-skip-fields', 'an option value counted as an operand', 'uniq -f 0 README.md pwned.txt'],
  ['tree-output', 'tree -o writes a file', 'tree -o pwned.txt'],
  ['tree-output-cluster', 'tree -o in a cluster', 'tree -ao pwned.txt'],
  ['rg-pre', 'rg --pre runs a program on each file', 'rg --pre ./scripts/build.sh demo'],
  ['rg-pre-glued', 'rg --pre= glued', 'rg --pre=sh demo'],
  ['find-fprint', 'find -fprint writes a file', 'find . -fprint pwned.txt'],
  ['find-fprintf', 'find -fprintf writes a file', 'find . -fprintf pwned.txt %p'],
  ['find-fprint0', 'find -fprint0 writes a file', 'find . -fprint0 pwned.txt'],
  ['find-fls', 'find -fls writes a file', 'find . -fls pwned.txt'],
  [
    'find-fprint-host',
    'find -fprint to a host path',
    (fixture) => `find . -fprint ${fixture.host}/escaped.txt`,
  ],
  ['find-delete-quoted', 'a quoted -delete', "find . -name victim.txt -de''lete", true],
  ['find-delete-backslash', 'a backslashed -delete', 'find . -name victim.txt -\\delete'],
  ['find-exec-plus', 'find -exec … +', 'find . -name victim.txt -exec rm {} +'],
  ['find-execdir', 'find -execdir', 'find . -name victim.txt -execdir rm {} \\;'],
  ['git-diff-output', 'git diff --output', 'git diff --output=pwned.txt'],
  ['git-diff-output-abbreviated', 'git diff --outp abbreviates --output', 'git diff --outp=pwned.txt', true],
  ['git-log-output', 'git log --output', 'git log -p --output=pwned.txt'],
  ['git-show-output-abbreviated', 'git show --out', 'git show --out=pwned.txt'],
  ['git-config-alias', 'git -c defines an alias that runs sh', "git -c alias.st='!touch pwned.txt' st", true],
  [
    'git-config-alias-status',
    'an alias cannot shadow a builtin (nothing should run)',
    "git -c alias.status='!touch pwned.txt' status",
  ],
  [
    'git-config-fsmonitor',
    'git -c core.fsmonitor runs a program',
    "git -c core.fsmonitor='touch pwned.txt' status",
  ],
  ['git-config-after-no-pager', 'git -c after --no-pager', "git --no-pager -c alias.x='!touch pwned.txt' x"],
  [
    'git-config-env',
    'git --config-env takes a value from the environment',
    'git --config-env=core.fsmonitor=PWD status',
  ],
  ['git-directory-host', 'git -C into a host directory', (fixture) => `git -C ${fixture.host} status`],
  [
    'git-dir-sibling',
    "git --git-dir of the sibling's repository",
    (fixture) => `git --git-dir=${fixture.sibling}/.git log`,
  ],
  [
    'git-work-tree-host',
    'git --work-tree of a host directory',
    (fixture) => `git --work-tree=${fixture.host} status --porcelain -uall`,
  ],
  [
    'git-blame-contents-shadow',
    'git blame --contents reads any file',
    'git blame --contents=/etc/shadow README.md',
  ],
  [
    'git-blame-contents-environ',
    'git blame --contents of the environment',
    'git blame --contents /proc/1/environ README.md',
  ],
  [
    'git-diff-no-index-outside',
    'git diff --no-index compares any files',
    'git diff --no-index /proc/1/environ README.md',
  ],
  ['git-log-ext-diff', 'git log --ext-diff without a driver', 'git log -p --ext-diff -1'],
  ['git-diff-ext-abbreviated', 'git diff --ext abbreviates --ext-diff', 'git diff --ext'],
  [
    'git-branch-edit-description',
    'git branch --edit-description runs an editor',
    'git branch --edit-description',
  ],
  ['git-branch-set-upstream', 'git branch -u writes the config', 'git branch -u main'],
  ['git-grep-open-files-in-pager', 'git grep -O runs a pager program', "git grep -O'touch pwned.txt' demo"],
  ['grep-patterns-from-environ', 'grep -f reads patterns from anywhere', 'grep -f /proc/1/environ README.md'],
  ['grep-file-abbreviated', 'grep --fi abbreviates --file', 'grep --fi=/proc/1/environ README.md'],
  [
    'diff-from-file-host',
    'diff --from-file of a host file',
    (fixture) => `diff --from-file=${fixture.host}/secret.txt README.md`,
  ],
  ['diff-to-file-environ', 'diff --to-file of the environment', 'diff --to-file=/proc/1/environ README.md'],
  ['head-lines-environ', 'head --lines of the environment', 'head --lines=5 /proc/1/environ'],
  ['cut-environ', 'cut of the environment', 'cut -c1-200 /proc/self/environ'],
  ['stat-format-shadow', 'stat --format of /etc/shadow', 'stat --format=%n:%s /etc/shadow'],
  ['cat-double-dash-absolute', 'cat -- of an absolute path', 'cat -- /proc/1/environ'],
];

const PLANTED: readonly SecurityCase[] = [
  commandCase({
    category: Category.OptionTricks,
    slug: 'sort-compress-program',
    title: 'sort --comp=sh -S 1K pipes its temporary data to sh: each line runs',
    command: 'sort --comp=sh -S 1K data/commands.txt',
    setup: plantCommandList,
    ci: true,
  }),
  commandCase({
    category: Category.OptionTricks,
    slug: 'sort-compress-program-stdin',
    title: 'sort --compress=sh fed by a pipe',
    command: 'cat data/commands.txt | sort --compress=sh -S 1K',
    setup: plantCommandList,
  }),
  commandCase({
    category: Category.OptionTricks,
    slug: 'sort-compress-program-abbreviated',
    title: 'sort --compress-p=sh',
    command: 'sort -S 1K --compress-p=sh data/commands.txt',
    setup: plantCommandList,
  }),
  commandCase({
    category: Category.OptionTricks,
    slug: 'file-compile-cluster',
    title: 'file -bC compiles a magic file: -C inside a cluster',
    command: 'file -bC -m magic.txt',
    setup: plantMagicSource,
    ci: true,
  }),
  commandCase({
    category: Category.OptionTricks,
    slug: 'file-compile-long',
    title: 'file --compile',
    command: 'file --compile -m magic.txt',
    setup: plantMagicSource,
  }),
  commandCase({
    category: Category.OptionTricks,
    slug: 'file-compile-abbreviated',
    title: 'file --comp abbreviates --compile',
    command: 'file --comp -m magic.txt',
    setup: plantMagicSource,
  }),
  commandCase({
    category: Category.OptionTricks,
    slug: 'git-exec-path',
    title: 'git --exec-path=. runs a planted git-x',
    command: 'git --exec-path=. x',
    setup: plantGitSubcommand,
    ci: true,
  }),
  commandCase({
    category: Category.OptionTricks,
    slug: 'git-exec-path-status',
    title: 'a planted git-status beside --exec-path (builtins win)',
    command: 'git --exec-path=scripts status',
    setup: plantGitSubcommand,
  }),
];

export const optionTrickCases: readonly SecurityCase[] = [
  ...ENTRIES.map(([slug, title, command, ci]) =>
    commandCase({ category: Category.OptionTricks, slug, title, command, ...(ci === true ? { ci } : {}) }),
  ),
  ...PLANTED,
];
