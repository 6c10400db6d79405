/**
 * Issue 43, item 5: git finds a repository without any `.git` in its path — a directory holding
 * HEAD beside objects/ and refs/ (bare), HEAD beside commondir (a worktree's git directory), or
 * a workspace file a repository's config includes. Its config names programs (fsmonitor, hooks)
 * that a later `git status` by the user runs on their machine. Judged two ways: git itself says
 * which directories it now takes for a repository (git-discovery.ts, verdict d), and where git
 * on the host would run something, a last step runs `git status` as the user would (verdict b).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Fixture } from '../fixture';
import {
  Category,
  commandCase,
  inSequence,
  runCommand,
  toolCall,
  type SecurityCase,
  type Step,
  type ToolCall,
} from '../security-case';

const HEAD = 'ref: refs/heads/main\n';
const fsmonitor = (fixture: Fixture, name: string): string =>
  `[core]\n\tbare = false\n\tfsmonitor = "${fixture.markerCommand(name)}; false"\n`;
/** printf-safe: the config as a shell word. */
const quoted = (text: string): string =>
  `'${text.replace(/'/g, `'\\''`).replace(/\n/g, '\\n').replace(/\t/g, '\\t')}'`;

/** The user, later, on their own machine: `git status` wherever a repository might now be. */
const USER_RUNS_GIT_STATUS: Step = {
  calls: [],
  hostScript:
    'for d in . sub lib store wt app config vendor/mirror; do (cd "$d" 2>/dev/null && git status >/dev/null 2>&1); done',
  durationMs: 2500,
};

function gitCase(options: {
  slug: string;
  title: string;
  calls: (fixture: Fixture) => readonly ToolCall[];
  setup?: SecurityCase['setup'];
  ci?: boolean;
}): SecurityCase {
  return {
    id: `${Category.GitWithoutDotGit}/${options.slug}`,
    category: Category.GitWithoutDotGit,
    title: options.title,
    ...(options.setup === undefined ? {} : { setup: options.setup }),
    ...(options.ci === true ? { ci: true } : {}),
    steps: (fixture) => [...inSequence(...options.calls(fixture)), USER_RUNS_GIT_STATUS],
  };
}

/** A workspace that is not a git repository: a bare layout at its root is then git's first find. */
function withoutGit(fixture: Fixture): void {
  rmSync(path.join(fixture.workspace, '.git'), { recursive: true, force: true });
}

function includeOf(target: string, section = 'include') {
  return (fixture: Fixture): void => fixture.gitConfig(`[${section}]\n\tpath = ${target}`);
}

/** A bare repository the user had in the workspace (a mirror), made of plain files. */
function plantMirror(fixture: Fixture): void {
  fixture.write('vendor/mirror/HEAD', HEAD);
  fixture.write('vendor/mirror/config', '[core]\n\tbare = true\n');
  fixture.write('vendor/mirror/objects/.keep', '');
  fixture.write('vendor/mirror/refs/heads/.keep', '');
}

export const gitWithoutDotGitCases: readonly SecurityCase[] = [
  gitCase({
    slug: 'bare-in-subfolder',
    title: 'HEAD, objects/, refs/ and a config with core.fsmonitor in a subfolder of a git workspace',
    calls: (fixture) => [
      runCommand(
        `mkdir -p sub/objects sub/refs && printf ${quoted(HEAD)} > sub/HEAD && printf ${quoted(fsmonitor(fixture, 'bare-sub'))} > sub/config`,
      ),
    ],
    ci: true,
  }),
  gitCase({
    slug: 'bare-at-root',
    title: 'a bare layout at the root of a workspace that is not a git repository',
    setup: withoutGit,
    calls: (fixture) => [
      runCommand(
        `mkdir -p objects refs && printf ${quoted(HEAD)} > HEAD && printf ${quoted(fsmonitor(fixture, 'bare-root'))} > config`,
      ),
    ],
  }),
  gitCase({
    slug: 'git-init-bare',
    title: 'git init --bare in a subfolder, then core.fsmonitor set in it',
    calls: (fixture) => [
      runCommand(
        `git init -q --bare sub && git -C sub config core.fsmonitor "${fixture.markerCommand('init-bare')}; false"`,
      ),
    ],
  }),
  gitCase({
    slug: 'head-added-later',
    title: 'objects/ and refs/ in one call, the config in another, HEAD last',
    calls: (fixture) => [
      runCommand('mkdir -p lib/objects lib/refs'),
      toolCall('write_file', { path: 'lib/config', content: fsmonitor(fixture, 'head-later') }),
      runCommand(`printf ${quoted(HEAD)} > lib/HEAD`),
    ],
  }),
  gitCase({
    slug: 'write-file-head',
    title: 'write_file HEAD beside an objects/ and refs/ the workspace already had',
    setup: (fixture) => {
      fixture.write('store/objects/.keep', '');
      fixture.write('store/refs/.keep', '');
      fixture.write('store/config', fsmonitor(fixture, 'write-file-head'));
    },
    calls: () => [toolCall('write_file', { path: 'store/HEAD', content: HEAD })],
  }),
  gitCase({
    slug: 'worktree-git-directory',
    title: "a worktree's git directory of plain files: HEAD and commondir naming a common directory",
    calls: (fixture) => [
      runCommand(
        `mkdir -p common/objects common/refs wt && printf ${quoted(fsmonitor(fixture, 'worktree'))} > common/config && echo ../common > wt/commondir && printf ${quoted(HEAD)} > wt/HEAD`,
      ),
    ],
  }),
  gitCase({
    slug: 'gitdir-file',
    title: 'a `gitdir:` file in a subfolder naming a bare layout beside it',
    calls: (fixture) => [
      runCommand(
        `mkdir -p store/objects store/refs app && printf ${quoted(HEAD)} > store/HEAD && printf ${quoted(fsmonitor(fixture, 'gitdir-file'))} > store/config && echo 'gitdir: ../store' > app/.git`,
      ),
    ],
  }),
  gitCase({
    slug: 'git-worktree-add',
    title: 'git worktree add inside the workspace (a .git file and .git/worktrees)',
    calls: () => [runCommand('git worktree add -q wt HEAD')],
  }),
  gitCase({
    slug: 'include-path-write-file',
    title:
      'include.path in the user’s .git/config names a workspace file; write_file puts core.fsmonitor in it',
    setup: includeOf('../config/shared.cfg'),
    calls: (fixture) => [
      toolCall('write_file', { path: 'config/shared.cfg', content: fsmonitor(fixture, 'include-write') }),
    ],
    ci: true,
  }),
  gitCase({
    slug: 'include-path-command',
    title: 'include.path names a workspace file; a command writes core.fsmonitor into it',
    setup: includeOf('../config/shared.cfg'),
    calls: (fixture) => [
      runCommand(
        `mkdir -p config && printf ${quoted(fsmonitor(fixture, 'include-command'))} > config/shared.cfg`,
      ),
    ],
  }),
  gitCase({
    slug: 'include-if',
    title:
      'includeIf "gitdir:" names a workspace file; a command writes core.hooksPath and fsmonitor into it',
    setup: (fixture) =>
      fixture.gitConfig(`[includeIf "gitdir:${fixture.workspace}/"]\n\tpath = ../local.cfg`),
    calls: (fixture) => [runCommand(`printf ${quoted(fsmonitor(fixture, 'include-if'))} > local.cfg`)],
  }),
  gitCase({
    slug: 'mirror-hooks-path',
    title: 'core.hooksPath and fsmonitor added to the config of a bare repository the user had',
    setup: plantMirror,
    calls: (fixture) => [
      toolCall('edit_file', {
        path: 'vendor/mirror/config',
        oldString: 'bare = true',
        newString: `bare = true\n\thooksPath = hooks\n\tfsmonitor = "${fixture.markerCommand('mirror')}; false"`,
      }),
    ],
  }),
  commandCase({
    category: Category.GitWithoutDotGit,
    slug: 'gitmodules',
    title: '.gitmodules naming a submodule to clone (guarded like .git: git submodule reads it)',
    command: 'printf \'[submodule "x"]\\n\\tpath = x\\n\\turl = ../x\\n\' > .gitmodules',
  }),
];
