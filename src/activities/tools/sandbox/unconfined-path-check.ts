import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { splitSimpleCommands, type ShellWord } from '../../../workflows/tools/shell-words';

/**
 * Without a sandbox a read-only command may still read outside the workspace through a symlink
 * (`cat link` where link → /etc/shadow): the workflow's classifier sees words, not the disk. So
 * before an unconfined read-only command runs, every word it names is resolved (realpath, through
 * symlinks) and must land inside the workspace. Returns why not, or undefined when it may run.
 */
export async function whyNotInsideWorkspace(command: string, workspace: string): Promise<string | undefined> {
  const parsed = splitSimpleCommands(command);
  if (!parsed.ok) return parsed.reason;
  for (const words of parsed.commands) {
    // `< file cat` is legal sh: the command name is the first word that is not a redirection.
    const name = words.find((word) => word.redirectedInput !== true);
    const args = words.filter((word) => word !== name);
    const following = name === undefined ? undefined : followsSymlinks(name.text, args);
    if (following !== undefined) return following;
    for (const word of args) {
      if (/[*?[]/.test(word.active)) return `the glob ${word.text} is not checked without the sandbox`;
      for (const candidate of pathCandidates(word)) {
        const resolved = await resolvePhysically(workspace, candidate);
        if (!isInside(resolved, workspace))
          return `${candidate} resolves to ${resolved}, outside the workspace`;
      }
    }
  }
  return undefined;
}

/** The word, the value of --option=value, and a short option's glued value (-f../x). */
function pathCandidates(word: ShellWord): string[] {
  const text = word.text;
  if (!text.startsWith('-')) return [text];
  const equals = text.indexOf('=');
  if (equals >= 0) return [text.slice(equals + 1)];
  return /^-[^-]./.test(text) ? [text.slice(2)] : [];
}

/** Options that make a recursive read follow symlinks found inside the workspace to anywhere. */
function followsSymlinks(name: string, args: readonly ShellWord[]): string | undefined {
  const short = (letter: string): boolean =>
    args.some((word) => /^-[^-]/.test(word.text) && word.text.includes(letter));
  const long = (...names: string[]): boolean =>
    args.some((word) => names.some((option) => word.text === option || word.text.startsWith(`${option}=`)));
  const follows =
    (['grep', 'egrep', 'fgrep'].includes(name) && (short('R') || long('--dereference-recursive'))) ||
    (name === 'find' && long('-L', '-follow')) ||
    (name === 'rg' && (short('L') || long('--follow'))) ||
    (name === 'tree' && short('l')) ||
    (['du', 'ls'].includes(name) && (short('L') || long('--dereference')));
  return follows ? `${name} would follow symlinks out of the workspace` : undefined;
}

/**
 * Resolves the path the way the kernel does, one segment at a time: `link/..` is the parent of
 * the link's target, not the workspace (path.resolve would get that wrong). A missing segment
 * ends the walk: nothing below it can be read.
 */
async function resolvePhysically(workspace: string, relative: string): Promise<string> {
  let current = relative.startsWith('/') ? '/' : workspace;
  const segments = relative.split('/');
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index] ?? '';
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      current = path.dirname(current);
      continue;
    }
    try {
      current = await realpath(path.join(current, segment));
    } catch {
      return path.join(current, ...segments.slice(index));
    }
  }
  return current;
}

function isInside(resolved: string, workspace: string): boolean {
  const relative = path.relative(workspace, resolved);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
