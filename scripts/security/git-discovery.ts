/**
 * git itself as the judge of "a repository without .git" (issue 43): after a step, for each
 * directory the step changed something in, ask git which git directory it would use there. One
 * that is not a `.git` (a bare layout, a worktree's git directory made of plain files) is a
 * repository whose config a later `git status` by the user would read. Read-only and safe to run
 * on case content: no hooks, no fsmonitor, no system or global config, never above the fixture.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { TreeChange } from './tree-snapshot';

/** Directories asked per step: a step that made thousands is judged by its first ones. */
const DIRECTORIES_ASKED = 64;

export function repositoriesWithoutDotGit(workspace: string, changes: readonly TreeChange[]): string[] {
  const directories = new Set<string>();
  for (const change of changes) {
    if (change.change === 'deleted') continue;
    directories.add(path.posix.dirname(change.path));
    if (change.after?.type === 'directory') directories.add(change.path);
  }
  const found = new Set<string>();
  for (const directory of [...directories].slice(0, DIRECTORIES_ASKED)) {
    const gitDirectory = gitDirectoryAt(path.join(workspace, directory === '.' ? '' : directory), workspace);
    if (gitDirectory === undefined) continue;
    const relative = path.relative(workspace, gitDirectory);
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    if (relative.split(path.sep).includes('.git')) continue;
    found.add(relative === '' ? '.' : relative);
  }
  return [...found].sort();
}

function gitDirectoryAt(directory: string, workspace: string): string | undefined {
  try {
    if (!lstatSync(directory).isDirectory()) return undefined;
    const output = execFileSync(
      'git',
      [
        '-c',
        'core.hooksPath=/dev/null',
        '-c',
        'core.fsmonitor=false',
        // What git does by default, whatever this machine's configuration says.
        '-c',
        'safe.bareRepository=all',
        'rev-parse',
        '--absolute-git-dir',
      ],
      {
        cwd: directory,
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 5000,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_CEILING_DIRECTORIES: path.dirname(workspace),
        },
      },
    );
    return output.toString('utf8').trim();
  } catch {
    return undefined;
  }
}
