import type { ShellWord } from './shell-words';

/**
 * Read-only is not harmless: `cat /proc/$PPID/environ` only reads, yet it would hand the worker's
 * API key to the model. So a command stays read-only only when every word it names is lexically
 * inside the workspace. The workflow cannot know whether the worker that runs the call has a
 * sandbox, so this rule always applies; words that are not paths (a grep pattern such as "/api/")
 * are judged the same way, which costs an approval, never a leak.
 */
export function whyOutsideWorkspace(word: ShellWord): string | undefined {
  if (hasExpansion(word)) return `"${word.text}" expands a variable, which can name any path`;
  if (hasTildeAfterAssignment(word)) return `"${word.text}" expands ~ (bash does after = and :)`;
  for (const candidate of pathCandidates(word)) {
    if (candidate.active.startsWith('~'))
      return `names ${candidate.text}, a home directory outside the workspace`;
    if (candidate.text.startsWith('/')) return `names ${candidate.text} outside the workspace`;
    if (climbsAboveRoot(candidate)) return `names ${candidate.text}, which climbs above the workspace`;
  }
  return undefined;
}

/**
 * `$NAME`, `${…}`, `$1`, the special parameters ($$ is a process id: /proc/$$/…), and anything
 * else after an active `$`: only a `$` that ends the word is surely literal.
 */
function hasExpansion(word: ShellWord): boolean {
  // Quoted or not, what follows decides: in "$HOME" only the `$` is active, and it still expands.
  return word.active.slice(0, -1).includes('$');
}

/** bash expands `~` after `=` and `:` in words that look like assignments (`x=~/.netrc`). */
function hasTildeAfterAssignment(word: ShellWord): boolean {
  return /[=:]~/.test(word.active);
}

/**
 * The places in a word where a path may start: the word itself, the value of `--option=value`,
 * and the glued value of a short option (`-f/etc/passwd`, `-I../include`).
 */
function pathCandidates(word: ShellWord): ShellWord[] {
  const candidates: ShellWord[] = [word];
  const equals = word.text.indexOf('=');
  if (equals >= 0) candidates.push(slice(word, equals + 1));
  if (/^-[^-]/.test(word.text)) {
    for (let index = 2; index < word.text.length; index += 1) candidates.push(slice(word, index));
  }
  return candidates;
}

function slice(word: ShellWord, start: number): ShellWord {
  return { text: word.text.slice(start), active: word.active.slice(start) };
}

/**
 * Whether the path, resolved lexically from the workspace root, leaves it. A glob segment that
 * starts with `.` or `[` can match `..` in sh (`.*` does), so it counts as a climb.
 */
function climbsAboveRoot(path: ShellWord): boolean {
  let depth = 0;
  let offset = 0;
  for (const segment of path.text.split('/')) {
    const active = path.active.slice(offset, offset + segment.length);
    offset += segment.length + 1;
    const globbed = /[*?[]/.test(active);
    if (segment === '..' || (globbed && /^[.[]/.test(active))) depth -= 1;
    else if (segment !== '' && segment !== '.') depth += 1;
    if (depth < 0) return true;
  }
  return false;
}
