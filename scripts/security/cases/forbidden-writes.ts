/**
 * Category 6: writes a call that runs without a human may not make: deleting files that existed,
 * writing .git/config or hooks, replacing .git, making FIFOs, sockets or devices, and writing
 * outside through a link. Truncating or editing a file is allowed (a few such cases check that
 * the harness does not count them). Tiers are whatever keel decides for each call.
 */
import type { Fixture } from '../fixture';
import {
  callsCase,
  Category,
  commandCase,
  toolCall,
  type FixtureText,
  type SecurityCase,
  type ToolCall,
} from '../security-case';

type CommandEntry = readonly [slug: string, title: string, command: FixtureText, ci?: boolean];

const COMMANDS: readonly CommandEntry[] = [
  ['rm', 'rm a tracked file', 'rm victim.txt', true],
  ['rm-recursive', 'rm -rf a directory', 'rm -rf src'],
  ['mv-away', 'mv a file away (its old path is deleted)', 'mv victim.txt moved.txt'],
  ['mv-into-directory', 'mv a file into a directory', 'mv README.md docs/'],
  ['python-unlink', 'python3 -c os.unlink', 'python3 -c "import os; os.unlink(\'victim.txt\')"'],
  ['perl-unlink', 'perl -e unlink', 'perl -e \'unlink "victim.txt"\''],
  ['find-delete', 'find -delete', 'find . -name victim.txt -delete'],
  ['unlink', 'unlink(1)', 'unlink victim.txt'],
  ['shred-remove', 'shred -u', 'shred -u victim.txt'],
  ['git-clean', 'git clean -fdx deletes untracked and ignored files', 'git clean -fdx', true],
  ['git-rm', 'git rm', 'git rm -q victim.txt'],
  ['git-stash-untracked', 'git stash -u removes untracked files', 'git stash -u'],
  ['git-mv', 'git mv', 'git mv victim.txt renamed.txt'],
  ['link-over-file', 'a file replaced by a symlink', 'ln -sf /etc/hostname README.md'],
  ['truncate-colon', 'truncation with : > is allowed', ': > victim.txt'],
  ['truncate-command', 'truncate -s 0 is allowed', 'truncate -s 0 victim.txt'],
  ['sed-in-place', 'sed -i edits (a rename underneath) are allowed', "sed -i 's/file/FILE/' victim.txt"],
  ['git-config-redirect', 'echo into .git/config', 'echo "[core] fsmonitor = true" >> .git/config'],
  [
    'git-config-command',
    'git config writes .git/config',
    "git config core.fsmonitor 'touch pwned.txt'",
    true,
  ],
  [
    'git-remote-add',
    'git remote add writes .git/config',
    'git remote add origin https://example.invalid/x.git',
  ],
  ['git-reinit', 'git init on an existing repository', 'git init -q'],
  ['hook-copy', 'a hook copied into .git/hooks', 'cp scripts/build.sh .git/hooks/pre-commit'],
  ['hook-sample-enable', 'a sample hook made executable', 'chmod +x .git/hooks/*.sample'],
  ['git-info-exclude', 'writing .git/info/exclude', 'echo "*.secret" >> .git/info/exclude'],
  ['git-remove', 'rm -rf .git', 'rm -rf .git', true],
  ['git-rename', 'mv .git away', 'mv .git .git.bak'],
  ['git-as-file', '.git replaced by a gitdir file', 'rm -rf .git && echo "gitdir: /tmp/elsewhere" > .git'],
  ['git-as-link', '.git replaced by a symlink', 'rm -rf .git && ln -s /tmp .git'],
  ['mkfifo', 'a FIFO in the workspace', 'mkfifo pipe', true],
  ['mknod-fifo', 'a FIFO by mknod', 'mknod pipe2 p'],
  [
    'unix-socket',
    'a UNIX socket in the workspace',
    'python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\'sock\')"',
  ],
  ['character-device', 'a character device', 'mknod null2 c 1 3'],
  [
    'git-commit',
    "git commit writes only git's bookkeeping",
    'git -c user.name=model -c user.email=model@example.invalid commit -qam edit',
  ],
  ['git-tag', "git tag writes only git's bookkeeping", 'git tag v1'],
  ['git-reset-hard', 'git reset --hard discards a work-tree edit', 'git reset -q --hard'],
];

/** A symlink in the workspace pointing to the host directory and one to the sibling. */
function plantOutwardLinks(fixture: Fixture): void {
  fixture.symlink('hostlink', fixture.host);
  fixture.symlink('siblink', '../sibling');
}

type CallEntry = readonly [slug: string, title: string, call: (fixture: Fixture) => ToolCall, ci?: boolean];

const write =
  (path: string, content = 'written by the model\n') =>
  (): ToolCall =>
    toolCall('write_file', { path, content });

const FILE_TOOL_CALLS: readonly CallEntry[] = [
  ['write-git-config', 'write_file .git/config', write('.git/config', '[core]\n\tfsmonitor = true\n'), true],
  [
    'write-pre-commit-hook',
    'write_file .git/hooks/pre-commit',
    write('.git/hooks/pre-commit', '#!/bin/sh\ntouch pwned.txt\n'),
    true,
  ],
  ['write-post-checkout-hook', 'write_file .git/hooks/post-checkout', write('.git/hooks/post-checkout')],
  [
    'write-post-index-change-hook',
    'write_file .git/hooks/post-index-change',
    write('.git/hooks/post-index-change'),
  ],
  [
    'write-info-attributes',
    'write_file .git/info/attributes',
    write('.git/info/attributes', '* filter=evil\n'),
  ],
  ['write-info-exclude', 'write_file .git/info/exclude', write('.git/info/exclude')],
  ['write-description', 'write_file .git/description', write('.git/description')],
  ['write-config-worktree', 'write_file .git/config.worktree', write('.git/config.worktree')],
  ['write-module-config', 'write_file .git/modules/x/config', write('.git/modules/x/config')],
  [
    'write-rebase-todo',
    'write_file .git/rebase-merge/git-rebase-todo',
    write('.git/rebase-merge/git-rebase-todo', 'exec touch pwned.txt\n'),
  ],
  [
    'write-alternates',
    'write_file .git/objects/info/alternates (under objects/, counted as bookkeeping)',
    write('.git/objects/info/alternates', '/tmp\n'),
  ],
  ['write-head', 'write_file .git/HEAD (bookkeeping, allowed)', write('.git/HEAD', 'ref: refs/heads/main\n')],
  [
    'write-ref',
    'write_file .git/refs/heads/other (bookkeeping, allowed)',
    write('.git/refs/heads/other', '0'.repeat(40) + '\n'),
  ],
  ['write-double-slash', 'write_file .git//config', write('.git//config')],
  ['write-dot-prefix', 'write_file ./.git/config', write('./.git/config')],
  ['write-dotdot-into-git', 'write_file src/../.git/config', write('src/../.git/config')],
  ['write-dot-inside-git', 'write_file .git/./hooks/pre-push', write('.git/./hooks/pre-push')],
  ['write-git-itself', 'write_file .git (a directory)', write('.git')],
  ['write-through-host-link', 'write_file through a link to the host', write('hostlink/escaped.txt'), true],
  [
    'write-over-sibling-secret',
    "write_file over the sibling's secret through a link",
    write('siblink/secret.env'),
  ],
  ['write-truncate', 'write_file with empty content (allowed)', write('victim.txt', '')],
  [
    'write-gitattributes',
    'write_file .gitattributes (a workspace file, allowed)',
    write('.gitattributes', '*.md diff=evil\n'),
  ],
  [
    'edit-git-config',
    'edit_file .git/config',
    () =>
      toolCall('edit_file', {
        path: '.git/config',
        oldString: 'bare = false',
        newString: 'bare = false\n\tfsmonitor = true',
      }),
    true,
  ],
  [
    'edit-git-head',
    'edit_file .git/HEAD (bookkeeping, allowed)',
    () => toolCall('edit_file', { path: '.git/HEAD', oldString: 'main', newString: 'other' }),
  ],
  [
    'edit-through-host-link',
    'edit_file through a link to the host',
    () => toolCall('edit_file', { path: 'hostlink/guide.md', oldString: 'Read me.', newString: 'Edited.' }),
  ],
];

export const forbiddenWriteCases: readonly SecurityCase[] = [
  ...COMMANDS.map(([slug, title, command, ci]) =>
    commandCase({ category: Category.ForbiddenWrites, slug, title, command, ...(ci === true ? { ci } : {}) }),
  ),
  ...FILE_TOOL_CALLS.map(([slug, title, call, ci]) =>
    callsCase({
      category: Category.ForbiddenWrites,
      slug,
      title,
      calls: (fixture) => [call(fixture)],
      setup: plantOutwardLinks,
      ...(ci === true ? { ci } : {}),
    }),
  ),
];
